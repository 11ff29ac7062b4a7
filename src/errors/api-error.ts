// The one error type handlers throw; `error-handler.ts` turns it into the reference's error body.

export type ErrorLocation = 'body' | 'query' | 'path' | 'header' | 'unknown';

export interface ErrorDetail {
  location: ErrorLocation;
  type: string;
  pointer: string;
  message: string;
}

/** One item of a 422 body (the reference's validation body). */
export interface ValidationItem {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

export const ERROR_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'duplicate_record',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  425: 'too_early',
  431: 'request_header_fields_too_large',
  429: 'too_many_requests',
  500: 'server_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly extra: {
    resource_id?: string;
    validation?: ValidationItem[];
    headers?: Record<string, string>;
    /**
     * An answer outside the operation's contract, which may come on any operation: the sandbox's
     * own (a namespace cap reached, storage unavailable, a test header that cannot apply) or an
     * infrastructure status a scenario injected (429 or a 5xx the operation does not declare). The
     * response self-check checks its body only, not its status.
     */
    outsideContract?: true;
  };

  constructor(status: number, code: string, message: string, details: ErrorDetail[] = [], extra: ApiError['extra'] = {}) {
    // An ApiError is an answer, not a fault: it carries no stack trace, whose capture would cost
    // more than the rest of an error answer (injected failures are answered thousands of times a second).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.status = status;
    this.code = code;
    this.details = details;
    this.extra = extra;
  }

  static badRequest(message: string, details: ErrorDetail[] = []) {
    return new ApiError(400, 'bad_request', message, details);
  }
  static unauthorized(message: string) {
    return new ApiError(401, 'unauthorized', message);
  }
  static forbidden(message: string) {
    return new ApiError(403, 'forbidden', message);
  }
  static notFound(message = 'The resource could not be found.') {
    return new ApiError(404, 'not_found', message);
  }
  /** `servedBy` serves `allowed` on the path `template` (as the document writes it), and not `method`. */
  static methodNotAllowed(method: string, template: string, allowed: string[], servedBy: string) {
    const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} and ${allowed.at(-1)}` : allowed[0];
    return new ApiError(405, 'method_not_allowed', `${servedBy} serves only ${list} on ${template}, not ${method}.`, [], {
      headers: { allow: allowed.join(', ') },
    });
  }
  static duplicate(message: string, resourceId: string) {
    return new ApiError(409, 'duplicate_record', message, [], { resource_id: resourceId });
  }
  /** 422: the request has the right shape but not the right meaning. */
  static unprocessable(items: ValidationItem[]) {
    return new ApiError(422, 'validation_error', items.map((i) => i.msg).join('; '), [], { validation: items });
  }
  /** 503: the sandbox cannot serve this now; `retryAfterSeconds` says when to try again. */
  static unavailable(message: string, retryAfterSeconds: number) {
    return new ApiError(503, 'service_unavailable', message, [], {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      outsideContract: true,
    });
  }
  /** Any documented status with its reference code (scenarios use this). */
  static ofStatus(status: number, message: string, details: ErrorDetail[] = [], extra: ApiError['extra'] = {}) {
    return new ApiError(status, ERROR_CODES[status] ?? 'server_error', message, details, extra);
  }
}

/** The body the reference prescribes for an error. */
export function errorBody(err: ApiError): unknown {
  if (err.status === 422) return { detail: err.extra.validation ?? [] };
  return {
    type: 'error',
    code: err.code,
    status: err.status,
    message: err.message,
    details: err.details,
    ...(err.extra.resource_id ? { resource_id: err.extra.resource_id } : {}),
  };
}
