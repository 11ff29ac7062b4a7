// Runs the operation's handler and writes its result: JSON with the document's success status, or
// an empty body with no content type for 204. With response checking on, a body that breaks the
// contract becomes a loud 500 instead of reaching a client.
import type { Operation } from '../spec/operations.js';
import type { Call } from './call.js';
import type { HandlerResult, HandlerTable } from './handler.js';
import { assemble, emptyResponse, jsonResponse, jsonTextResponse, type SentBody } from './json-response.js';
import type { Answer } from './pipeline.js';
import { problemWithAnswer, SelfCheckError } from './response-check.js';

export interface DispatchOptions<C> {
  handlers: HandlerTable<C>;
  /** The context a handler of this document receives. */
  contextOf: (call: Call) => C;
  validateResponses: boolean;
}

export function dispatch<C>(options: DispatchOptions<C>): Answer {
  const { handlers, contextOf, validateResponses } = options;
  return function dispatchToHandler(call) {
    const result = handlers[(call.operation as Operation).id](contextOf(call));
    // Most handlers answer at once; only a few wait (key generation, for one).
    if (result instanceof Promise) return result.then((r) => writeResult(call, r, validateResponses));
    return writeResult(call, result, validateResponses);
  };
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
