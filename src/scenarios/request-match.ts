// A scenario's conditions on the request (`match`), compiled once per scenario and tested when a
// request of one of its operations selected it. Method and path templates narrow the scenario's
// operations when it is compiled (compile-scenario.ts); what is left is tested here: the request
// path against a pattern, the merchant account, query parameters, headers and values of the JSON
// body. Only a scenario with body conditions makes a request's body be read before validation.
import safeRegex from 'safe-regex2';
import type { Call } from '../http/call.js';
import { pathPatternRegExp } from './path-pattern.js';
import type { MatchSpec, Scenario, ValueCondition } from './types.js';

type Test = (actual: unknown) => boolean;

export interface RequestMatcher {
  /** Whether the body must be read to test the request. */
  needsBody: boolean;
  /** `body`: the parsed JSON body (undefined when none or not JSON); only looked at when needsBody. */
  matches(call: Call, body: unknown): boolean;
}

const compiled = new WeakMap<Scenario, RequestMatcher>();

/** The scenario's matcher, compiled on first use; null when it has no conditions. */
export function matcherOf(scenario: Scenario): RequestMatcher | null {
  if (scenario.match === null) return null;
  let matcher = compiled.get(scenario);
  if (!matcher) {
    matcher = compileMatch(scenario.match);
    compiled.set(scenario, matcher);
  }
  return matcher;
}

/**
 * How much of a value a regular expression is tested on. JavaScript's engine backtracks, and the
 * sandbox serves every namespace on one thread: a short prefix keeps even a slow expression quick.
 */
export const MATCHED_PREFIX_CHARS = 1024;

/** The problem with a `matches` expression, or null when it compiles and cannot take exponential time. */
export function regExpProblem(source: string): string | null {
  try {
    new RegExp(source);
  } catch (err) {
    return `not a regular expression: ${(err as Error).message}`;
  }
  // Nested repetition such as (a+)+ can take exponential time on a value that almost matches.
  if (!safeRegex(source)) return 'a repetition inside a repetition (such as (a+)+) can take exponential time; write it without nesting';
  return null;
}

function compileMatch(spec: MatchSpec): RequestMatcher {
  const tests: Array<(call: Call, body: unknown) => boolean> = [];
  if (spec.path !== undefined) {
    const path = pathPatternRegExp(spec.path);
    tests.push((call) => path.test(call.path));
  }
  if (spec.merchant_account_id !== undefined) {
    const accounts = new Set(typeof spec.merchant_account_id === 'string' ? [spec.merchant_account_id] : spec.merchant_account_id);
    tests.push((call) => accounts.has(call.merchantAccountId as string));
  }
  const query = conditions(spec.query, false);
  if (query.length) {
    tests.push((call) => {
      const params = new URLSearchParams(call.url.includes('?') ? call.url.slice(call.url.indexOf('?') + 1) : '');
      return query.every(([name, test]) => test(params.get(name) ?? undefined));
    });
  }
  // Header names are case-insensitive: call.header() looks them up in lower case.
  const headers = conditions(spec.headers, false).map(([name, test]): [string, Test] => [name.toLowerCase(), test]);
  if (headers.length) tests.push((call) => headers.every(([name, test]) => test(call.header(name))));
  const body = conditions(spec.body, true);
  if (body.length) tests.push((_call, value) => body.every(([pointer, test]) => test(valueAt(value, pointer))));
  return {
    needsBody: body.length > 0,
    matches: (call, value) => tests.every((test) => test(call, value)),
  };
}

/** `json`: values are JSON (the body), compared as they are; else strings (query, headers), compared as text. */
function conditions(given: Record<string, ValueCondition> | undefined, json: boolean): Array<[string, Test]> {
  return Object.entries(given ?? {}).map(([key, condition]) => [key, testOf(condition, json)]);
}

function testOf(condition: ValueCondition, json: boolean): Test {
  if (condition !== null && typeof condition === 'object') {
    if ('present' in condition) return (actual) => (actual !== undefined) === condition.present;
    if ('matches' in condition) {
      const pattern = new RegExp(condition.matches);
      return (actual) =>
        (typeof actual === 'string' || typeof actual === 'number' || typeof actual === 'boolean') &&
        pattern.test(String(actual).slice(0, MATCHED_PREFIX_CHARS));
    }
    return equalTo(condition.equals, json);
  }
  return equalTo(condition, json);
}

function equalTo(expected: unknown, json: boolean): Test {
  if (json) {
    const text = canonical(expected);
    return (actual) => actual !== undefined && canonical(actual) === text;
  }
  // Query and header values are text: 5 and "5" are the same; null and objects equal nothing.
  if (expected === null || typeof expected === 'object') return () => false;
  const text = String(expected);
  return (actual) => actual === text;
}

/** JSON text with object keys sorted: equal values, equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** The value at a JSON pointer (RFC 6901); undefined when there is none. */
export function valueAt(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  let at: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
      at = at[Number(key)];
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, key)) {
      at = (at as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return at;
}

/** The JSON body for body conditions: undefined when there is none or it is not JSON (validation reports that). */
export function parseBodyForMatching(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
