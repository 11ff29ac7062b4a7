// Every answer the sandbox's pipelines write goes through here. The Response is built with a plain
// header object, which @hono/node-server writes straight to the socket; c.header() or Hono's
// c.body() with more than one header would build a Headers instance per request instead, the
// costliest part of a simple GET. So headers a step wants on the answer go through
// call.addResponseHeader(). The JSON sent is kept on the call, so the journal records it without
// cloning the response stream.
//
// Large answers assembled from pieces of cached JSON (a gift card list page) are copied into buffers
// of a pool owned here: a buffer is used again once Node has written its response.
import { BufferPool } from './buffer-pool.js';
import type { Call, JsonBytes, SentBody } from './call.js';

export type { JsonBytes, SentBody } from './call.js';

export const REQUEST_ID_HEADER = 'x-request-id';
/** The node that answered (request-id.ts sets call.node): a constant string per process, one more property. */
export const NODE_HEADER = 'x-sandbox-node';

/**
 * A JSON answer made of pieces of cached UTF-8 JSON: `opening`, the pieces separated by commas, then
 * `closing` (a list page: '{"items":[', the cards, '],"limit":...}').
 */
export interface JsonPieces {
  opening: string;
  pieces: readonly Buffer[];
  /** The pieces' length in characters (UTF-16 units). */
  pieceChars: number;
  closing: string;
}

/** The byte between two pieces. */
const COMMA = 0x2c;

/**
 * A body longer than this is handed to Node as bytes: Node writes a string body by prepending the
 * header text to it, a copy of the whole body on the JavaScript heap, where bytes go out beside the
 * header as they are.
 */
const LARGE_BODY_CHARS = 16 * 1024;

/** Where answers made of pieces are assembled. */
const pages = new BufferPool();

function respond(call: Call, body: SentBody | null, status: number, headers: Record<string, string> | undefined): Response {
  const all: Record<string, string> = body === null ? {} : { 'content-type': 'application/json' };
  all[REQUEST_ID_HEADER] = call.requestId;
  if (call.node) all[NODE_HEADER] = call.node;
  if (call.responseHeaders) Object.assign(all, call.responseHeaders);
  if (headers) Object.assign(all, headers);
  const payload = typeof body === 'string' ? (body.length > LARGE_BODY_CHARS ? Buffer.from(body) : body) : body === null ? null : body.bytes;
  const res = new Response(payload, { status, headers: all });
  call.sent = { res, body: body ?? '', headers: all };
  return res;
}

export function jsonResponse(call: Call, body: unknown, status: number, headers?: Record<string, string>): Response {
  return respond(call, JSON.stringify(body), status, headers);
}

/** A body that is JSON text already, or JSON bytes. */
export function jsonTextResponse(call: Call, json: SentBody, status: number, headers?: Record<string, string>): Response {
  return respond(call, json, status, headers);
}

/** A response without a body (204: no content type either). */
export function emptyResponse(call: Call, status: number, headers?: Record<string, string>): Response {
  return respond(call, null, status, headers);
}

/**
 * The pieces joined into one buffer of the pool, given back once Node has written the answer that
 * carries it (a buffer whose answer is never written, or written without Node, is left to the GC).
 */
export function assemble(call: Call, json: JsonPieces): JsonBytes {
  const { opening, pieces, closing } = json;
  const commas = Math.max(0, pieces.length - 1);
  let length = Buffer.byteLength(opening) + Buffer.byteLength(closing) + commas;
  for (let i = 0; i < pieces.length; i++) length += pieces[i].length;
  const bytes = pages.take(length);
  let at = bytes.write(opening, 0);
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) bytes[at++] = COMMA;
    // set(), not copy(): Node 20's copy() makes a new view of the source on every call.
    bytes.set(pieces[i], at);
    at += pieces[i].length;
  }
  bytes.write(closing, at);
  const assembled: JsonBytes = { bytes, chars: opening.length + closing.length + commas + json.pieceChars };
  call.onWritten(() => {
    if (!assembled.kept) pages.give(bytes);
  });
  return assembled;
}

/**
 * The answer's bytes, never given back to the pool: the caller has them as they are (no copy), and
 * must read them only once the answer is over (Node may write from them until then).
 */
export function keepSentBytes(body: JsonBytes): Buffer<ArrayBuffer> {
  body.kept = true;
  return body.bytes;
}

/** The JSON body of the response (text or bytes; '' for none), when it is still the one made here (no rewrite since). */
export function sentBody(call: Call): SentBody | undefined {
  const sent = call.sent;
  return sent && sent.res === call.res ? sent.body : undefined;
}

/** The headers of the response as a plain object, when it is still the one made here (the journal reads them without a Headers object). */
export function sentHeaders(call: Call): Readonly<Record<string, string>> | undefined {
  const sent = call.sent;
  return sent && sent.res === call.res ? sent.headers : undefined;
}
