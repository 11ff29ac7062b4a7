// Runs the operation's handler and writes its result: JSON with the spec's success status, or an
// empty body with no content type for 204. With response checking on, a body that breaks the
// contract becomes a loud 500 instead of reaching a client.
import type { Context, Handler } from 'hono';
import type { HandlerMap, HandlerResult, HandlerServices } from '../resources/types.js';
import { ApiError } from './api-error.js';
import type { SandboxEnv } from './env.js';

export interface DispatchOptions {
  handlers: HandlerMap;
  services: HandlerServices;
  validateResponses: boolean;
}

export function dispatch(options: DispatchOptions): Handler<SandboxEnv> {
  return async function dispatchToHandler(c) {
    const result = await runHandler(c, options);
    return writeResult(c, result, options.validateResponses);
  };
}

export async function runHandler(c: Context<SandboxEnv>, options: DispatchOptions): Promise<HandlerResult> {
  const operation = c.var.operation;
  const handler = options.handlers[operation.id];
  const ns = c.var.ns;
  return handler({
    ns,
    db: ns.store.collections,
    clock: ns.clock,
    now: ns.clock.nowIso(),
    merchantAccountId: c.var.merchantAccountId,
    principal: c.var.principal,
    operation,
    params: c.var.pathParams,
    query: c.var.query,
    headers: c.var.headers,
    body: c.var.body,
    services: options.services,
  });
}

export function writeResult(c: Context<SandboxEnv>, result: HandlerResult, validateResponses: boolean): Response {
  const operation = c.var.operation;
  const status = result.status ?? operation.successStatus;
  for (const [name, value] of Object.entries(result.headers ?? {})) c.header(name, value);
  if (validateResponses) checkResponse(operation.id, status, result.body, operation.responseValidators.get(status), operation.declaredStatuses);
  if (status === 204 || result.body === undefined) return c.body(null, status as 204);
  return c.json(result.body as object, status as 200);
}

function checkResponse(opId: string, status: number, body: unknown, validator: ((b: unknown) => boolean) & { errors?: unknown } | undefined, declared: number[]): void {
  if (!declared.includes(status)) throw new ApiError(500, 'server_error', `Response self-check: ${opId} answered ${status}, which openapi.json does not declare.`);
  if (validator && !validator(body)) {
    throw new ApiError(500, 'server_error', `Response self-check: the ${status} body of ${opId} does not match openapi.json: ${JSON.stringify(validator.errors).slice(0, 500)}`);
  }
}
