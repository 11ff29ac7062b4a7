// Runs the operation's handler and writes its result: JSON with the document's success status, or
// an empty body with no content type for 204. With response checking on, a body that breaks the
// contract becomes a loud 500 instead of reaching a client. An answer leaves only once the store
// has recorded every change it may show (with a data file: in its change log), so a 2xx means the
// change is recorded.
import { ApiError } from '../errors/api-error.js';
import type { Operation } from '../spec/operations.js';
import type { Store } from '../store/store.js';
import type { Call } from './call.js';
import type { HandlerResult, HandlerTable } from './handler.js';
import { assemble, emptyResponse, jsonResponse, jsonTextResponse, type SentBody } from './json-response.js';
import type { Answer } from './pipeline.js';
import { problemWithAnswer, SelfCheckError } from './response-check.js';

export interface DispatchOptions<C> {
  handlers: HandlerTable<C>;
  /** The context a handler of this document receives. */
  contextOf: (call: Call) => C;
  /** The store whose changes an answer waits for (the request's namespace's; the control API: the file-backed one). */
  recordedIn: (call: Call) => Store;
  validateResponses: boolean;
}

export function dispatch<C>(options: DispatchOptions<C>): Answer {
  const { handlers, contextOf, recordedIn, validateResponses } = options;
  return function dispatchToHandler(call) {
    const result = handlers[(call.operation as Operation).id](contextOf(call));
    // Most handlers answer at once; only a few wait (key generation, for one).
    if (result instanceof Promise) return result.then((r) => whenRecorded(recordedIn(call), writeResult(call, r, validateResponses)));
    return whenRecorded(recordedIn(call), writeResult(call, result, validateResponses));
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
  if (err instanceof ApiError) throw err; // the store said why (a shared sandbox's Redis)
  throw ApiError.unavailable(
    `The change could not be recorded in the data file (${err.message}), so it is not acknowledged: it is in memory, and kept only if the sandbox writes a snapshot before it stops. Free the disk or fix the file, then retry.`,
    1,
  );
}

function writeResult(call: Call, result: HandlerResult, validateResponses: boolean): Response {
  const operation = call.operation as Operation;
  if (result.response) {
    const problem = validateResponses ? problemWithAnswer(operation, result.response.status, undefined) : null;
    if (problem) throw new SelfCheckError(problem);
    return result.response;
  }
  const status = result.status ?? operation.successStatus;
  const json: SentBody | undefined = result.json === undefined || typeof result.json === 'string' ? result.json : assemble(call, result.json);
  if (validateResponses) {
    const text = json === undefined ? undefined : typeof json === 'string' ? json : json.bytes.toString('utf8');
    const problem = problemWithAnswer(operation, status, text !== undefined ? JSON.parse(text) : result.body);
    if (problem) throw new SelfCheckError(problem);
  }
  if (json !== undefined) return jsonTextResponse(call, json, status, result.headers);
  if (status === 204 || result.body === undefined) return emptyResponse(call, status, result.headers);
  return jsonResponse(call, result.body, status, result.headers);
}
