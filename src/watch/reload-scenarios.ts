// Reloads the scenario folder (--scenarios-dir, added to the built-in scenarios) into the running
// sandbox. Every holder of the catalog (pipeline steps, control API, namespace states) keeps the
// same ScenarioCatalog object, so its map is replaced in place. Step sequences restart (a
// sequence's position means nothing in an edited file); which scenarios are active stays as it was.
import type { SandboxDeps } from '../sandbox.js';
import { builtInScenarios } from '../scenarios/catalog-cache.js';
import { fileCatalog } from '../scenarios/load-scenarios.js';
import { SCENARIO_STATE } from '../scenarios/state.js';

export type ScenarioReloadDeps = Pick<SandboxDeps, 'config' | 'api' | 'scenarios' | 'namespaces'>;

/** Loads and swaps in the scenario files; throws (changing nothing) when one is broken. Returns the folder's scenario names. */
export function reloadScenarios(deps: ScenarioReloadDeps): string[] {
  const fresh = fileCatalog(builtInScenarios(deps.api.spec), deps.config.scenariosDir, deps.api.spec);
  const touched = [...new Set([...deps.scenarios.byName.keys(), ...fresh.byName.keys()])];
  deps.scenarios.byName.clear();
  for (const [name, scenario] of fresh.byName) deps.scenarios.byName.set(name, scenario);
  deps.scenarios.replaced = fresh.replaced;
  for (const ns of deps.namespaces.list()) ns.part(SCENARIO_STATE).restartSequences(touched);
  return [...fresh.byName.values()].filter((s) => s.source === 'file').map((s) => s.name);
}
