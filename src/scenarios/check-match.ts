// The conditions of a scenario's `match` that the schema cannot check: HTTP methods, regular
// expressions that compile and cannot take exponential time, JSON pointers whose escapes are
// RFC 6901's (~0, ~1), path patterns without a query or percent-escapes, one condition per header
// name, text conditions that some text can equal: a condition that can never hold is refused, not
// left silently idle.
import { escapePointer } from '../spec/schema-compiler.js';
import { regExpProblem } from './request-match.js';
import type { MatchSpec, ValueCondition } from './types.js';

const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

/** Each problem with its pointer into the scenario as written. */
export function checkMatch(match: MatchSpec, at: (p: string, m: string) => void): void {
  const methods = typeof match.method === 'string' ? [match.method] : (match.method ?? []);
  methods.forEach((method, i) => {
    if (!METHODS.has(method.toUpperCase()))
      at(typeof match.method === 'string' ? '/match/method' : `/match/method/${i}`, `'${method}' is not an HTTP method (${[...METHODS].join(', ')})`);
  });
  if (match.path !== undefined) checkPath(match.path, at);
  const headerNames = new Map<string, string>();
  for (const part of ['query', 'headers', 'body'] as const) {
    for (const [key, condition] of Object.entries(match[part] ?? {})) {
      const pointer = `/match/${part}/${escapePointer(key)}`;
      if (part === 'headers') {
        const first = headerNames.get(key.toLowerCase());
        if (first !== undefined) at(pointer, `'${key}' names the same header as '${first}' (header names are case-insensitive): give one condition for it`);
        else headerNames.set(key.toLowerCase(), key);
      }
      if (part !== 'body') {
        const text = textProblem(condition);
        if (text) at(pointer, `a ${part === 'query' ? 'query parameter' : 'header'} value is text, so ${text}`);
      }
      if (part === 'body' && /~(?![01])/.test(key))
        at(pointer, `'${key}' is not a JSON pointer: ~ is an escape, ~0 for ~ and ~1 for /, so it would never find a value`);
      if (condition !== null && typeof condition === 'object' && 'matches' in condition) {
        const problem = regExpProblem(condition.matches);
        if (problem) at(`${pointer}/matches`, problem);
      }
    }
  }
}

/**
 * The request path is tested without its query string and percent-decoded (as routing sees it):
 * a pattern holding '?' or a percent-escape could never match.
 */
function checkPath(path: string, at: (p: string, m: string) => void): void {
  if (path.includes('?')) {
    at('/match/path', `'${path}' holds a '?': the path is tested without its query string, so it would never match; put query conditions in match.query`);
  }
  const percentEscape = /%[0-9A-Fa-f]{2}/.exec(path);
  if (percentEscape) {
    let decoded: string | null = null;
    try {
      decoded = decodeURIComponent(path.split('?')[0]);
    } catch {}
    at(
      '/match/path',
      `'${path}' holds the percent-escape ${percentEscape[0]}: request paths are tested decoded, so it would never match; write the character itself${decoded ? ` ('${decoded}')` : ''}`,
    );
  }
}

/** Why a query or header condition equals no text value (request-match.ts compares them as text), or null. */
function textProblem(condition: ValueCondition): string | null {
  const equals = condition !== null && typeof condition === 'object' ? ('equals' in condition ? condition.equals : undefined) : condition;
  if (condition !== null && typeof condition === 'object' && !('equals' in condition)) return null;
  if (equals === null) return 'null equals no value: give a string or number, or {present: false} for one that is absent';
  if (typeof equals === 'object') {
    return `${Array.isArray(equals) ? 'an array' : 'an object'} equals no value: give a string, number or boolean (or {matches: ...})`;
  }
  return null;
}

/** The scenario tests values of the request body: it can apply only to operations that take one. */
export const testsBody = (match: MatchSpec | null) => Object.keys(match?.body ?? {}).length > 0;
