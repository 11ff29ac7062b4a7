// Every response the API writes goes through here. The Response is built with a plain header
// object, which @hono/node-server writes straight to the socket; c.header() or Hono's c.body() with
// more than one header would build a Headers instance per request instead, the costliest part of a
// simple GET. So headers a middleware wants on the answer go in the `responseHeaders` variable, not
// c.header(). The JSON text is kept on the context, so the journal records it without cloning the
// response stream.
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { SandboxEnv } from './env.js';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * JSON text already encoded as UTF-8 (a list page assembled from kept record bytes), with its
 * length in characters, which the journal's limits count in.
 */
export interface JsonBytes {
  bytes: Buffer<ArrayBuffer>;
  chars: number;
  /** Called once the response carrying the bytes has been written: they may be reused (buffer-pool.ts). */
  release?: () => void;
}

/** What an API answer carried: its JSON text, its JSON bytes, or '' for no body. */
export type SentBody = string | JsonBytes;

/**
 * A body longer than this is handed to Node as bytes: Node writes a string body by prepending the
 * header text to it, a copy of the whole body on the JavaScript heap, where bytes go out beside the
 * header as they are.
 */
const LARGE_BODY_CHARS = 16 * 1024;

function respond(c: Context<SandboxEnv>, body: SentBody | null, status: number, headers: Record<string, string> | undefined): Response {
  const all: Record<string, string> = body === null ? {} : { 'content-type': 'application/json' };
  all[REQUEST_ID_HEADER] = c.get('requestId');
  const fromSteps = c.get('responseHeaders');
  if (fromSteps) Object.assign(all, fromSteps);
  if (headers) Object.assign(all, headers);
  const payload = typeof body === 'string' ? (body.length > LARGE_BODY_CHARS ? Buffer.from(body) : body) : body === null ? null : body.bytes;
  const res = new Response(payload, { status, headers: all });
  c.set('sentJson', { res, body: body ?? '' });
  // Only Node's own response says when its bytes are written; without one (in process) the GC takes them.
  if (body !== null && typeof body !== 'string' && body.release) (c.env as Partial<HttpBindings> | undefined)?.outgoing?.once('finish', body.release);
  return res;
}

export function jsonResponse(c: Context<SandboxEnv>, body: unknown, status: number, headers?: Record<string, string>): Response {
  return respond(c, JSON.stringify(body), status, headers);
}

/** A body that is JSON text already, or JSON bytes. */
export function jsonTextResponse(c: Context<SandboxEnv>, json: SentBody, status: number, headers?: Record<string, string>): Response {
  return respond(c, json, status, headers);
}

/** A response without a body (204: no content type either). */
export function emptyResponse(c: Context<SandboxEnv>, status: number, headers?: Record<string, string>): Response {
  return respond(c, null, status, headers);
}

/** The JSON body of the response (text or bytes; '' for none), when it is still the one made here (no rewrite since). */
export function sentBody(c: Context<SandboxEnv>): SentBody | undefined {
  const sent = c.get('sentJson');
  return sent && sent.res === c.res ? sent.body : undefined;
}
