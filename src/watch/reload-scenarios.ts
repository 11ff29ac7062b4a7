// Reloads the scenario folder into the running sandbox. Every holder of the catalog (middleware,
// control API, namespace states) keeps the same ScenarioCatalog object, so its map is replaced in
// place. Step sequences restart (a sequence's position means nothing in an edited file); which
// scenarios are active stays as it was.

import type { SandboxDeps } from '../sandbox.js';
import { loadScenarios } from '../scenarios/load-scenarios.js';
import { SCENARIO_STATE, type ScenarioState } from '../scenarios/state.js';
import { scenarioNames } from '../scenarios/types.js';

export type ScenarioReloadDeps = Pick<SandboxDeps, 'config' | 'api' | 'scenarios' | 'namespaces'>;

/** Loads and swaps in the scenario files; throws (changing nothing) when one is broken. */
export function reloadScenarios(deps: ScenarioReloadDeps): string[] {
  const fresh = loadScenarios(deps.config.scenariosDir, deps.api.spec);
  const touched = [...new Set([...deps.scenarios.byName.keys(), ...fresh.byName.keys()])];
  deps.scenarios.byName.clear();
  for (const [name, scenario] of fresh.byName) deps.scenarios.byName.set(name, scenario);
  for (const ns of deps.namespaces.list()) restartSequences(ns.part(SCENARIO_STATE), touched);
  return scenarioNames(deps.scenarios);
}

/** Drops every step counter but keeps the active lists (activate() restarts the names it is given). */
function restartSequences(state: ScenarioState, names: string[]): void {
  const forEveryAccount = state.listActive().find((entry) => entry.merchant_account_id === null)?.scenarios ?? [];
  state.activate(names, null); // restarts every sequence, for every merchant account...
  state.activate(forEveryAccount, null); // ...and puts back what was active for every account
}
