// Scenario state of one namespace: which scenarios are active (per merchant account or for all),
// and for each (merchant account, scenario) where its sequence stands and its seeded random source.
// A step is taken synchronously when a request is admitted, so concurrent requests never share one.
import type { PartKind } from '../namespace/namespace.js';
import { type NamespacePart, PartKey } from '../namespace/part.js';
import type { LifecyclePlan } from '../resources/reports/lifecycle.js';
import { REPORT_CLOCK } from '../resources/reports/scheduler.js';
import { selectedLifecycle } from './match.js';
import { hashSeed, SeededRandom } from './random.js';
import type { Scenario, ScenarioCatalog, StepAction } from './types.js';

interface Cursor {
  step: number;
  /** Requests the current step has answered. */
  usedInStep: number;
  /** Requests the scenario has answered for this merchant account. */
  requests: number;
  random: SeededRandom;
}

export interface TakenStep {
  /** Index of the step in the file. */
  index: number;
  /** What to do (a random step resolved to its hit, or to pass on a miss). */
  action: StepAction;
}

export interface ActiveEntry {
  merchant_account_id: string | null;
  scenarios: string[];
}

export interface CounterEntry {
  merchant_account_id: string;
  scenario: string;
  step: number;
  requests: number;
}

const EVERY_ACCOUNT = '\u0000*';
const NONE_ACTIVE: readonly string[] = Object.freeze([]);

export class ScenarioState implements NamespacePart {
  private readonly active = new Map<string, string[]>();
  private readonly cursors = new Map<string, Cursor>();

  constructor(
    private readonly catalog: ScenarioCatalog,
    private readonly seed: number,
  ) {}

  /** Sets the scenarios active for one merchant account (null: all) and restarts their sequences there. */
  activate(names: string[], merchantAccountId: string | null): void {
    const key = merchantAccountId ?? EVERY_ACCOUNT;
    if (names.length) this.active.set(key, [...names]);
    else this.active.delete(key);
    for (const cursorKey of [...this.cursors.keys()]) {
      const [merchant, scenario] = cursorKey.split('\u0001');
      if (names.includes(scenario) && (merchantAccountId === null || merchant === merchantAccountId)) this.cursors.delete(cursorKey);
    }
  }

  /** A merchant account's own scenarios first, then those active for every account. Not to be changed. */
  activeFor(merchantAccountId: string): readonly string[] {
    if (this.active.size === 0) return NONE_ACTIVE; // most requests: nothing to build
    return [...new Set([...(this.active.get(merchantAccountId) ?? []), ...(this.active.get(EVERY_ACCOUNT) ?? [])])];
  }

  listActive(): ActiveEntry[] {
    return [...this.active.entries()]
      .map(([key, scenarios]) => ({ merchant_account_id: key === EVERY_ACCOUNT ? null : key, scenarios: [...scenarios] }))
      .sort((a, b) => (a.merchant_account_id ?? '').localeCompare(b.merchant_account_id ?? ''));
  }

  listCounters(): CounterEntry[] {
    return [...this.cursors.entries()]
      .map(([key, c]) => {
        const [merchant, scenario] = key.split('\u0001');
        return { merchant_account_id: merchant, scenario, step: c.step, requests: c.requests };
      })
      .sort((a, b) => a.merchant_account_id.localeCompare(b.merchant_account_id) || a.scenario.localeCompare(b.scenario));
  }

  /** No active scenarios, every sequence back to its first step and its random source to its seed. */
  clear(): void {
    this.active.clear();
    this.cursors.clear();
  }

  /** The lifecycle the active scenarios give new report executions of a merchant account. */
  lifecyclePlanFor(merchantAccountId: string): LifecyclePlan | null {
    return selectedLifecycle(this.catalog, this.activeFor(merchantAccountId));
  }

