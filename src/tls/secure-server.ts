// The HTTPS server: Node's HTTP/2 server with allowHTTP1, so a client's ALPN picks HTTP/2 or
// HTTP/1.1 on one port. HTTP/1.1 connections there get the plain server's timeouts (Node gives an
// allowHTTP1 server its own defaults: 5 minutes for a request). HTTP/2 has none of those, so each
// HTTP/2 stream gets the same request deadline (a client that has not sent its whole request in
// time gets a 408 and its stream is closed), and a session idle with no open stream is closed like
// an idle keep-alive connection. Only this server pays for that: the plain HTTP server is untouched.
import { constants, createSecureServer, type Http2ServerRequest, type Http2ServerResponse, type Http2Session, type SecureServerOptions } from 'node:http2';
import { ApiError, errorBody } from '../errors/api-error.js';

export interface ServerTimeouts {
  requestTimeout: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
}

type Listener = (req: Http2ServerRequest, res: Http2ServerResponse) => void;

const sessionsOf = new WeakMap<object, Set<Http2Session>>();

/** A createServer for the sandbox's listener (start.ts): HTTPS, HTTP/2 and HTTP/1.1, with these timeouts. */
export function secureServerFactory(timeouts: ServerTimeouts): typeof createSecureServer {
  return ((options: SecureServerOptions, listener: Listener) => {
    const server = createSecureServer(options, function answerStream(req, res) {
      if (req.httpVersionMajor === 2) limitRequestTime(req, res, timeouts.requestTimeout);
      listener(req, res);
    });
    Object.assign(server, timeouts); // for its HTTP/1.1 connections, read by Node at 'listening'
    const sessions = new Set<Http2Session>();
    sessionsOf.set(server, sessions);
    server.on('session', (session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
      // Idle this long with no open stream: closed (GOAWAY), as an idle keep-alive connection is. A
      // stream still being answered (a scenario's long delay) keeps its session.
      let openStreams = 0;
      session.on('stream', (stream) => {
        openStreams++;
        stream.once('close', () => openStreams--);
      });
      session.setTimeout(timeouts.keepAliveTimeout, () => {
        if (openStreams === 0) session.close();
      });
    });
    return server;
  }) as unknown as typeof createSecureServer;
}

/** Asks every HTTP/2 session of the server to end once its streams are answered (for close()). */
export function closeIdleSessions(server: object): void {
  for (const session of sessionsOf.get(server) ?? []) session.close();
}

/**
 * The HTTP/1.1 request timeout, for one HTTP/2 stream: a request body must have arrived within
 * `ms`. Only the request: once the answer has started, the stream is the response's to finish.
 */
function limitRequestTime(req: Http2ServerRequest, res: Http2ServerResponse, ms: number): void {
  if (req.stream.endAfterHeaders) return; // no body: the request is whole already
  const timer = setTimeout(() => {
    if (req.complete || res.headersSent || req.stream.destroyed) return;
    if (!res.headersSent) {
      const error = new ApiError(408, 'request_timeout', 'The request did not arrive in time: send the headers and body without pausing.');
      const body = JSON.stringify(errorBody(error));
      res.writeHead(408, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }
    req.stream.close(constants.NGHTTP2_CANCEL);
  }, ms);
  timer.unref();
  req.stream.once('close', () => clearTimeout(timer));
  req.once('end', () => clearTimeout(timer));
}
