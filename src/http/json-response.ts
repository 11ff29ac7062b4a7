// Every response the API writes goes through here. The Response is built with a plain header
// object, which @hono/node-server writes straight to the socket; c.header() or Hono's c.body() with
// more than one header would build a Headers instance per request instead, the costliest part of a
// simple GET. So headers a middleware wants on the answer go in the `responseHeaders` variable, not
// c.header(). The JSON text is kept on the context, so the journal records it without cloning the
// response stream.
import type { Context } from 'hono';
import type { SandboxEnv } from './env.js';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * A body longer than this is handed to Node as bytes: Node writes a string body by prepending the
 * header text to it, a copy of the whole body on the JavaScript heap (a list page is 128 KB), where
 * bytes go out beside the header as they are.
 */
const LARGE_BODY_CHARS = 16 * 1024;

function respond(c: Context<SandboxEnv>, text: string | null, status: number, headers: Record<string, string> | undefined): Response {
  const all: Record<string, string> = text === null ? {} : { 'content-type': 'application/json' };
  all[REQUEST_ID_HEADER] = c.get('requestId');
  const fromSteps = c.get('responseHeaders');
  if (fromSteps) Object.assign(all, fromSteps);
  if (headers) Object.assign(all, headers);
  const res = new Response(text !== null && text.length > LARGE_BODY_CHARS ? Buffer.from(text) : text, { status, headers: all });
  c.set('sentJson', { res, text: text ?? '' });
  return res;
}

export function jsonResponse(c: Context<SandboxEnv>, body: unknown, status: number, headers?: Record<string, string>): Response {
  return respond(c, JSON.stringify(body), status, headers);
}

/** A body that is JSON text already. */
export function jsonTextResponse(c: Context<SandboxEnv>, text: string, status: number, headers?: Record<string, string>): Response {
  return respond(c, text, status, headers);
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
