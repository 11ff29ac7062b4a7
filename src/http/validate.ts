// Parses the JSON body and validates path, query, header and body against the operation's
// compiled schemas; every problem becomes one `details` item of a single 400.

import { ApiError } from '../errors/api-error.js';
import { readYamlText, yamlProblemText } from '../errors/yaml-text.js';
import { type Operation, summarize, validateRequest } from '../spec/operations.js';
import type { Call } from './call.js';
import type { Step } from './pipeline.js';

export function validate(): Step {
  return {
    name: 'validate',
    requires: ['operation'],
    provides: ['input'],
    before(call) {
      const operation = call.operation as Operation;
      // A GET has no body to wait for: validated without a promise.
      if (!operation.hasBody) return check(call, operation, undefined, null);
      return call.readBody().then((text) => {
        call.bodyText = text;
        let body: unknown;
        try {
          if (call.bodyNotUtf8) throw notUtf8(call.bodyNotUtf8);
          body = readJsonBody(call.header('content-type') ?? null, text, operation.bodyRequired, operation.acceptsYaml);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 400) throw err;
          return check(call, operation, undefined, err);
        }
        return check(call, operation, body, null);
      });
    },
  };
}

/**
 * A body that cannot be read as JSON (`bodyProblem`) is one more problem: path, query and header
 * problems are still reported with it, so the caller fixes everything in one round trip.
 */
function check(call: Call, operation: Operation, body: unknown, bodyProblem: ApiError | null): void {
  const query = queryOf(call.url);
  const header = declaredHeaders(call, operation);
  const path = { ...call.pathParams };
  try {
    validateRequest(operation, { path, query, header, body });
  } catch (err) {
    if (!bodyProblem || !(err instanceof ApiError)) throw err;
    const details = [...err.details, ...bodyProblem.details];
    throw ApiError.badRequest(summarize(details), details);
  }
  if (bodyProblem) throw bodyProblem;
  call.pathParams = path;
  call.query = query;
  call.headers = header;
  call.body = body;
}

/**
 * The operation's declared header parameters that the request carries: what the header schema
 * checks and coerces, and what a handler may read. Not a copy of every header (a request carries a
 * dozen; every operation declares one).
 */
function declaredHeaders(call: Call, operation: Operation): Record<string, unknown> {
  const header: Record<string, unknown> = {};
  for (const name of operation.headerParams) {
    const value = call.header(name);
    if (value !== undefined) header[name] = value;
  }
  return header;
}

/** The first value of each query parameter (repeats of a scalar parameter are ignored). */
function queryOf(url: string): Record<string, unknown> {
  const query: Record<string, unknown> = Object.create(null);
  const start = url.indexOf('?');
  if (start < 0) return query;
  for (const [key, value] of new URLSearchParams(url.slice(start + 1))) {
    if (!(key in query)) query[key] = value;
  }
  return query;
}

/** 400 for a body that is not UTF-8: JSON text is UTF-8 (RFC 8259), and a lenient read would store U+FFFD as if the client had sent it. */
function notUtf8(problem: string): ApiError {
  return ApiError.badRequest(`The request body is not valid UTF-8: ${problem}. Send JSON text encoded as UTF-8.`, [
    { location: 'body', pointer: '', type: 'json_invalid', message: `Invalid UTF-8: ${problem}.` },
  ]);
}

/** `acceptsYaml`: a body sent as application/yaml is read as YAML (the control API's scenario definitions). */
export function readJsonBody(contentType: string | null, text: string, required: boolean, acceptsYaml = false): unknown {
  if (text.trim() === '') {
    if (required)
      throw ApiError.badRequest('A JSON request body is required.', [
        { location: 'body', pointer: '', type: 'missing', message: 'Send a JSON object as the request body.' },
      ]);
    return undefined;
  }
  if (acceptsYaml && contentType && YAML_TYPE.test(contentType.trim())) return readYamlBody(text);
  if (contentType && !/^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType.trim())) {
    if (acceptsYaml) {
      throw ApiError.badRequest(
        `The request body must be JSON or YAML, sent with Content-Type: application/json or application/yaml (got ${contentType.slice(0, 100)}).`,
        [{ location: 'header', pointer: '/content-type', type: 'content_type', message: 'Use Content-Type: application/json or application/yaml.' }],
      );
    }
    throw ApiError.badRequest(`The request body must be JSON, sent with Content-Type: application/json (got ${contentType.slice(0, 100)}).`, [
      { location: 'header', pointer: '/content-type', type: 'content_type', message: 'Use Content-Type: application/json.' },
    ]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw ApiError.badRequest(`The request body is not valid JSON: ${(err as Error).message}.`, [
      { location: 'body', pointer: '', type: 'json_invalid', message: `Invalid JSON: ${(err as Error).message}.` },
    ]);
  }
  // Each level of nesting takes two characters: a shorter text cannot nest too deep.
  if (text.length > 2 * MAX_JSON_DEPTH && nestedDeeperThan(parsed, MAX_JSON_DEPTH)) {
    throw ApiError.badRequest(`The request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep; no operation needs that.`, [
      { location: 'body', pointer: '', type: 'json_too_deep', message: `Nest JSON at most ${MAX_JSON_DEPTH} levels deep.` },
    ]);
  }
  return parsed;
}

const YAML_TYPE = /^(application|text)\/(x-)?yaml\b/i;

/** A YAML body as the JSON it stands for (aliases bounded by the yaml library, so a small text cannot expand without end). */
function readYamlBody(text: string): unknown {
  const read = readYamlText(text);
  if ('problem' in read) {
    const message = yamlProblemText(read.problem);
    throw ApiError.badRequest(`The request body is not valid YAML: ${message}.`, [
      { location: 'body', pointer: '', type: 'yaml_invalid', message: `Invalid YAML: ${message}.` },
    ]);
  }
  const parsed = read.value;
  // Checked before anything recursive sees it: YAML aliases can even make a structure contain itself.
  if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) {
    throw ApiError.badRequest(`The request body nests mappings or sequences more than ${MAX_JSON_DEPTH} levels deep; no operation needs that.`, [
      { location: 'body', pointer: '', type: 'json_too_deep', message: `Nest at most ${MAX_JSON_DEPTH} levels deep.` },
    ]);
  }
  // As JSON: plain objects, arrays and scalars only, whatever YAML types the text used.
  return JSON.parse(JSON.stringify(parsed) ?? 'null');
}

/** No operation's body nests this deep; deeper bodies are refused before any recursive code sees them. */
export const MAX_JSON_DEPTH = 64;

/** Iterative (no recursion, so a hostile body cannot exhaust the stack here). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
