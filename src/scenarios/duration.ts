// Durations as people write them in scenario files and clock requests: "500ms", "5s", "2m", "1h30m",
// "1d", "1w". Whole units only, so a value always means the same number of milliseconds.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A JSON-schema pattern for duration strings (one or more number+unit parts). */
export const DURATION_PATTERN = '^([0-9]+(ms|s|m|h|d|w))+$';
const PART = /([0-9]+)(ms|s|m|h|d|w)/g;

/** Milliseconds of a duration string; null when it is not one. */
export function parseDuration(text: string): number | null {
  if (!new RegExp(DURATION_PATTERN).test(text)) return null;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * UNIT_MS[unit];
  return Number.isSafeInteger(total) ? total : null;
}

/** A duration given as milliseconds (number) or as a duration string. */
export function durationMs(value: number | string): number {
  if (typeof value === 'number') return value;
  const ms = parseDuration(value);
  if (ms === null) throw new Error(`'${value}' is not a duration such as 500ms, 5s, 2m, 1h or 1d`);
  return ms;
}
