// Control API of the namespace clock: read it, set or freeze it, move it forward, or send it back
// to the wall clock. Every move lets report schedules and execution statuses catch up at once.
import type { Clock } from '../clock.js';
import { ApiError } from '../errors/api-error.js';
import { parseDuration } from '../scenarios/duration.js';
import type { AdminHandlerMap } from './types.js';

const MAX_ADVANCE_MS = 315_576_000_000; // ten years: keeps one move's schedule catch-up bounded

function clockBody(clock: Clock) {
  const wall = Date.now();
  const now = clock.now();
  return { now: new Date(now).toISOString(), frozen: clock.snapshot().mode === 'frozen', offset_ms: now - wall, wall_clock: new Date(wall).toISOString() };
}

/** No offset means UTC (Python's naive isoformat()), never the machine's zone; fraction digits past 3 are dropped. */
function instant(value: string): number {
  const ms = Date.parse(/([Zz]|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(ms)) {
    throw ApiError.badRequest(`now '${value.slice(0, 60)}' is not an instant the sandbox can use; send RFC 3339, e.g. 2026-11-22T10:00:00Z.`, [
      { location: 'body', pointer: '/now', type: 'date_time', message: 'Use an RFC 3339 date-time.' },
    ]);
  }
  return ms;
}

function advanceMs(body: { ms?: number; seconds?: number; duration?: string }): number {
  const ms = body.ms ?? (body.seconds !== undefined ? Math.round(body.seconds * 1000) : parseDuration(body.duration ?? ''));
  if (ms === null || ms > MAX_ADVANCE_MS) {
    throw ApiError.badRequest(`Advance by ms, seconds or a duration such as 1d, 2h30m, 90s, of at most ten years.`, [
      { location: 'body', pointer: body.duration !== undefined ? '/duration' : '', type: 'duration', message: 'At most ten years.' },
    ]);
  }
  return ms;
}

export const clockHandlers: AdminHandlerMap = {
  getClock({ ns }) {
    return { body: clockBody(ns.clock) };
  },

  setClock({ ns, body }) {
    const at = body.now === undefined ? undefined : instant(body.now);
    if (body.frozen === true) ns.clock.freeze(at ?? ns.clock.now());
    else {
      if (body.frozen === false) ns.clock.unfreeze();
      if (at !== undefined) ns.clock.set(at);
    }
    return { body: clockBody(ns.clock) };
  },

  advanceClock({ ns, body }) {
    ns.clock.advance(advanceMs(body));
    return { body: clockBody(ns.clock) };
  },

  resetClock({ ns }) {
    ns.clock.reset();
    return { body: clockBody(ns.clock) };
  },
};
