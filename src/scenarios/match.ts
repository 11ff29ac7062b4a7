// Which scenarios a request selected, by name. Pure functions over a lookup (a namespace's own
// scenarios, then the files).
import { ApiError } from '../errors/api-error.js';
import type { LifecyclePlan } from '../resources/reports/lifecycle.js';
import type { ScenarioLookup } from './types.js';

export const SCENARIO_HEADER = 'x-sandbox-scenario';

/** `a, b` -> ['a', 'b'] (order kept, repeats dropped, blanks ignored). */
export function parseScenarioList(value: string): string[] {
  return [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** 400 naming the unknown scenarios and listing the known ones. */
export function checkScenarioNames(lookup: ScenarioLookup, names: string[], where: { location: 'header' | 'body'; pointer: string }): void {
  const unknown = names.filter((n) => !lookup.get(n));
  if (!unknown.length) return;
  const known = lookup.names();
  const list = unknown.map((n) => `'${n.slice(0, 64)}'`).join(', ');
  throw ApiError.badRequest(`Unknown scenario ${list}; known scenarios: ${known.join(', ') || '(none)'}.`, [
    { location: where.location, pointer: where.pointer, type: 'unknown_scenario', message: `Use one of: ${known.join(', ') || '(none)'}.` },
  ]);
}

/** The report-execution lifecycle of the first selected scenario that sets one. */
export function selectedLifecycle(lookup: ScenarioLookup, names: readonly string[]): LifecyclePlan | null {
  for (const name of names) {
    const plan = lookup.get(name)?.reportExecution;
    if (plan) return plan;
  }
  return null;
}
