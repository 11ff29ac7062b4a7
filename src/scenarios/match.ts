// Which scenarios a request selected and which of them answers it. Pure functions over the catalog.
import { ApiError } from '../errors/api-error.js';
import type { LifecyclePlan } from '../resources/reports/lifecycle.js';
import { type Scenario, type ScenarioCatalog, scenarioNames } from './types.js';

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
export function checkScenarioNames(catalog: ScenarioCatalog, names: string[], where: { location: 'header' | 'body'; pointer: string }): void {
  const unknown = names.filter((n) => !catalog.byName.has(n));
  if (!unknown.length) return;
  const known = scenarioNames(catalog);
  const list = unknown.map((n) => `'${n.slice(0, 64)}'`).join(', ');
  throw ApiError.badRequest(`Unknown scenario ${list}; known scenarios: ${known.join(', ') || '(none)'}.`, [
    { location: where.location, pointer: where.pointer, type: 'unknown_scenario', message: `Use one of: ${known.join(', ') || '(none)'}.` },
  ]);
}

/** The first selected scenario with steps for this operation; null: the request runs normally. */
export function answeringScenario(catalog: ScenarioCatalog, names: readonly string[], operationId: string): Scenario | null {
  for (const name of names) {
    const scenario = catalog.byName.get(name);
    if (scenario?.steps.length && scenario.operations.has(operationId)) return scenario;
  }
  return null;
}

/** The report-execution lifecycle of the first selected scenario that sets one. */
export function selectedLifecycle(catalog: ScenarioCatalog, names: readonly string[]): LifecyclePlan | null {
  for (const name of names) {
    const plan = catalog.byName.get(name)?.reportExecution;
    if (plan) return plan;
  }
  return null;
}
