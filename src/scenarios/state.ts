// Scenario state of one namespace: the scenarios defined at run time (POST /_sandbox/scenarios),
// which ones are active (activations.ts), and for each (merchant account, scenario) where its
// sequence stands, how many calls it matched and answered, and its seeded random source. A step is
// taken synchronously when a request is admitted, so concurrent requests never share one.
//
// Names resolve against the namespace's own scenarios first, then the files (built-in scenarios
// with --scenarios-dir added): a definition may replace a file's scenario in its namespace only.
import type { Clock } from '../clock.js';
import type { PartKind } from '../namespace/namespace.js';
import { type NamespacePart, PartKey } from '../namespace/part.js';
import type { LifecyclePlan } from '../resources/reports/lifecycle.js';
import { REPORT_CLOCK } from '../resources/reports/scheduler.js';
import type { SpecIndex } from '../spec/operations.js';
import { type Activation, type ActivationLimits, Activations, type ActiveEntry } from './activations.js';
import { Definitions } from './definitions.js';
import { hashSeed, SeededRandom } from './random.js';
import { checkScenarioState, type ScenarioStateExport } from './state-export.js';
import type { DelaySpec, Scenario, ScenarioCatalog, ScenarioLookup, StepAction } from './types.js';

export type { ActiveEntry } from './activations.js';
export type { ScenarioStateExport } from './state-export.js';

interface Cursor {
  step: number;
  /** Requests the current step has answered. */
  usedInStep: number;
  /** Requests the scenario took a step for (it matched them), for this merchant account. */
  requests: number;
  /** Of those, the ones whose step did something (not a plain pass). */
  answered: number;
  random: SeededRandom;
}

export interface TakenStep {
  /** Index of the step in the compiled steps. */
  index: number;
  /** What to do (a random step resolved to its hit, or to pass on a miss). */
  action: StepAction;
  /** The delay drawn for this call (0: none). */
  delayMs: number;
}

/** A scenario a request selected, with the activation that made it active (null: the x-sandbox-scenario header). */
export interface Selected {
  scenario: Scenario;
  activation: Activation | null;
}

export interface CounterEntry {
  merchant_account_id: string;
  scenario: string;
  step: number;
  requests: number;
}

export interface ScenarioCounters {
  matched: number;
  answered: number;
  merchant_accounts: Array<{ merchant_account_id: string; step: number; matched: number; answered: number }>;
}

const SEPARATOR = '\u0001';
const NONE_SELECTED: readonly Selected[] = Object.freeze([]);

export class ScenarioState implements NamespacePart, ScenarioLookup {
  readonly activations: Activations;
  private readonly defined: Definitions;
  private readonly cursors = new Map<string, Cursor>();

  constructor(
    private readonly catalog: ScenarioCatalog,
    private readonly seed: number,
    spec: SpecIndex,
    clock: Clock,
  ) {
    this.activations = new Activations(clock);
    this.defined = new Definitions(spec);
  }

  get(name: string): Scenario | undefined {
    return (this.defined.size > 0 ? this.defined.get(name) : undefined) ?? this.catalog.byName.get(name);
  }

  names(): string[] {
    return [...new Set([...this.defined.names(), ...this.catalog.byName.keys()])].sort();
  }

  /** The scenarios defined at run time in this namespace, by name. */
  definedScenarios(): Scenario[] {
    return this.defined.list();
  }

  /** The file scenario a definition of this namespace hides, if any. */
  fileScenario(name: string): Scenario | undefined {
    return this.catalog.byName.get(name);
  }

  /** Checks, compiles and keeps a definition (DefinitionError when refused); `replace`: it may replace one of the same name. Its sequences restart. */
  define(definition: unknown, replace: boolean): { scenario: Scenario; created: boolean } {
    const defined = this.defined.define(definition, replace);
    this.dropCursors(defined.scenario.name);
    return defined;
  }

  /** Removes a definition; false when the namespace defines none of that name. Activations drop names left unknown. */
  undefine(name: string): boolean {
    if (!this.defined.delete(name)) return false;
    this.dropCursors(name);
    this.activations.forget((n) => this.get(n) !== undefined);
    return true;
  }

