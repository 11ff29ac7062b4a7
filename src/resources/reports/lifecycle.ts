// How a report execution moves through its states as the sandbox clock runs. Pure: given when the
// execution was created and its plan (the path of states and how long each lasts), the state at
// any instant. New executions store their plan; fixture executions have none and keep their status.
import type { ReportExecutionStatus } from '../../store/records.js';

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