  /** Takes the next step of a scenario for a merchant account. Synchronous on purpose. */
  take(merchantAccountId: string, scenario: Scenario): TakenStep {
    const key = `${merchantAccountId}\u0001${scenario.name}`;
    let cursor = this.cursors.get(key);
    if (!cursor) {
      cursor = { step: 0, usedInStep: 0, requests: 0, random: new SeededRandom(hashSeed(`${this.seed}/${scenario.seed}/${scenario.name}`)) };
      this.cursors.set(key, cursor);
    }
    const index = cursor.step;
    const step = scenario.steps[index];
    cursor.requests++;
    cursor.usedInStep++;
    // The last step repeats forever.
    if (cursor.usedInStep >= step.times && index < scenario.steps.length - 1) {
      cursor.step++;
      cursor.usedInStep = 0;
    }
    if (!step.random) return { index, action: step };
    const { share, ...hit } = step.random;
    const hits = cursor.random.next() < share;
    const delay = (step.delay_ms ?? 0) + (hits ? (hit.delay_ms ?? 0) : 0);
    const action: StepAction = hits ? { ...hit, delay_ms: delay } : { pass: true, delay_ms: delay };
    return { index, action };
  }

  /** A reset makes every scenario inactive and every sequence start again. */
  reset(): void {
    this.clear();
  }

  exportState(): ScenarioStateExport {
    return {
      active: this.listActive(),
      cursors: [...this.cursors.entries()].map(([key, c]) => {
        const [merchant, scenario] = key.split('\u0001');
        return { merchant_account_id: merchant, scenario, step: c.step, used_in_step: c.usedInStep, requests: c.requests, random_state: c.random.state };
      }),
    };
  }

  prepareImport(state: unknown): () => void {
    const { active, cursors } = state === null ? { active: [], cursors: [] } : checkScenarioState(state);
    return () => {
      this.clear();
      for (const entry of active) this.active.set(entry.merchant_account_id ?? EVERY_ACCOUNT, [...entry.scenarios]);
      for (const c of cursors) {
        const random = new SeededRandom(c.random_state);
        this.cursors.set(`${c.merchant_account_id}\u0001${c.scenario}`, { step: c.step, usedInStep: c.used_in_step, requests: c.requests, random });
      }
    };
  }
}

export interface ScenarioStateExport {
  active: ActiveEntry[];
  cursors: Array<{ merchant_account_id: string; scenario: string; step: number; used_in_step: number; requests: number; random_state: number }>;
}

/** Every namespace's scenario state: made with the namespace (report schedules ask it for lifecycles). */
export const SCENARIO_STATE = new PartKey<ScenarioState>('scenarios');

function checkScenarioState(state: unknown): ScenarioStateExport {
  const s = state as Partial<ScenarioStateExport> | null;
  const count = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
  const ok =
    s &&
    Array.isArray(s.active) &&
    Array.isArray(s.cursors) &&
    s.active.every(
      (a) =>
        a &&
        (a.merchant_account_id === null || typeof a.merchant_account_id === 'string') &&
        Array.isArray(a.scenarios) &&
        a.scenarios.every((n) => typeof n === 'string'),
    ) &&
    s.cursors.every(
      (c) =>
        c &&
        typeof c.merchant_account_id === 'string' &&
        typeof c.scenario === 'string' &&
        count(c.step) &&
        count(c.used_in_step) &&
        count(c.requests) &&
        count(c.random_state),
    );
  if (!ok)
    throw new Error(
      'expected {active: [{merchant_account_id, scenarios}], cursors: [{merchant_account_id, scenario, step, used_in_step, requests, random_state}]}',
    );
  return s as ScenarioStateExport;
}

/** The scenario state kind for a sandbox's namespaces; it tells the namespace's report schedules which lifecycle its scenarios give. */
export function scenarioStateKind(catalog: ScenarioCatalog, seed: number): PartKind<ScenarioState> {
  return {
    key: SCENARIO_STATE,
    eager: true,
    create(ns) {
      const state = new ScenarioState(catalog, seed);
      ns.part(REPORT_CLOCK).resolvePlan = (merchantAccountId) => state.lifecyclePlanFor(merchantAccountId);
      return state;
    },
  };
}
