// The one place error bodies are written: every ApiError becomes the reference's body; anything
// else is a bug, logged with its stack and answered as a 500 server_error.
import type { ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { ApiError, errorBody } from './api-error.js';
import type { SandboxEnv } from './env.js';

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 413) return new ApiError(413, 'payload_too_large', err.message || 'The request body is too large.');
    return ApiError.ofStatus(err.status, err.message || 'The request failed.');
  }
  return new ApiError(500, 'server_error', 'The sandbox failed to handle this request; this is a sandbox bug (see its log).');
}

export function handleError(logger: Logger): ErrorHandler<SandboxEnv> {
  return function writeErrorBody(err, c) {
    const apiError = toApiError(err);
    if (!(err instanceof ApiError) && !(err instanceof HTTPException)) {
      logger.error({ err, requestId: c.get('requestId'), path: c.req.path }, 'unhandled error');
    }
    for (const [name, value] of Object.entries(apiError.extra.headers ?? {})) c.header(name, value);
    return c.json(errorBody(apiError) as object, apiError.status as 400);
  };
}
