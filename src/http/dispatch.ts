// Runs the operation's handler and writes its result: JSON with the spec's success status, or an
// empty body with no content type for 204. With response checking on, a body that breaks the
// contract becomes a loud 500 instead of reaching a client.
import type { Context } from 'hono';
import type { HandlerMap, HandlerResult, HandlerServices } from '../resources/types.js';
import type { SandboxEnv } from './env.js';
import { emptyResponse, jsonResponse } from './json-response.js';
import type { Answer } from './pipeline.js';
import { SelfCheckError, problemWithAnswer } from './response-check.js';

export interface DispatchOptions {
  handlers: HandlerMap;
  services: HandlerServices;
  validateResponses: boolean;
}

export function dispatch(options: DispatchOptions): Answer {
  return function dispatchToHandler(c) {
    const result = runHandler(c, options);
    // Most handlers answer at once; only a few wait (key generation, for one).
    if (result instanceof Promise) return result.then((r) => writeResult(c, r, options.validateResponses));
    return writeResult(c, result, options.validateResponses);
  };
}

export function runHandler(c: Context<SandboxEnv>, options: DispatchOptions): HandlerResult | Promise<HandlerResult> {
  const operation = c.get('operation');
  const handler = options.handlers[operation.id];
  const ns = c.get('ns');
  let now: string | undefined;
  return handler({
    ns,
    db: ns.store.collections,
    clock: ns.clock,
    // Read once, on first use: one instant for every timestamp a handler writes, and no clock read
    // (with its Date formatting) for the handlers that write none.
    get now() {
      return (now ??= ns.clock.nowIso());
    },
    merchantAccountId: c.get('merchantAccountId'),
    principal: c.get('principal'),
    operation,
    params: c.get('pathParams'),
    query: c.get('query'),
    headers: c.get('headers'),
    body: c.get('body'),
    services: options.services,
  });
}

export function writeResult(c: Context<SandboxEnv>, result: HandlerResult, validateResponses: boolean): Response {
  const operation = c.get('operation');
  const status = result.status ?? operation.successStatus;
  if (validateResponses) {
    const problem = problemWithAnswer(operation, status, result.body);
    if (problem) throw new SelfCheckError(problem);
  }
  if (status === 204 || result.body === undefined) return emptyResponse(c, status, result.headers);
  return jsonResponse(c, result.body, status, result.headers);
}
