// The console at /_sandbox/console (and /ns/{name}/_sandbox/console for one namespace): plain Hono
// routes like /docs, since no operation document describes HTML pages. GET and HEAD only: any
// other method falls through to the control API, which answers it.
//  - /_sandbox/console[/{page}]: the shell of a page (no data, no token needed; see layout.tsx);
//  - /_sandbox/console/assets/{name}: its files, from the package;
//  - /_sandbox/console/parts/{page}[/{fragment}]: the page's content, behind the admin token
//    exactly like the control API, read through the control API's handlers.
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { getPath } from 'hono/utils/url';
import { ApiError } from '../errors/api-error.js';
import { callOf, type SandboxEnv } from '../http/call.js';
import { namespaceOfPath } from '../http/namespace.js';
import { consoleAsset } from './assets.js';
import { PageHeading, Shell } from './layout.js';
import { PAGES, pageBySlug } from './pages.js';
import { consolePath } from './read.js';
import type { ConsoleDeps, ConsolePage, ConsoleView } from './types.js';

const HTML_HEADERS = { 'cache-control': 'no-store' };

/**
 * `before`: the sandbox's first steps and the namespace step, for every console route;
 * `adminToken`: the control API's token step, for the parts that hold data.
 */
export function consoleRoutes(deps: ConsoleDeps, before: MiddlewareHandler<SandboxEnv>[], adminToken: MiddlewareHandler<SandboxEnv>): Hono<SandboxEnv> {
  const routes = new Hono<SandboxEnv>();
  routes.on(['GET', 'HEAD'], ['/_sandbox/console', '/_sandbox/console/*'], ...before);
  routes.on(['GET', 'HEAD'], '/_sandbox/console/parts/*', adminToken);

  const shell = (c: Context<SandboxEnv>, page: ConsolePage) => {
    const call = callOf(c);
    const url = new URL(c.req.url);
    const html = Shell({
      page,
      pages: PAGES,
      base: baseOf(c),
      namespace: call.namespaceName,
      scoped: call.namespaceNamed,
      search: url.search,
      version: deps.version,
    });
    return c.html(`<!doctype html>${html}`, 200, HTML_HEADERS);
  };
  routes.get('/_sandbox/console', (c) => shell(c, PAGES[0]));
  routes.get('/_sandbox/console/', (c) => shell(c, PAGES[0]));

  routes.get('/_sandbox/console/assets/:name', function serveConsoleAsset(c) {
    const asset = consoleAsset(c.req.param('name'));
    if (!asset) throw ApiError.notFound(`There is no console asset '${c.req.param('name').slice(0, 80)}'; the console is at /_sandbox/console.`);
    return c.body(new Uint8Array(asset.body), 200, { 'content-type': asset.contentType, 'cache-control': 'no-cache' });
  });

  routes.get('/_sandbox/console/parts/:slug/:fragment?', async function serveConsolePart(c) {
    const page = knownPage(c.req.param('slug'));
    const view: ConsoleView = { deps, call: callOf(c), query: new URL(c.req.url).searchParams, base: baseOf(c) };
    const fragmentName = c.req.param('fragment');
    const fragment = fragmentName === undefined ? undefined : Object.hasOwn(page.fragments ?? {}, fragmentName) ? page.fragments?.[fragmentName] : undefined;
    if (fragmentName !== undefined && !fragment) throw ApiError.notFound(`The console page ${page.slug} has no part '${fragmentName.slice(0, 80)}'.`);
    if (!view.call.ns.admitted) return c.html(`${NotCreated({ view, page })}`, 200, HTML_HEADERS);
    const content = await (fragment ? fragment(view) : page.render(view));
    return c.html(`${content}`, 200, HTML_HEADERS);
  });

  routes.get('/_sandbox/console/:slug', (c) => shell(c, knownPage(c.req.param('slug'))));
  return routes;
}

function knownPage(slug: string): ConsolePage {
  const page = pageBySlug(slug);
  if (!page) throw ApiError.notFound(`The console has no page '${slug.slice(0, 80)}'; its pages: ${PAGES.map((p) => p.slug).join(', ')}.`);
  return page;
}

/** /ns/{name} when the console was opened through a namespace prefix, else ''. */
function baseOf(c: Context<SandboxEnv>): string {
  const name = namespaceOfPath(getPath(c.req.raw));
  return name === null ? '' : `/ns/${encodeURIComponent(name)}`;
}

/** A namespace no one has made yet: nothing to read, and reading must not make it. */
function NotCreated(props: { view: ConsoleView; page: ConsolePage }) {
  const { view, page } = props;
  const name = view.call.namespaceName;
  return (
    <>
      <PageHeading page={page} />
      <p class="note">
        Namespace <strong>{name}</strong> does not exist yet. The first API call with a valid token, or any control API call, creates it from the fixtures.
      </p>
      <button type="button" data-api={`GET ${view.base}/_sandbox/health`} data-done={`Namespace ${name} created.`}>
        Create namespace {name}
      </button>
      <p>
        <a href={consolePath({ ...view, base: '' }, '/namespaces')}>All namespaces</a>
      </p>
    </>
  );
}
