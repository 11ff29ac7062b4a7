// The one module that reaches into Node's own request and response objects (@hono/node-server
// passes them as the context's `incoming` and `outgoing`). Served by Node, the headers are already
// a plain object: reading it directly avoids building a Headers instance and normalizing names on
// every lookup (a request looks up a dozen headers). In process (app.request(), no Node objects),
// the fetch Request is used instead, and what needs a socket says so.
import { Http2ServerRequest, constants as http2 } from 'node:http2';
import type { Context } from 'hono';

type IncomingHeaders = Record<string, string | string[] | undefined>;

interface NodeBindings {
  incoming?: {
    headers?: IncomingHeaders;
    socket?: { destroy(): void };
    httpVersionMajor?: number;
    /** The request target as sent: origin form (/path), or absolute form (http://host/path). */
    url?: string;
    complete?: boolean;
    readableAborted?: boolean;
    aborted?: boolean;
    /** HTTP/2 only. */
    stream?: { endAfterHeaders?: boolean; closed?: boolean };
  };
  outgoing?: { once(event: 'finish' | 'close', listener: () => void): unknown; destroyed?: boolean };
}

const bindings = (c: Context): NodeBindings | undefined => c.env as NodeBindings | undefined;

/** One header by its lower-case name (repeats joined with ", "). */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = bindings(c)?.incoming?.headers;
  if (!incoming) return c.req.header(name);
  const value = incoming[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The request headers as a plain object with lower-case names, not to be changed. */
export function requestHeaders(c: Context): Readonly<IncomingHeaders> {
  return bindings(c)?.incoming?.headers ?? Object.fromEntries(c.req.raw.headers);
}

/**
 * Ends the request without an answer, as a crashed upstream or proxy would: the TCP connection, or
 * over HTTP/2 only the request's stream (INTERNAL_ERROR: the connection carries other requests).
 * False when there is no socket (in process).
 */
export function destroySocket(c: Context): boolean {
  const incoming = bindings(c)?.incoming;
  if (incoming instanceof Http2ServerRequest) {
    incoming.stream.close(http2.NGHTTP2_INTERNAL_ERROR);
    return true;
  }
  const socket = incoming?.socket;
  if (!socket) return false;
  socket.destroy();
  return true;
}

/** Whether the request came over HTTP/2. */
/** Whether the request target was sent in absolute form (`POST http://host/path HTTP/1.1`): its authority, not Host, names the site. */
export function absoluteFormTarget(c: Context): boolean {
  const target = bindings(c)?.incoming?.url;
  return target !== undefined && target.charCodeAt(0) !== 47; // '/': the origin form of nearly every request
}

export function isHttp2(c: Context): boolean {
  return bindings(c)?.incoming?.httpVersionMajor === 2;
}

/** An HTTP/2 request whose HEADERS frame did not end the stream: a body follows, of a length nobody declared. */
export function http2BodyOfUnknownLength(c: Context): boolean {
  const incoming = bindings(c)?.incoming;
  return incoming?.httpVersionMajor === 2 && incoming.stream?.endAfterHeaders === false;
}

/** Whether the client stopped sending its request (went away, or the request timeout cut it off). */
export function requestCutOff(c: Context): boolean {
  const incoming = bindings(c)?.incoming;
  if (!incoming) return false;
  if (incoming.stream) return incoming.stream.closed === true || incoming.aborted === true;
  return !incoming.complete && incoming.readableAborted === true;
}

/**
 * Runs `done` once Node has handed the whole response to the operating system; returns false when
 * nothing will ever say so (in process), and the caller lets the garbage collector have the bytes.
 */
export function onResponseWritten(c: Context, done: () => void): boolean {
  const outgoing = bindings(c)?.outgoing;
  if (!outgoing) return false;
  outgoing.once('finish', done);
  return true;
}

/**
 * Runs `done` once the response is over: written whole, or its connection gone (Node then writes
 * nothing more of it); returns false when nothing will say so (in process).
 */
export function onResponseClosed(c: Context, done: () => void): boolean {
  const outgoing = bindings(c)?.outgoing;
  if (!outgoing) return false;
  if (outgoing.destroyed) queueMicrotask(done);
  else outgoing.once('close', done);
  return true;
}

/**
 * The first request header whose name `test` accepts (names as the client spelled them), lower-cased;
 * undefined when none does. Served by Node, it walks the raw name list Node keeps anyway: no copy,
 * no object built.
 */
export function findHeaderName(c: Context, test: (name: string) => boolean): string | undefined {
  const raw = (c.env as { incoming?: { rawHeaders?: string[] } } | undefined)?.incoming?.rawHeaders;
  if (raw) {
    for (let i = 0; i < raw.length; i += 2) if (test(raw[i])) return raw[i].toLowerCase();
    return undefined;
  }
  for (const name of c.req.raw.headers.keys()) if (test(name)) return name;
  return undefined;
}
