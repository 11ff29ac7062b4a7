// Per-namespace setup of scenarios and time-driven report state, run for every namespace created.
import { attachReportClock } from '../resources/reports/scheduler.js';
import type { Namespace } from '../store/namespaces.js';
import { attachScenarioState } from './state.js';
import type { ScenarioCatalog } from './types.js';

export function attachScenarioRuntime(ns: Namespace, catalog: ScenarioCatalog, seed: number): void {
  const state = attachScenarioState(ns, catalog, seed);
  // Executions the schedules create get the lifecycle of the scenarios active for their account.
  attachReportClock(ns, (merchantAccountId) => state.lifecyclePlanFor(merchantAccountId));
}
