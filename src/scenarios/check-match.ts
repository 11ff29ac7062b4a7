// The conditions of a scenario's `match` that the schema cannot check: HTTP methods, regular
// expressions that compile and cannot take exponential time, and JSON pointers whose escapes are
// RFC 6901's (~0, ~1): a condition that can never hold is refused, not left silently idle.
import { regExpProblem } from './request-match.js';
import type { MatchSpec } from './types.js';

const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

/** Each problem with its pointer into the scenario as written. */
export function checkMatch(match: MatchSpec, at: (p: string, m: string) => void): void {
  const methods = typeof match.method === 'string' ? [match.method] : (match.method ?? []);
  methods.forEach((method, i) => {
    if (!METHODS.has(method.toUpperCase()))
      at(typeof match.method === 'string' ? '/match/method' : `/match/method/${i}`, `'${method}' is not an HTTP method (${[...METHODS].join(', ')})`);
  });
  for (const part of ['query', 'headers', 'body'] as const) {
    for (const [key, condition] of Object.entries(match[part] ?? {})) {
      const pointer = `/match/${part}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (part === 'body' && /~(?![01])/.test(key))
        at(pointer, `'${key}' is not a JSON pointer: ~ is an escape, ~0 for ~ and ~1 for /, so it would never find a value`);
      if (condition !== null && typeof condition === 'object' && 'matches' in condition) {
        const problem = regExpProblem(condition.matches);
        if (problem) at(`${pointer}/matches`, problem);
      }
    }
  }
}

/** The scenario tests values of the request body: it can apply only to operations that take one. */
export const testsBody = (match: MatchSpec | null) => Object.keys(match?.body ?? {}).length > 0;
