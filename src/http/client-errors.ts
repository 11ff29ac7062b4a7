// Requests Node refuses before the app sees them (headers too large, a request that did not arrive
// within the timeout, bytes that are not HTTP) get the reference's JSON error body too, instead of
// Node's bare status line, and the connection is closed.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
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
