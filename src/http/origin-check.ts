// The control API and the console act only for pages of their own origin (and those given with
// --allowed-origin): any web page can send a form POST or a no-cors fetch to 127.0.0.1 (a "simple"
// request, without preflight), and without this check such a request resets or mints tokens before
// the browser hides its answer. What the browser says is trusted, not what a client may leave out:
// Origin on every POST/PUT/DELETE (and on cross-origin fetches), Sec-Fetch-Site on the rest. A
// client that sends neither (curl, SDKs, test code) is no web page and is served as before.
import { ApiError } from '../errors/api-error.js';
import type { Call } from './call.js';
import { requestHost } from './host-check.js';
import type { Step } from './pipeline.js';

export interface OriginRule {
  /** Origins (scheme://host[:port], lower case) served besides the request's own. */
  allowedOrigins: readonly string[];
  /**
   * Also serve a top-level navigation from another site (a link to the console clicked in a chat
   * or wiki): a GET of a whole page, whose answer that site cannot read. The console's shells hold
   * no data; their parts are fetched by the console itself, from its own origin.
   */
  navigations?: boolean;
}

/** 403 before anything acts, for a request a page of another origin made. */
export function ownOriginOnly(rule: OriginRule): Step {
  const allowed = new Set(rule.allowedOrigins.map((origin) => origin.toLowerCase()));
  return {
    name: 'own origin only',
    before(call) {
      const origin = call.header('origin');
      if (origin === undefined) {
        const site = call.header('sec-fetch-site');
        if (site === undefined || site === 'same-origin' || site === 'none') return;
        if (rule.navigations && isTopLevelNavigation(call)) return;
        throw refused(`a page of another site (its Sec-Fetch-Site header says ${site.slice(0, 20)})`, 'sec-fetch-site');
      }
      if (allowed.has(origin) || origin === ownOrigin(call)) return;
      const from =
        origin === 'null' ? 'a page without an origin (Origin: null: a sandboxed frame, a file or a redirect)' : `the page at ${origin.slice(0, 100)}`;
      const fix = origin === 'null' ? '' : `, or start the sandbox with --allowed-origin ${origin.slice(0, 100)} (SANDBOX_ALLOWED_ORIGIN)`;
      throw refused(from, 'origin', fix);
    },
  };
}

/** scheme://host[:port] of the request itself, as a browser writes its Origin. */
export function ownOrigin(call: Call): string | undefined {
  const host = requestHost(call);
  if (host === undefined) return undefined;
  // Behind a proxy that ends TLS the page's scheme is the proxy's. A page of another origin cannot
  // send this header (not CORS-safelisted: its preflight is refused), and the scheme only tells
  // apart pages of the same host and port, which are the sandbox's own.
  const forwarded = call.header('x-forwarded-proto');
  const scheme = forwarded ? forwarded.split(',')[0].trim().toLowerCase() : call.url.startsWith('https:') ? 'https' : 'http';
  return `${scheme}://${host.toLowerCase()}`;
}

/**
 * Whether a web page of another origin made the request: its Origin is not the sandbox's own, or,
 * without one, its Sec-Fetch-Site says another site (an image or script tag's GET).
 */
export function fromPageOfAnotherOrigin(call: Call): boolean {
  const origin = call.header('origin');
  if (origin !== undefined) return origin !== ownOrigin(call);
  const site = call.header('sec-fetch-site');
  return site === 'cross-site' || site === 'same-site';
}

function isTopLevelNavigation(call: Call): boolean {
  return (call.method === 'GET' || call.method === 'HEAD') && call.header('sec-fetch-mode') === 'navigate' && call.header('sec-fetch-dest') === 'document';
}

function refused(from: string, header: 'origin' | 'sec-fetch-site', fix = ''): ApiError {
  return ApiError.ofStatus(
    403,
    `The control API and the console act only for pages of their own origin; this request came from ${from}. ` +
      `Open the console at the sandbox's own address, call the control API from code (no browser)${fix}.`,
    [
      {
        location: 'header',
        pointer: `/${header}`,
        type: 'origin_not_allowed',
        message: `Header '${header}' must name the sandbox's own origin or an --allowed-origin.`,
      },
    ],
    { outsideContract: true },
  );
}
