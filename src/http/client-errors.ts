// Requests refused before the app sees them get the reference's JSON error body too, instead of a
// bare status line, and one info line in the log, like every 4xx of the app:
//  - what Node's parser or timer refuses (headers too large, a request that did not arrive within
//    the timeout, bytes that are not HTTP): answered on the socket, which is closed;
//  - an HTTP/1.1 request without a Host header (Node's own check is turned off for this), or one
//    @hono/node-server cannot make a URL of (a Host that is not host[:port], a backslash in the path);
//  - what Node would answer bare or not at all: CONNECT (405, closed), an Expect other than
//    100-continue (417), two Host headers (400, RFC 9112 3.2), an HTTP version other than 1.0/1.1
//    on the HTTP/1 listener (505), and a path with a dot segment (400, request-target.ts).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Logger } from 'pino';
import { ApiError, errorBody } from '../errors/api-error.js';
import { dotSegmentError, hasDotSegment } from './request-target.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
  505: 'HTTP Version Not Supported',
};

/** What to fix, for each error code of Node's HTTP parser (llhttp) a client's bytes can cause. */
const PARSER_ERRORS: Record<string, string> = {
  HPE_INVALID_URL:
    "the request target holds a character that must be percent-encoded (a space, a tab, a backslash, a control character or a non-ASCII character such as 'ü'), or does not start with /",
  HPE_INVALID_HEADER_TOKEN:
    'a header name or value holds a forbidden character (a control character such as NUL, a space or separator in a name, or a value continued on the next line: obs-fold)',
  HPE_INVALID_METHOD: 'the method is not one HTTP knows; send GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS',
  HPE_INVALID_VERSION: 'the request line does not end with HTTP/1.1 (or HTTP/1.0)',
  HPE_INVALID_CONSTANT: 'the request line is not METHOD /path HTTP/1.1',
  HPE_LF_EXPECTED: 'a line does not end with CRLF',
  HPE_CR_EXPECTED: 'a line does not end with CRLF',
  HPE_STRICT: 'a line does not end with CRLF, or the request holds a character HTTP forbids there',
  HPE_UNEXPECTED_SPACE: 'the request line holds a space too many, or a header line starts with whitespace',
  HPE_INVALID_CONTENT_LENGTH: 'the Content-Length header is not a single number, or is sent twice with different values',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'the request has both Content-Length and Transfer-Encoding: chunked; send one of them',
  HPE_INVALID_TRANSFER_ENCODING: 'the Transfer-Encoding header is not one the sandbox reads; send chunked as its last coding, or a Content-Length',
  HPE_INVALID_CHUNK_SIZE: 'a chunk of the chunked body does not start with its size in hexadecimal',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'the chunk extensions of the chunked body are too long',
  HPE_INVALID_EOF_STATE: 'the connection ended in the middle of the request',
};

/** The request line's length in the bytes Node's parser had when it refused them (a URL too long fills the header limit alone). */
function requestLineLength(rawPacket: Buffer | undefined): number {
  if (!rawPacket) return 0;
  const crlf = rawPacket.indexOf(13);
  return crlf < 0 ? rawPacket.length : crlf;
}

/** Node's limit on the request line and headers together (--max-http-header-size). */
const HEADER_LIMIT_KIB = 16;

/** The error Node's parser or timer raised, as the reference's error (`rawPacket`: the bytes it refused, if it gives them). */
export function clientErrorOf(code: string | undefined, rawPacket?: Buffer): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    const lineLength = requestLineLength(rawPacket);
    // Most of the limit taken by the request line: it is the URL that is too long, not the headers.
    if (lineLength > (HEADER_LIMIT_KIB * 1024) / 2) {
      return new ApiError(
        431,
        'request_header_fields_too_large',
        `The URL is too long: the request line alone is ${lineLength >= HEADER_LIMIT_KIB * 1024 ? 'at least ' : ''}${lineLength} bytes, and it and the headers together may be at most ${HEADER_LIMIT_KIB} KiB; send a shorter URL (a namespace name is at most 64 characters, and long filters belong in fewer query parameters).`,
        [{ location: 'path', pointer: '/', type: 'string_too_long', message: `The request line and headers together may be at most ${HEADER_LIMIT_KIB} KiB.` }],
      );
    }
    return new ApiError(431, 'request_header_fields_too_large', `The request headers are larger than ${HEADER_LIMIT_KIB} KiB; send fewer or shorter headers.`);
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'request_timeout', 'The request did not arrive in time: send the headers and body without pausing.');
  }
  const fix = code ? PARSER_ERRORS[code] : undefined;
  if (fix) return ApiError.badRequest(`The request is not valid HTTP/1.1: ${fix} (${code}).`);
  return ApiError.badRequest(
    `The request is not valid HTTP/1.1 (${code ?? 'parse error'}): send a request line METHOD /path HTTP/1.1, then headers, each line ending with CRLF.`,
  );
}

