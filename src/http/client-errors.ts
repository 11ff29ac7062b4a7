// Requests refused before the app sees them get the reference's JSON error body too, instead of a
// bare status line, and one info line in the log, like every 4xx of the app:
//  - what Node's parser or timer refuses (headers too large, a request that did not arrive within
//    the timeout, bytes that are not HTTP): answered on the socket, which is closed;
//  - an HTTP/1.1 request without a Host header (Node's own check is turned off for this), or one
//    @hono/node-server cannot make a URL of (a Host that is not host[:port], a backslash in the path).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Logger } from 'pino';
import { ApiError, errorBody } from '../errors/api-error.js';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The error Node's parser or timer raised, as the reference's error. */
export function clientErrorOf(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'request_header_fields_too_large', 'The request headers are larger than 16 KiB; send fewer or shorter headers.');
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'request_timeout', 'The request did not arrive in time: send the headers and body without pausing.');
  }
  return ApiError.badRequest(`The request is not valid HTTP/1.1 (${code ?? 'parse error'}).`);
}

/** `logger`: each answer is logged at info, like every 4xx of the app (there is no request id, method or path to give). */
export function answerClientErrors(server: Server, logger?: Logger): void {
  server.on('clientError', function answerClientError(err: NodeJS.ErrnoException, socket: Duplex) {
    // A response already under way, or a peer that is gone: nothing sensible can be written.
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const error = clientErrorOf(err.code);
    logger?.info({ status: error.status, code: error.code, message: error.message }, `${error.status} ${error.code}: ${error.message}`);
    const body = JSON.stringify(errorBody(error));
    socket.end(
      `HTTP/1.1 ${error.status} ${REASONS[error.status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

type FetchCallback = Parameters<typeof getRequestListener>[0];
type Listener = (incoming: IncomingMessage | Http2ServerRequest, outgoing: ServerResponse | Http2ServerResponse) => unknown;

const HOST_EXAMPLE = 'e.g. Host: 127.0.0.1:4010, the address the sandbox listens on';

const missingHost = () =>
  ApiError.badRequest(`An HTTP/1.1 request needs a Host header; send one (${HOST_EXAMPLE}).`, [
    { location: 'header', pointer: '/host', type: 'missing', message: "Header 'host' is required." },
  ]);

/**
 * What @hono/node-server could not make a URL of, as the reference's error. Its RequestError says
 * 'Invalid URL' both for a target that does not start with / and (with the URL parser's error as
 * the cause) for a Host the parser refused: a path starting with / always parses.
 */
export function unreadableRequestError(err: RequestError): ApiError {
  const reason = err.message;
  if (reason === 'Missing host header') return missingHost();
  if (reason === 'Invalid host header' || (reason === 'Invalid URL' && err.cause !== undefined)) {
    return ApiError.badRequest(`The Host header is not a host name or address with an optional port; send a valid one (${HOST_EXAMPLE}).`, [
      { location: 'header', pointer: '/host', type: 'string_pattern_mismatch', message: "Header 'host' must be host[:port]." },
    ]);
  }
  if (reason === 'Backslash in request path') return ApiError.badRequest('The request path holds a backslash; separate its segments with /.');
  return ApiError.badRequest(`The request target cannot be read as a URL (${reason}); send a path starting with /.`);
}

/**
 * The request listener of the sandbox's servers: @hono/node-server's, with its bare 400s (and Node's
 * missing-Host one) answered with the reference's error body and logged. On the request path it
 * costs one look at the Host header, which @hono/node-server reads next anyway.
 */
export function sandboxRequestListener(fetch: FetchCallback, hostname: string, logger?: Logger): Listener {
  const refused = (error: ApiError) => {
    logger?.info({ status: error.status, code: error.code, message: error.message }, `${error.status} ${error.code}: ${error.message}`);
    return error;
  };
  const listener = getRequestListener(fetch, {
    hostname, // for HTTP/1.0, which needs no Host
    errorHandler(err) {
      if (err instanceof RequestError) return Response.json(errorBody(refused(unreadableRequestError(err))), { status: 400 });
      // The app answers its own errors (onError): anything else here is a fault of the sandbox.
      logger?.error({ err }, `500 server_error: a request failed outside the app: ${(err as Error)?.message}`);
      return Response.json(errorBody(ApiError.ofStatus(500, 'The sandbox failed to answer this request.')), { status: 500 });
    },
  });
  return function answerRequest(incoming, outgoing) {
    if (incoming.headers.host === undefined && incoming.httpVersionMajor === 1 && incoming.httpVersionMinor === 1) {
      const body = JSON.stringify(errorBody(refused(missingHost())));
      (outgoing as ServerResponse).writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
      outgoing.end(body);
      return;
    }
    return listener(incoming, outgoing);
  };
}
