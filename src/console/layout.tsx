// The page around every console page: landmarks, the navigation (from PAGES), the namespace it
// works on, the admin token form, and the place the page's content is loaded into. The shell holds
// no data, so it is served without the admin token (a browser cannot send a header when it
// navigates); the content comes from /_sandbox/console/parts/..., which needs the token like the
// control API, sent by the console's script from this tab's sessionStorage.
import type { ConsolePage } from './types.js';

export interface ShellProps {
  page: ConsolePage;
  pages: readonly ConsolePage[];
  /** '' or /ns/{name}. */
  base: string;
  namespace: string;
  /** Opened through a namespace: the control API shows that namespace only. */
  scoped: boolean;
  /** The query string of the page's address, passed on to its content (with its leading ?, or ''). */
  search: string;
  version: string;
}

export function Shell(props: ShellProps) {
  const { page, base, namespace, scoped, search } = props;
  const assets = `${base}/_sandbox/console/assets`;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${page.title} · payments-sandbox console`}</title>
        <link rel="stylesheet" href={`${assets}/console.css`} />
        {/* No favicon: a browser asking /favicon.ico would reach the API and fill the journal with 404s. */}
        <link rel="icon" href="data:," />
        <script src={`${assets}/htmx.min.js`} defer />
        <script type="module" src={`${assets}/console.js`} />
      </head>
      <body data-base={base} data-namespace={namespace} data-page={page.slug}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="top">
          <p class="brand">
            <a href={`${base}/_sandbox/console`}>payments-sandbox console</a> <span class="muted">v{props.version}</span>
          </p>
          <p class="namespace">
            Namespace <strong>{namespace}</strong>
            {scoped ? <span class="muted"> (this namespace only)</span> : null}
            {scoped ? <a href="/_sandbox/console/namespaces">all namespaces</a> : <a href={`${base}/_sandbox/console/namespaces`}>switch</a>}
          </p>
          <button type="button" id="sign-out" class="link" hidden>
            Forget admin token
          </button>
        </header>
        <nav aria-label="Console pages">
          <ul>
            {props.pages.map((p) => (
              <li>
                <a href={`${base}/_sandbox/console/${p.slug}`} aria-current={p === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div id="status" class="status" role="status" aria-live="polite" />
        <section id="login" class="login" hidden aria-labelledby="login-title">
          <h2 id="login-title">Admin token needed</h2>
          <p>
            This sandbox was started with an admin token (<code>--admin-token</code>). The console sends it with every request, as the control API requires; it
            is kept in this browser tab only.
          </p>
          <form id="login-form">
            <label for="admin-token">Admin token</label>
            <input id="admin-token" name="token" type="password" autocomplete="current-password" required aria-describedby="login-error" />
            <button type="submit">Sign in</button>
            <p id="login-error" class="form-error" role="alert" />
          </form>
        </section>
        <main id="main" tabindex={-1} data-part={`${base}/_sandbox/console/parts/${page.slug}${search}`}>
          <h1>{page.title}</h1>
          <p class="muted">Loading…</p>
        </main>
      </body>
    </html>
  );
}

/** The top of every page's content. */
export function PageHeading(props: { page: Pick<ConsolePage, 'title' | 'summary'> }) {
  return (
    <>
      <h1>{props.page.title}</h1>
      <p class="summary">{props.page.summary}</p>
    </>
  );
}
