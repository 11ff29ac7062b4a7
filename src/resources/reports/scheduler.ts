// Time-driven report state of a namespace. When its clock moves (set, advance, freeze) and on every
// read of reports or executions, two things catch up with "now":
//  - schedules: each enabled report whose next_execution_at has passed gets one execution per run
//    missed (a daily report: one per local midnight crossed), then its next run is computed;
//  - executions with a lifecycle plan get the status the plan gives at "now". Seeded executions hold
//    their status for a day (SEEDED_HOLD_MS) after the namespace started or was reset, then move on.
// Runs that fell due before the namespace started (seeded fixtures, a data file loaded after a
// pause) are skipped, not replayed: the sandbox runs what it was running for.
// Each new execution is announced (report-execution.created) and so is each status it passes
// through (report-execution.<status>, at the instant it entered it), for webhooks; nextReportChangeAt
// tells them when to look again, since nothing here runs unless asked.
import { randomUUID } from 'node:crypto';
import type { TimedChanges } from '../../namespace/announce.js';
import type { Namespace, PartKind } from '../../namespace/namespace.js';
import { type NamespacePart, PartKey } from '../../namespace/part.js';
import type { CollectionName, ReportExecutionRecord, ReportExecutionStatus, ReportRecord } from '../../store/records.js';
import { DEFAULT_LIFECYCLE, type LifecyclePlan, type RequestLifecycle, resolveLifecycle, stateAt } from './lifecycle.js';
import { followingExecutionAt } from './schedule.js';

/** The plan scenarios activated for a merchant account give its new executions (null: the default). */
export type PlanResolver = (merchantAccountId: string) => LifecyclePlan | null;

/** Most executions one report gets in one catch-up (a clock moved by years keeps only the latest runs). */
export const MAX_RUNS_PER_CATCH_UP = 1000;

/**
 * A namespace's report schedules: what follows its clock. Made with the namespace, since it listens
 * to the clock from the start.
 */
export class ReportClock implements NamespacePart, TimedChanges {
  /** Runs before this instant are skipped; null until the first catch-up after start or reset. */
  floorMs: number | null;
  /**
   * When the namespace started or was last reset (null until the first catch-up after a reset):
   * seeded executions hold their status until a day after it. Not moved with the clock, and never
   * stored in the records: they stay what the fixtures made them, so a reset gives byte-identical state.
   */
  startedMs: number | null;
  /** Set by the scenario state of the namespace (scenarios/state.ts). */
  resolvePlan: PlanResolver = () => null;

  /** nextChangeAt's last answer, and the collections and change counts it was computed from. */
  private seen = { reports: -1, executions: -1, collection: null as object | null, at: null as number | null };

  constructor(private readonly ns: Namespace) {
    this.floorMs = ns.clock.now();
    this.startedMs = ns.clock.now();
    ns.clock.onChange(() => catchUpReports(ns));
    ns.addTimedChanges(this);
  }

  catchUp(): void {
    catchUpReports(this.ns);
  }

  /** nextReportChangeAt, computed again only when reports or executions changed. */
  nextChangeAt(): number | null {
    const db = this.ns.store.collections;
    const seen = this.seen;
    if (seen.collection !== db.reports || seen.reports !== db.reports.changeCount || seen.executions !== db.report_executions.changeCount) {
      this.seen = {
        reports: db.reports.changeCount,
        executions: db.report_executions.changeCount,
        collection: db.reports,
        at: nextReportChangeAt(this.ns, this.ns.clock.now()),
      };
    }
    return this.seen.at;
  }

  movedBy(collection: CollectionName): boolean {
    return collection === 'reports' || collection === 'report_executions';
  }

  /** After a reset, runs due before the next catch-up are skipped and seeded executions hold again, as after a start. */
  reset(): void {
    this.floorMs = null;
    this.startedMs = null;
  }

  exportState(): { floor_ms: number | null; started_ms: number | null } {
    return { floor_ms: this.floorMs, started_ms: this.startedMs };
  }

  prepareImport(state: unknown): () => void {
    const given = (state ?? {}) as { floor_ms?: unknown; started_ms?: unknown };
    const floor = given.floor_ms ?? null;
    const started = given.started_ms ?? null;
    if ((floor !== null && !Number.isFinite(floor)) || (started !== null && !Number.isFinite(started))) {
      throw new Error('expected {floor_ms: number | null, started_ms: number | null}');
    }
    return () => {
      this.floorMs = floor as number | null;
      this.startedMs = started as number | null;
    };
  }
}

export const REPORT_CLOCK = new PartKey<ReportClock>('reports');

/**
 * The plan a new execution of that merchant account gets now: the request's own (its
 * x-sandbox-scenario header), else the namespace's active scenarios', else the default.
 */
function planForNewExecution(ns: Namespace, merchantAccountId: string, request: RequestLifecycle | null): LifecyclePlan {
  if (request && request.merchantAccountId === merchantAccountId) return request.plan ?? DEFAULT_LIFECYCLE;
  return ns.part(REPORT_CLOCK).resolvePlan(merchantAccountId) ?? DEFAULT_LIFECYCLE;
}

/**
 * Brings schedules and execution statuses up to the namespace clock. `request`: the lifecycle the
 * calling request asked for, given to the executions it makes.
 */
export function catchUpReports(ns: Namespace, request: RequestLifecycle | null = null): void {
  const now = ns.clock.now();
  const state = ns.part(REPORT_CLOCK);
  state.startedMs ??= now;
  runDueSchedules(ns, now, request);
  refreshExecutionStatuses(ns, now, state.startedMs);
}

