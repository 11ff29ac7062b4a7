// When a scheduled report runs next, in its own time zone: daily at the next local midnight, weekly
// at the next local Monday 00:00, monthly on the 1st of the next month 00:00; `once` runs now.
// Pure functions over epoch milliseconds, using the platform's IANA time zone data (Intl).
import type { ReportSchedule } from '../../store/records.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isValidTimeZone(timeZone: string): boolean {
  // IANA names only (Intl would also take offsets such as +05:00).
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(timeZone)) return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}
const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

export function localTime(epochMs: number, timeZone: string): LocalTime {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(epochMs))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS[parts.weekday],
  };
}

/** Milliseconds the zone is ahead of UTC at that instant. */
function offsetAt(epochMs: number, timeZone: string): number {
  const t = localTime(epochMs, timeZone);
  const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant of a local wall-clock midnight in the zone. Midnight is the wall time minus the offset
 * in force then, which is one of the offsets around that day. When the day starts twice (clocks
 * turned back at midnight), the first; when midnight falls in a gap (clocks jump forward at 00:00,
 * America/Havana, America/Santiago), the end of the gap, the first instant of that local day.
 */
export function localMidnightToUtc(year: number, month: number, day: number, timeZone: string): number {
  // The same few days are asked again and again (every new namespace's reports, every clock move);
  // the zone data does not change while the process runs.
  const key = `${timeZone} ${dateKey(year, month, day)}`;
  let midnight = midnights.get(key);
  if (midnight === undefined) {
    if (midnights.size >= MIDNIGHTS_KEPT) midnights.clear();
    midnight = computeLocalMidnight(year, month, day, timeZone);
    midnights.set(key, midnight);
  }
  return midnight;
}

const midnights = new Map<string, number>();
const MIDNIGHTS_KEPT = 10_000;

function computeLocalMidnight(year: number, month: number, day: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day);
  const candidates = [...new Set([wall - DAY_MS, wall, wall + DAY_MS].map((t) => wall - offsetAt(t, timeZone)))].sort((a, b) => a - b);
  const target = dateKey(year, month, day);
  const localDate = (ms: number) => {
    const t = localTime(ms, timeZone);
    return { key: dateKey(t.year, t.month, t.day), midnight: t.hour === 0 && t.minute === 0 && t.second === 0 };
  };
  const exact = candidates.find((c) => localDate(c).key === target && localDate(c).midnight);
  if (exact !== undefined) return exact;
  return candidates.find((c) => localDate(c).key >= target) ?? candidates[candidates.length - 1];
}

const DAY_MS = 86_400_000;
const dateKey = (year: number, month: number, day: number) => year * 10_000 + month * 100 + day;

/** The next run strictly after `nowMs`; null when the schedule is disabled. */
export function nextExecutionAt(schedule: ReportSchedule, enabled: boolean, timeZone: string, nowMs: number): number | null {
  if (!enabled) return null;
  if (schedule === 'once') return nowMs;
  const t = localTime(nowMs, timeZone);
  // Date.UTC normalises overflowing days and months (Jan 32 -> Feb 1).
  const day = (y: number, m: number, d: number) => {
    const n = new Date(Date.UTC(y, m - 1, d));
    return localMidnightToUtc(n.getUTCFullYear(), n.getUTCMonth() + 1, n.getUTCDate(), timeZone);
  };
  if (schedule === 'daily') return day(t.year, t.month, t.day + 1);
  if (schedule === 'weekly') return day(t.year, t.month, t.day + ((8 - t.weekday) % 7 || 7));
  return day(t.year, t.month + 1, 1);
}

/** The run after one that happened at `previousMs` (for schedules that keep running). */
export function followingExecutionAt(schedule: ReportSchedule, timeZone: string, previousMs: number): number | null {
  if (schedule === 'once') return null;
  return nextExecutionAt(schedule, true, timeZone, previousMs);
}
