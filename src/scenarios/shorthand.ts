// Shorthands a tester writes instead of steps, compiled to steps (the one internal form):
//   calls: [5]                 pass x4, the action, then pass for ever
//   calls: [2, 5]              pass, the action, pass x2, the action, then pass
//   after: 4, times: 2         pass x4, the action x2, then pass
//   after: 4                   pass x4, then the action for ever
//   times: 2                   the action x2, then pass
//   (none of those)            the action on every call
//   probability: 0.2           the action on a seeded 20 % of the calls it would take
import type { Step, StepAction } from './types.js';

/** The action fields a scenario may give at its top level. */
export const SHORTHAND_ACTION_KEYS = ['respond', 'override', 'merge', 'drop', 'pass', 'lose_answer', 'delay_ms', 'headers'] as const;

export interface Shorthand {
  calls?: number[];
  after?: number;
  times?: number;
  probability?: number;
}

/** The action written at the top level of a scenario, or null when it gives none. */
export function topLevelAction(doc: Record<string, unknown>): StepAction | null {
  const action: Record<string, unknown> = {};
  for (const key of SHORTHAND_ACTION_KEYS) if (doc[key] !== undefined) action[key] = doc[key];
  return Object.keys(action).length ? (action as StepAction) : null;
}

/** The steps a shorthand means. */
export function shorthandSteps(action: StepAction, { calls, after, times, probability }: Shorthand): Step[] {
  const hit: Omit<Step, 'times'> = probability === undefined ? { ...action } : { random: { share: probability, ...action } };
  const pass = (count: number): Step[] => (count > 0 ? [{ pass: true, times: count }] : []);
  if (calls) {
    const steps: Step[] = [];
    let done = 0;
    for (const call of [...calls].sort((a, b) => a - b)) {
      steps.push(...pass(call - done - 1), { ...hit, times: 1 });
      done = call;
    }
    return [...steps, { pass: true, times: 1 }];
  }
  const steps = [...pass(after ?? 0), { ...hit, times: times ?? 1 }];
  return times === undefined ? steps : [...steps, { pass: true, times: 1 }];
}
