// CORS for browser clients (Embed, web SDKs): Hono's cors middleware, applied only to requests that
// carry an Origin header or are preflights. Server-side SDKs, curl and CI clients send no Origin and
// need no CORS headers; skipping the middleware for them matters because it touches the response
// after the handler, which makes Hono rebuild the response.
import { cors } from 'hono/cors';
import type { Step } from './pipeline.js';

/** `origin`: '*' for the API (it needs a token anyway); the --allowed-origin list for the control API and the console. */
export function corsForBrowsers(exposeHeaders: string[], origin: '*' | string[] = '*'): Step {
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