function runDueSchedules(ns: Namespace, now: number, request: RequestLifecycle | null): void {
  const state = ns.part(REPORT_CLOCK);
  // Moving the clock back moves the floor with it: runs from there on are run when reached.
  if (state.floorMs === null || now < state.floorMs) state.floorMs = now;
  const floor = state.floorMs;
  const db = ns.store.collections;
  for (const report of [...db.reports.all()]) {
    if (!report.schedule_enabled || report.next_execution_at === null) continue;
    let next: number | null = Date.parse(report.next_execution_at);
    if (Number.isNaN(next) || next > now) continue;
    // Runs before the floor are never made: start from the first at or after it, rather than walking
    // every day since a seeded report's date (a new namespace's reset walked years, 8 ms a reset).
    if (next < floor) next = followingExecutionAt(report.schedule, report.schedule_timezone, floor - 1);
    const runs: number[] = [];
    while (next !== null && next <= now) {
      runs.push(next);
      next = followingExecutionAt(report.schedule, report.schedule_timezone, next);
    }
    for (const run of runs.slice(-MAX_RUNS_PER_CATCH_UP)) {
      const execution = db.report_executions.insert(newExecution(report, run, planForNewExecution(ns, report.merchant_account_id, request)));
      ns.announce({
        name: 'report-execution.created',
        merchantAccountId: execution.merchant_account_id,
        collection: 'report_executions',
        record: execution,
        atMs: run,
      });
    }
    db.reports.update(report.id, { next_execution_at: next === null ? null : new Date(next).toISOString() });
  }
}

function newExecution(report: ReportRecord, runMs: number, plan: LifecyclePlan): ReportExecutionRecord {
  const at = new Date(runMs).toISOString();
  return {
    type: 'report-execution',
    id: randomUUID(),
    created_at: at,
    updated_at: at,
    merchant_account_id: report.merchant_account_id,
    report_id: report.id,
    status: plan.path[0],
    context: { reference_timestamp: at, reference_timezone: report.schedule_timezone },
    lifecycle: { path: [...plan.path], durations_ms: [...plan.durations_ms] },
  };
}

/**
 * Executions that follow a plan get the status (and updated_at: when they entered it) of `now`. A
 * seeded one that leaves its first state stores its plan made plain (resolveLifecycle), so a later
 * start or reset of the namespace no longer moves the states after it.
 */
function refreshExecutionStatuses(ns: Namespace, now: number, namespaceStartMs: number): void {
  const db = ns.store.collections;
  for (const execution of db.report_executions.all()) {
    if (!execution.lifecycle) continue;
    const { plan, fromMs, fixed } = resolveLifecycle(execution, execution.lifecycle, namespaceStartMs);
    const state = stateAt(plan, fromMs, now);
    const updatedAt = new Date(state.sinceMs).toISOString();
    if (state.status !== execution.status || updatedAt !== execution.updated_at) {
      const before = execution.status;
      const leftFirstState = fixed !== null && state.status !== plan.path[0];
      const updated = db.report_executions.update(execution.id, {
        status: state.status,
        updated_at: updatedAt,
        ...(leftFirstState ? { lifecycle: fixed } : {}),
      });
      if (updated && state.status !== before && ns.wantsChanges(updated.merchant_account_id)) announceStatuses(ns, updated, plan, fromMs, before, now);
    }
  }
}

/**
 * Announces every status an execution entered after `before` up to `now`, each at its instant and
 * with the execution as it was then: a clock moved by a day still tells dispatched, processing and
 * succeeded, in order.
 */
function announceStatuses(
  ns: Namespace,
  execution: ReportExecutionRecord,
  plan: LifecyclePlan,
  fromMs: number,
  before: ReportExecutionStatus,
  now: number,
): void {
  const from = plan.path.indexOf(before);
  let since = fromMs;
  for (let i = 0; i < plan.path.length; i++) {
    if (i > 0) since += plan.durations_ms[i - 1] ?? 0;
    if (since > now) return;
    if (i <= from) continue;
    const status = plan.path[i];
    const asThen = { ...execution, status, updated_at: new Date(since).toISOString() };
    ns.announce({
      name: `report-execution.${status}`,
      merchantAccountId: execution.merchant_account_id,
      collection: 'report_executions',
      record: asThen,
      atMs: since,
    });
  }
}

/**
 * When the reports of the namespace next change by themselves (a scheduled run falls due, an
 * execution enters its next status), on the namespace clock; null when nothing will. Webhooks arm a
 * timer for it, since the statuses otherwise catch up only when read or when the clock is moved.
 */
export function nextReportChangeAt(ns: Namespace, now: number): number | null {
  const db = ns.store.collections;
  const startedMs = ns.part(REPORT_CLOCK).startedMs ?? now;
  let next = Number.POSITIVE_INFINITY;
  for (const report of db.reports.all()) {
    if (!report.schedule_enabled || report.next_execution_at === null) continue;
    const at = Date.parse(report.next_execution_at);
    if (at < next) next = at;
  }
  for (const execution of db.report_executions.all()) {
    if (!execution.lifecycle) continue;
    const { plan, fromMs } = resolveLifecycle(execution, execution.lifecycle, startedMs);
    const state = stateAt(plan, fromMs, now);
    const index = plan.path.indexOf(state.status);
    // Not caught up yet (its stored status lags): due now.
    const leaves = state.status !== execution.status ? now : index < plan.path.length - 1 ? state.sinceMs + (plan.durations_ms[index] ?? 0) : null;
    if (leaves !== null && leaves < next) next = leaves;
  }
  return Number.isFinite(next) ? next : null;
}

export const reportClockKind: PartKind<ReportClock> = { key: REPORT_CLOCK, eager: true, create: (ns) => new ReportClock(ns) };
