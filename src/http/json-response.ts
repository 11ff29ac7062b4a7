// Every response the API writes goes through here. The Response is built with a plain header
// object, which @hono/node-server writes straight to the socket; c.header() or Hono's c.body() with
// more than one header would build a Headers instance per request instead, the costliest part of a
// simple GET. So headers a middleware wants on the answer go in the `responseHeaders` variable, not
// c.header(). The JSON text is kept on the context, so the journal records it without cloning the
// response stream.
import type { Context } from 'hono';
import type { SandboxEnv } from './env.js';

export const REQUEST_ID_HEADER = 'x-request-id';

function respond(c: Context<SandboxEnv>, text: string | null, status: number, headers: Record<string, string> | undefined): Response {
  const all: Record<string, string> = text === null ? {} : { 'content-type': 'application/json' };
  all[REQUEST_ID_HEADER] = c.get('requestId');
  const fromSteps = c.get('responseHeaders');
  if (fromSteps) Object.assign(all, fromSteps);
  if (headers) Object.assign(all, headers);
  const res = new Response(text, { status, headers: all });
  c.set('sentJson', { res, text: text ?? '' });
  return res;
}

export function jsonResponse(c: Context<SandboxEnv>, body: unknown, status: number, headers?: Record<string, string>): Response {
  return respond(c, JSON.stringify(body), status, headers);
}

/** A response without a body (204: no content type either). */
export function emptyResponse(c: Context<SandboxEnv>, status: number, headers?: Record<string, string>): Response {
  return respond(c, null, status, headers);
}

/** The JSON text of the response, when it is still the one made here (no rewrite since). */
export function sentJsonText(c: Context<SandboxEnv>): string | undefined {
  const sent = c.get('sentJson');
  return sent && sent.res === c.res ? sent.text : undefined;
}
