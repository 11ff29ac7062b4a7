// Runs the operation's handler and writes its result: JSON with the spec's success status, or an
// empty body with no content type for 204. With response checking on, a body that breaks the
// contract becomes a loud 500 instead of reaching a client.
import type { Context } from 'hono';
import type { Clock } from '../clock.js';
import type { RequestLifecycle } from '../resources/reports/scheduler.js';
import type { HandlerContext, HandlerMap, HandlerResult, HandlerServices } from '../resources/types.js';
import type { Operation } from '../spec/operations.js';
import type { Namespace } from '../store/namespaces.js';
import type { CollectionMap, Store } from '../store/store.js';
import { ApiError } from './api-error.js';
import type { Principal, SandboxEnv } from './env.js';
import { emptyResponse, jsonResponse, jsonTextResponse } from './json-response.js';
import type { Answer } from './pipeline.js';
import { problemWithAnswer, SelfCheckError } from './response-check.js';

export interface DispatchOptions {
  handlers: HandlerMap;
  services: HandlerServices;
  validateResponses: boolean;
}

export function dispatch(options: DispatchOptions): Answer {
  return function dispatchToHandler(c) {
    const result = runHandler(c, options);
    // Most handlers answer at once; only a few wait (key generation, for one).
    if (result instanceof Promise) return result.then((r) => whenRecorded(c.get('ns').store, writeResult(c, r, options.validateResponses)));
    return whenRecorded(c.get('ns').store, writeResult(c, result, options.validateResponses));
  };
}

/**
 * The answer, once `store` has made durable every change it may show (a data file's change log
 * holds them: see Store.whenDurable), so a 2xx means the change is recorded; a 503 instead when
 * that write failed. At once, with no promise, when nothing is pending (every memory store).
 */
export function whenRecorded(store: Store, response: Response): Response | Promise<Response> {
  const durable = store.whenDurable();
  return durable === undefined ? response : durable.then(() => response, notRecorded);
}

function notRecorded(err: Error): never {
  throw new ApiError(
    503,
    'service_unavailable',
    `The change could not be recorded in the data file (${err.message}), so it is not acknowledged: it is in memory, and kept only if the sandbox writes a snapshot before it stops. Free the disk or fix the file, then retry.`,
    [],
    { headers: { 'retry-after': '1' } },
  );
}

export function runHandler(c: Context<SandboxEnv>, options: DispatchOptions): HandlerResult | Promise<HandlerResult> {
  const operation = c.get('operation');
  return options.handlers[operation.id](new RequestContext(c, operation, options.services));
}

/** What a handler sees of its request. A class, not an object literal: one shape, and `now` on the prototype. */
class RequestContext implements HandlerContext {
  readonly ns: Namespace;
  readonly db: CollectionMap;
  readonly clock: Clock;
  readonly merchantAccountId: string;
  readonly principal: Principal;
  readonly params: Record<string, string>;
  readonly query: Record<string, any>;
  readonly headers: Record<string, any>;
  readonly body: any;
  readonly requestLifecycle: RequestLifecycle | null;
  private instant: string | undefined;

  constructor(
    c: Context<SandboxEnv>,
    readonly operation: Operation,
    readonly services: HandlerServices,
  ) {
    this.ns = c.get('ns');
    this.db = this.ns.store.collections;
    this.clock = this.ns.clock;
    this.merchantAccountId = c.get('merchantAccountId');
    this.principal = c.get('principal');
    this.params = c.get('pathParams');
    this.query = c.get('query');
    this.headers = c.get('headers');
    this.body = c.get('body');
    this.requestLifecycle = c.get('requestLifecycle') ?? null;
  }

  /**
   * Read once, on first use: one instant for every timestamp a handler writes, and no clock read
   * (with its Date formatting) for the handlers that write none.
   */
  get now(): string {
    return (this.instant ??= this.ns.clock.nowIso());
  }
}

export function writeResult(c: Context<SandboxEnv>, result: HandlerResult, validateResponses: boolean): Response {
  const operation = c.get('operation');
  const status = result.status ?? operation.successStatus;
  if (validateResponses) {
    const json = result.json === undefined ? undefined : typeof result.json === 'string' ? result.json : result.json.bytes.toString('utf8');
    const problem = problemWithAnswer(operation, status, json !== undefined ? JSON.parse(json) : result.body);
    if (problem) throw new SelfCheckError(problem);
  }
  if (result.json !== undefined) return jsonTextResponse(c, result.json, status, result.headers);
  if (status === 204 || result.body === undefined) return emptyResponse(c, status, result.headers);
  return jsonResponse(c, result.body, status, result.headers);
}