  /**
   * Checks a whole list of definitions (a snapshot's or a state's) and returns what makes them this
   * namespace's definitions, in place of its own; a DefinitionError points at /<index>/... of the list.
   */
  prepareDefinitions(definitions: readonly unknown[]): () => void {
    const scenarios = this.defined.check(definitions);
    return () => {
      for (const name of [...this.defined.names(), ...scenarios.keys()]) this.dropCursors(name);
      this.defined.replaceAll(scenarios);
      this.activations.forget((n) => this.get(n) !== undefined);
    };
  }

  /** Sets the scenarios active for one merchant account (null: all) and restarts their sequences there. */
  activate(names: string[], merchantAccountId: string | null, limits: ActivationLimits = {}): void {
    this.activations.set(names, merchantAccountId, limits);
    for (const cursorKey of [...this.cursors.keys()]) {
      const [merchant, scenario] = cursorKey.split(SEPARATOR);
      if (names.includes(scenario) && (merchantAccountId === null || merchant === merchantAccountId)) this.cursors.delete(cursorKey);
    }
  }

  /** Whether anything is active (most requests: nothing, and nothing more is looked at). */
  get anyActive(): boolean {
    return this.activations.any;
  }

  /** The scenarios active for a merchant account, its own first, then those active for every account. */
  activeFor(merchantAccountId: string): readonly Selected[] {
    if (!this.activations.any) return NONE_SELECTED;
    const selected: Selected[] = [];
    for (const activation of this.activations.forAccount(merchantAccountId)) {
      for (const name of activation.scenarios) {
        const scenario = this.get(name);
        if (scenario && !selected.some((s) => s.scenario === scenario)) selected.push({ scenario, activation });
      }
    }
    return selected;
  }

  listActive(): ActiveEntry[] {
    return this.activations.list();
  }

  listCounters(): CounterEntry[] {
    return [...this.cursors.entries()]
      .map(([key, c]) => {
        const [merchant, scenario] = key.split(SEPARATOR);
        return { merchant_account_id: merchant, scenario, step: c.step, requests: c.requests };
      })
      .sort((a, b) => a.merchant_account_id.localeCompare(b.merchant_account_id) || a.scenario.localeCompare(b.scenario));
  }

  /** How many calls a scenario matched and answered in this namespace, in all and per merchant account. */
  countersOf(name: string): ScenarioCounters {
    const merchant_accounts = this.listCounters()
      .filter((c) => c.scenario === name)
      .map((c) => {
        const cursor = this.cursors.get(`${c.merchant_account_id}${SEPARATOR}${name}`) as Cursor;
        return { merchant_account_id: c.merchant_account_id, step: c.step, matched: cursor.requests, answered: cursor.answered };
      });
    return {
      matched: merchant_accounts.reduce((n, c) => n + c.matched, 0),
      answered: merchant_accounts.reduce((n, c) => n + c.answered, 0),
      merchant_accounts,
    };
  }

  /** No active scenarios, every sequence back to its first step and its random source to its seed (definitions stay). */
  clear(): void {
    this.activations.clear();
    this.cursors.clear();
  }

  /** The lifecycle the active scenarios give new report executions of a merchant account. */
  lifecyclePlanFor(merchantAccountId: string): LifecyclePlan | null {
    for (const { scenario } of this.activeFor(merchantAccountId)) if (scenario.reportExecution) return scenario.reportExecution;
    return null;
  }

