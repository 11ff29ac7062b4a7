// The one place error bodies are written: every ApiError becomes the reference's body; anything
// else is a bug, logged with its stack and answered as a 500 server_error.
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { ApiError, errorBody } from '../errors/api-error.js';
import type { Call } from './call.js';
import { jsonResponse } from './json-response.js';
import type { OnError } from './pipeline.js';
import { type ErrorContract, SelfCheckError } from './response-check.js';

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 413) return new ApiError(413, 'payload_too_large', err.message || 'The request body is too large.');
    return ApiError.ofStatus(err.status, err.message || 'The request failed.');
  }
  return new ApiError(500, 'server_error', 'The sandbox failed to handle this request; this is a sandbox bug (see its log).');
}

/** `contract`: check every error answer against openapi.json (response self-check mode); null: off. */
export function handleError(logger: Logger, contract: ErrorContract | null = null): OnError {
  return function writeErrorBody(err: unknown, call: Call) {
    let apiError = toApiError(err);
    if (!(err instanceof ApiError) && !(err instanceof HTTPException)) {
      // Reading a body the client stopped sending (it went away, or the request timeout cut it
      // off) fails: that is the client's doing, not a sandbox bug, and nobody reads this answer.
      if (call.requestCutOff()) apiError = ApiError.badRequest('The request body did not arrive: the client closed the request before sending it all.');
      else logger.error({ err, requestId: call.requestId, path: call.path }, 'unhandled error');
    }
    if (contract && !(apiError instanceof SelfCheckError)) {
      // Answers outside the operation's contract (the sandbox's own 503 at the namespace cap, a 429 or
      // 5xx a scenario injected where the operation declares none) belong to no operation: their body
      // is checked, not their status.
      const problem = contract.problemWithError(apiError.extra.outsideContract ? undefined : call.operation, apiError.status, errorBody(apiError));
      if (problem) apiError = new SelfCheckError(problem);
    }
    const headers: Record<string, string> = {};
    if (apiError instanceof SelfCheckError) {
      logger.error({ requestId: call.requestId, path: call.path, problem: apiError.message }, 'response breaks openapi.json');
    } else {
      Object.assign(headers, apiError.extra.headers);
    }
    // A refused body was never read: the connection cannot carry another request, and a client
    // that reused it would get a reset instead of its next answer.
    // (HTTP/1.1 only: HTTP/2 has no Connection header; the stream ends with the answer.)
    if (apiError.status === 413 && !call.http2) headers.connection = 'close';
    return jsonResponse(call, errorBody(apiError), apiError.status, headers);
  };
}