/** One info line per refused request, like every 4xx of the app (there is no request id, method or path to give). */
function logRefused(logger: Logger | undefined, error: ApiError): void {
  logger?.info({ status: error.status, code: error.code, message: error.message }, `${error.status} ${error.code}: ${error.message}`);
}

/** The answer of a request refused on its socket: the reference's error body and the error's headers, then the connection is closed. */
function answerOnSocket(socket: Duplex, error: ApiError, logger: Logger | undefined): void {
  logRefused(logger, error);
  const body = JSON.stringify(errorBody(error));
  let headers = '';
  for (const [name, value] of Object.entries(error.extra.headers ?? {})) headers += `${name}: ${value}\r\n`;
  socket.end(
    `HTTP/1.1 ${error.status} ${REASONS[error.status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`,
  );
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
    answerOnSocket(socket, clientErrorOf(err.code, (err as { rawPacket?: Buffer }).rawPacket), logger);
  });
  // Without a listener Node closes a CONNECT's socket without a word: the sandbox is no proxy.
  server.on('connect', function answerConnect(request: IncomingMessage | Http2ServerRequest, socket: Duplex | Http2ServerResponse) {
    const error = new ApiError(
      405,
      'method_not_allowed',
      `The sandbox is not a proxy and serves no CONNECT (to ${String(request.url).slice(0, 80)}); send the request itself, e.g. GET /buyers, to the sandbox's address.`,
      [],
      { headers: { allow: 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS' } },
    );
    if (request instanceof Http2ServerRequest) {
      answerResponse(socket as Http2ServerResponse, error, logger);
      return;
    }
    answerOnSocket(socket as Duplex, error, logger);
  });
  // Without a listener Node answers a bare 417 to an Expect other than 100-continue.
  server.on('checkExpectation', function answerExpectation(request: IncomingMessage, response: ServerResponse) {
    const expect = String(request.headers.expect).slice(0, 80);
    const error = new ApiError(417, 'expectation_failed', `The sandbox cannot meet Expect: ${expect}; send no Expect header, or Expect: 100-continue.`, [
      { location: 'header', pointer: '/expect', type: 'enum', message: "Header 'expect' may only be 100-continue." },
    ]);
    answerResponse(response, error, logger);
  });
}

/** Answers `error` through a response object, closing the connection (the body sent, if any, is not read). */
function answerResponse(response: ServerResponse | Http2ServerResponse, error: ApiError, logger: Logger | undefined): void {
  logRefused(logger, error);
  const body = JSON.stringify(errorBody(error));
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...error.extra.headers };
  if (!(response instanceof Http2ServerResponse)) headers.connection = 'close'; // HTTP/2 has no connection header
  (response as ServerResponse).writeHead(error.status, headers);
  response.end(body);
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
    logRefused(logger, error);
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
    const host = incoming.headers.host;
    if (host !== undefined && host.charCodeAt(0) === 91) incoming.headers.host = bracketedHost(host); // '[': an IPv6 literal
    const refusal = refusalOf(incoming);
    if (refusal) return answerResponse(outgoing, refusal, logger);
    return listener(incoming, outgoing);
  };
}

/**
 * An IPv6 literal Host as the URL parser writes it (`[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`):
 * @hono/node-server refuses a Host the parser rewrites, though it is a valid address. Unchanged when
 * it does not parse (the 400 then says so).
 */
function bracketedHost(host: string): string {
  return URL.canParse(`http://${host}`) ? new URL(`http://${host}`).host : host;
}

/** Why a request is refused before the app, or null (most requests: two comparisons, two scans of the target, one of the header names). */
function refusalOf(incoming: IncomingMessage | Http2ServerRequest): ApiError | null {
  const major = incoming.httpVersionMajor;
  const minor = incoming.httpVersionMinor;
  if (major !== 1 || minor > 1) {
    if (!(incoming instanceof Http2ServerRequest)) return versionNotSupported(incoming.httpVersion);
  } else {
    if (incoming.headers.host === undefined && minor === 1) return missingHost();
    if (twoHosts(incoming.rawHeaders)) return duplicateHost();
  }
  const target = incoming.url ?? '';
  if (hasDotSegment(target)) return dotSegmentError(target);
  return null;
}

/** Whether the header lines name Host more than once (Node keeps the first and drops the others). */
function twoHosts(rawHeaders: string[]): boolean {
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 4 && name.toLowerCase() === 'host' && ++hosts > 1) return true;
  }
  return false;
}

const duplicateHost = () =>
  ApiError.badRequest(`The request has more than one Host header; send exactly one (${HOST_EXAMPLE}).`, [
    { location: 'header', pointer: '/host', type: 'duplicate', message: "Header 'host' may be sent only once." },
  ]);

const versionNotSupported = (version: string) =>
  new ApiError(
    505,
    'http_version_not_supported',
    `HTTP/${version.slice(0, 10)} is not served on this connection; send HTTP/1.1 (or HTTP/2 over TLS, with --tls).`,
  );