  /**
   * Takes the next step of a scenario for a merchant account: synchronous on purpose. Null when the
   * activation that selected it has ended meanwhile (its last call taken while this request waited).
   */
  take(merchantAccountId: string, scenario: Scenario, activation: Activation | null): TakenStep | null {
    if (activation && this.activations.ended(activation)) return null;
    const key = `${merchantAccountId}${SEPARATOR}${scenario.name}`;
    let cursor = this.cursors.get(key);
    if (!cursor) {
      const random = new SeededRandom(hashSeed(`${this.seed}/${scenario.seed}/${scenario.name}`));
      cursor = { step: 0, usedInStep: 0, requests: 0, answered: 0, random };
      this.cursors.set(key, cursor);
    }
    // A sequence imported from elsewhere may stand past the end of steps since edited: the last one repeats.
    const index = Math.min(cursor.step, scenario.steps.length - 1);
    const step = scenario.steps[index];
    cursor.requests++;
    cursor.usedInStep++;
    // The last step repeats forever.
    if (cursor.usedInStep >= step.times && index < scenario.steps.length - 1) {
      cursor.step++;
      cursor.usedInStep = 0;
    }
    if (activation) this.activations.used(activation);
    let action: StepAction = step;
    let delayMs = delayOf(step.delay_ms, cursor.random);
    if (step.random) {
      const { share, ...hit } = step.random;
      const hits = cursor.random.next() < share;
      if (hits) delayMs += delayOf(hit.delay_ms, cursor.random);
      action = hits ? hit : PASS;
    }
    if (action.pass !== true || delayMs > 0 || action.headers !== undefined || scenario.webhooks) cursor.answered++;
    return { index, action, delayMs };
  }

  /** A reset makes every scenario inactive, every sequence start again and forgets the scenarios defined at run time. */
  reset(): void {
    this.clear();
    this.defined.clear();
  }

  exportState(): ScenarioStateExport {
    return {
      active: this.listActive(),
      cursors: [...this.cursors.entries()].map(([key, c]) => {
        const [merchant, scenario] = key.split(SEPARATOR);
        return {
          merchant_account_id: merchant,
          scenario,
          step: c.step,
          used_in_step: c.usedInStep,
          requests: c.requests,
          answered: c.answered,
          random_state: c.random.state,
        };
      }),
      defined: this.definedScenarios().map((s) => s.definition),
    };
  }

  prepareImport(state: unknown): () => void {
    const { active, cursors, defined = [] } = state === null ? { active: [], cursors: [] } : checkScenarioState(state);
    let defineAll: () => void;
    try {
      defineAll = this.prepareDefinitions(defined);
    } catch (err) {
      throw new Error(`defined: ${(err as Error).message}`);
    }
    return () => {
      defineAll();
      this.clear();
      this.activations.restore(active);
      this.activations.forget((n) => this.get(n) !== undefined); // names this sandbox does not know
      for (const c of cursors) {
        const random = new SeededRandom(c.random_state);
        const cursor = { step: c.step, usedInStep: c.used_in_step, requests: c.requests, answered: c.answered ?? 0, random };
        this.cursors.set(`${c.merchant_account_id}${SEPARATOR}${c.scenario}`, cursor);
      }
    };
  }

  /** Every sequence of these scenarios starts again, for every merchant account (what is active stays). */
  restartSequences(names: readonly string[]): void {
    for (const name of names) this.dropCursors(name);
  }

  private dropCursors(name: string): void {
    for (const key of [...this.cursors.keys()]) if (key.endsWith(`${SEPARATOR}${name}`)) this.cursors.delete(key);
  }
}

const PASS: StepAction = Object.freeze({ pass: true });

/** The delay of one call: fixed, or drawn from the range with the scenario's random source. */
function delayOf(delay: DelaySpec | undefined, random: SeededRandom): number {
  if (delay === undefined) return 0;
  if (typeof delay === 'number') return delay;
  return delay.min + Math.floor(random.next() * (delay.max - delay.min + 1));
}

/** Every namespace's scenario state: made with the namespace (report schedules ask it for lifecycles). */
export const SCENARIO_STATE = new PartKey<ScenarioState>('scenarios');

/** The scenario state kind for a sandbox's namespaces; it tells the namespace's report schedules which lifecycle its scenarios give. */
export function scenarioStateKind(catalog: ScenarioCatalog, seed: number, spec: SpecIndex): PartKind<ScenarioState> {
  return {
    key: SCENARIO_STATE,
    eager: true,
    create(ns) {
      const state = new ScenarioState(catalog, seed, spec, ns.clock);
      ns.part(REPORT_CLOCK).resolvePlan = (merchantAccountId) => state.lifecyclePlanFor(merchantAccountId);
      return state;
    },
  };
}
