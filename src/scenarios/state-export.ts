// The scenario state of a namespace as GET /_sandbox/state exports it, and the check of one sent to
// PUT /_sandbox/state before anything changes (exports made before a field existed still import).
import { type ActiveEntry, checkActiveEntries } from './activations.js';

export interface ScenarioStateExport {
  active: ActiveEntry[];
  cursors: Array<{
    merchant_account_id: string;
    scenario: string;
    step: number;
    used_in_step: number;
    requests: number;
    /** Absent in exports made before it was counted. */
    answered?: number;
    random_state: number;
  }>;
  /** The scenarios defined at run time, as written; absent in older exports. */
  defined?: unknown[];
}

export function checkScenarioState(state: unknown): ScenarioStateExport {
  const s = state as Partial<ScenarioStateExport> | null;
  const count = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
  const shape = 'expected {active: [...], cursors: [{merchant_account_id, scenario, step, used_in_step, requests, answered?, random_state}], defined?: [...]}';
  if (!s || typeof s !== 'object' || !Array.isArray(s.cursors) || (s.defined !== undefined && !Array.isArray(s.defined))) throw new Error(shape);
  checkActiveEntries(s.active);
  const ok = s.cursors.every(
    (c) =>
      c &&
      typeof c.merchant_account_id === 'string' &&
      typeof c.scenario === 'string' &&
      count(c.step) &&
      count(c.used_in_step) &&
      count(c.requests) &&
      (c.answered === undefined || count(c.answered)) &&
      count(c.random_state),
  );
  if (!ok) throw new Error(shape);
  return s as ScenarioStateExport;
}
