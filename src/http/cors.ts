// CORS for browser clients (Embed, web SDKs): Hono's cors middleware, applied only to requests that
// carry an Origin header or are preflights. Server-side SDKs, curl and CI clients send no Origin and
// need no CORS headers; skipping the middleware for them matters because it touches the response
// after the handler, which makes Hono rebuild the response.
//
// The API grants CORS to pages the developer runs, not to every page the browser opens: the
// well-known key pairs ship with the package, so any page could sign its own token and, granted
// `authorization`, act on the sandbox. Granted: loopback origins (a dev server on localhost, a
// checkout page on 127.0.0.1:3000), the sandbox's own, --allowed-origin and --cors-origin; every
// origin only with `--cors-origin *`. A request from any other page, preflight or not, is a 403
// before anything acts. Judging an origin is a Set lookup; a loopback one is parsed once, then remembered.
import { isIPv4 } from 'node:net';
import { cors } from 'hono/cors';
import type { SandboxConfig } from '../config.js';
import { ApiError } from '../errors/api-error.js';
import type { Call } from './call.js';
import { ownOrigin } from './origin-check.js';
import type { Step } from './pipeline.js';

/** Distinct Origin values whose loopback judgement is remembered; past it the memory starts over. */
const REMEMBERED_ORIGINS = 256;

export interface CorsRule {
  /** `--cors-origin *`: every origin. */
  any: boolean;
  /** Origins given (--cors-origin, --allowed-origin), as a browser writes them. */
  origins: ReadonlySet<string>;
}

/** The rule of a configuration, made once at boot. */
export function corsRuleOf(config: Pick<SandboxConfig, 'corsOrigins' | 'allowedOrigins'>): CorsRule {
  return { any: config.corsOrigins.includes('*'), origins: new Set([...config.corsOrigins, ...config.allowedOrigins].map((o) => o.toLowerCase())) };
}

/** http(s) on localhost, *.localhost, 127.0.0.0/8 or ::1 (also written ::ffff:127.x.y.z). */
export function isLoopbackOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false;
  const { protocol, hostname } = new URL(origin);
  if (protocol !== 'http:' && protocol !== 'https:') return false;
  if (hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]') return true;
  if (isIPv4(hostname)) return hostname.startsWith('127.');
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname); // the URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1
}

/**
 * CORS with a fixed list: the control API and the console (--allowed-origin), whose own-origin step
 * refused the rest already; `*` for the documents (/docs, /openapi.json), which hold no data and act on nothing.
 */
export function corsForBrowsers(exposeHeaders: string[], origin: '*' | string[]): Step {
  const applyCors = cors({ origin, exposeHeaders });
  return {
    name: 'CORS',
    before(call) {
      if (call.method !== 'OPTIONS' && call.header('origin') === undefined) return;
      // A preflight is answered here; any other request runs inside, then gets the headers.
      return (rest) => applyCors(call.context, rest);
    },
  };
}

/** CORS for the API: granted to the origins of `rule`, loopback ones and the sandbox's own; a 403 for any other page. */
export function corsForApi(rule: CorsRule, exposeHeaders: string[]): Step {
  // The origin was judged before the middleware runs: it only echoes it (or answers `*`).
  const applyCors = cors({ origin: rule.any ? '*' : (origin) => origin, exposeHeaders });
  const loopback = new Map<string, boolean>();
  const isGranted = (origin: string, call: Call) => {
    if (rule.any || rule.origins.has(origin)) return true;
    let local = loopback.get(origin);
    if (local === undefined) {
      local = isLoopbackOrigin(origin);
      if (loopback.size >= REMEMBERED_ORIGINS) loopback.clear();
      loopback.set(origin, local);
    }
    return local || origin === ownOrigin(call);
  };
  return {
    name: 'CORS',
    before(call) {
      const origin = call.header('origin');
      if (origin === undefined) {
        if (call.method !== 'OPTIONS') return; // not a browser's cross-origin request: most requests end here
      } else if (!isGranted(origin, call)) throw notGranted(origin);
      return (rest) => applyCors(call.context, rest);
    },
  };
}

function notGranted(origin: string): ApiError {
  const shown = origin.slice(0, 100);
  const fix = origin === 'null' ? '' : ` If that page is yours, start the sandbox with --cors-origin ${shown} (SANDBOX_CORS_ORIGIN).`;
  return ApiError.ofStatus(
    403,
    `The API serves browser pages of loopback origins (localhost, 127.0.0.1), the sandbox's own and those given with --cors-origin; this request came from the page at ${shown}.${fix}`,
    [
      {
        location: 'header',
        pointer: '/origin',
        type: 'origin_not_allowed',
        message: `Header 'origin' must name a loopback origin, the sandbox's own or a --cors-origin.`,
      },
    ],
    { outsideContract: true },
  );
}
