// How a report execution moves through its states as the sandbox clock runs. Pure: given when the
// execution's first state began and its plan (the path of states and how long each lasts), the
// state at any instant. New executions store their plan from their creation; seeded ones hold their
// status for a day after the namespace starts (seededLifecycle), then carry on.
import { CallSlot } from '../../http/call.js';
import type { ReportExecutionRecord, ReportExecutionStatus, StoredLifecycle } from '../../store/records.js';

export interface LifecyclePlan {
  /** The states in order; the last one is final. */
  path: ReportExecutionStatus[];
  /** How long each state but the last lasts, in ms (length = path.length - 1). */
  durations_ms: number[];
}

/** Defaults (documented in openapi.json): pending 5 s, dispatched 5 s, processing 20 s, then succeeded. */
export const DEFAULT_LIFECYCLE: LifecyclePlan = {
  path: ['pending', 'dispatched', 'processing', 'succeeded'],
  durations_ms: [5_000, 5_000, 20_000],
};

/** The lifecycle the x-sandbox-scenario header of one request asks for (null plan: the default). */
export interface RequestLifecycle {
  merchantAccountId: string;
  plan: LifecyclePlan | null;
}

/** Where a request's scenario step (scenarios/inject.ts) leaves the lifecycle the scheduler gives the executions the request makes. */
export const REQUEST_LIFECYCLE = new CallSlot<RequestLifecycle>('report lifecycle');

/** The operations whose handlers give REQUEST_LIFECYCLE to the executions they make (handlers.ts). */
export const OPERATIONS_TAKING_A_LIFECYCLE: readonly string[] = ['createReport', 'getReportExecution'];

export interface LifecycleState {
  status: ReportExecutionStatus;
  /** When the execution entered that state (its updated_at). */
  sinceMs: number;
}

/** The state at `atMs` of an execution created at `createdMs` (before its creation: the first state). */
export function stateAt(plan: LifecyclePlan, createdMs: number, atMs: number): LifecycleState {
  let since = createdMs;
  for (let i = 0; i < plan.path.length - 1; i++) {
    const leaves = since + (plan.durations_ms[i] ?? 0);
    if (atMs < leaves) return { status: plan.path[i], sinceMs: since };
    since = leaves;
  }
  return { status: plan.path[plan.path.length - 1], sinceMs: since };
}

/** A plan is well formed when it has a state and one duration per state that is left. */
export function checkPlan(plan: LifecyclePlan): string | null {
  if (plan.path.length === 0) return 'the path needs at least one state';
  if (new Set(plan.path).size !== plan.path.length) return 'a state appears twice in the path';
  if (plan.durations_ms.length !== plan.path.length - 1) {
    return `give one duration per state but the last (${plan.path.length - 1} for ${plan.path.length} states), got ${plan.durations_ms.length}`;
  }
  if (plan.durations_ms.some((d) => !Number.isSafeInteger(d) || d < 0)) return 'durations are whole milliseconds, 0 or more';
  return null;
}

/** How long a seeded execution holds its status after the namespace starts (or is reset): longer than any ordinary test run. */
export const SEEDED_HOLD_MS = 24 * 60 * 60 * 1000;

/**
 * The lifecycle of a seeded execution in `status`, which it entered at `enteredAt`: it holds that
 * status until SEEDED_HOLD_MS after the namespace starts, then follows the default path from there.
 * Final statuses stay (null).
 */
export function seededLifecycle(status: ReportExecutionStatus, enteredAt: string): StoredLifecycle | null {
  const at = DEFAULT_LIFECYCLE.path.indexOf(status);
  if (at < 0 || at === DEFAULT_LIFECYCLE.path.length - 1) return null; // succeeded or failed
  return {
    path: DEFAULT_LIFECYCLE.path.slice(at),
    durations_ms: [SEEDED_HOLD_MS, ...DEFAULT_LIFECYCLE.durations_ms.slice(at + 1)],
    started_at: enteredAt,
    first_duration_from: 'namespace_start',
  };
}

export interface ResolvedLifecycle {
  plan: LifecyclePlan;
  /** When the plan's first state began. */
  fromMs: number;
  /**
   * What the execution stores once its first state is over, when that differs from what it stores
   * now: the first duration made plain, so the rest of the path no longer depends on the start.
   */
  fixed: StoredLifecycle | null;
}

/** The plan an execution follows now, its first state's start resolved; `namespaceStartMs` is when its namespace started or was reset. */
export function resolveLifecycle(
  execution: Pick<ReportExecutionRecord, 'created_at'>,
  lifecycle: StoredLifecycle,
  namespaceStartMs: number,
): ResolvedLifecycle {
  const fromMs = Date.parse(lifecycle.started_at ?? execution.created_at);
  if (lifecycle.first_duration_from !== 'namespace_start') return { plan: lifecycle, fromMs, fixed: null };
  const firstEndsMs = Math.max(fromMs, namespaceStartMs) + (lifecycle.durations_ms[0] ?? 0);
  const durations_ms = [firstEndsMs - fromMs, ...lifecycle.durations_ms.slice(1)];
  return {
    plan: { path: lifecycle.path, durations_ms },
    fromMs,
    fixed: { path: [...lifecycle.path], durations_ms, started_at: new Date(fromMs).toISOString() },
  };
}
