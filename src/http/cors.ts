// CORS for browser clients (Embed, web SDKs): Hono's cors middleware, applied only to requests that
// carry an Origin header or are preflights. Server-side SDKs, curl and CI clients send no Origin and
// need no CORS headers; skipping the middleware for them matters because it touches the response
// before the handler runs, which makes Hono rebuild every response afterwards.
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { SandboxEnv } from './env.js';
import { requestHeader } from './headers.js';

export function corsForBrowsers(exposeHeaders: string[]): MiddlewareHandler<SandboxEnv> {
  const applyCors = cors({ origin: '*', exposeHeaders });
  return async function corsWhenAsked(c, next) {
    if (c.req.method !== 'OPTIONS' && requestHeader(c, 'origin') === undefined) return next();
    return applyCors(c, next);
  };
}
