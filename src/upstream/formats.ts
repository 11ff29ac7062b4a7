// The format checks of the contract comparison: ajv-formats' own (full mode), each found once. A
// date-time in the form toISOString() writes (most of them: a list page holds about a hundred) is
// accepted after a look at its characters, where ajv-formats splits the string and runs two regular
// expressions; every other form, and every value the quick look does not accept, goes to
// ajv-formats, so the answer is always ajv-formats' own.
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** Whether `value` is a `format` as declared; a format ajv-formats does not know is accepted. */
export function formatAccepts(format: string, value: string): boolean {
  let check = checks.get(format);
  if (!check) checks.set(format, (check = checkOf(format)));
  return check(value);
}

const checks = new Map<string, (value: string) => boolean>();

function checkOf(format: string): (value: string) => boolean {
  const own = ajvCheck(format);
  return format === 'date-time' ? (value) => isoUtcDateTime(value) || own(value) : own;
}

function ajvCheck(format: string): (value: string) => boolean {
  let check = Object.hasOwn(fullFormats, format) ? (fullFormats as Record<string, unknown>)[format] : undefined;
  if (check && typeof check === 'object' && 'validate' in check) check = (check as { validate: unknown }).validate;
  if (typeof check === 'function') return (value) => check(value) as boolean;
  if (check instanceof RegExp) return (value) => check.test(value);
  return () => true;
}

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const [DASH, COLON, DOT, T, Z, ZERO] = ['-', ':', '.', 'T', 'Z', '0'].map((c) => c.charCodeAt(0));

/**
 * True only for values ajv-formats' date-time accepts too (a real day, a time before 24:00 without a
 * leap second); false: ask it. YYYY-MM-DDTHH:MM:SS[.fraction]Z, as toISOString() writes it, read
 * character by character: a regular expression's match and its six strings were a third of the
 * contract walk (a list page holds about a hundred date-times).
 */
export function isoUtcDateTime(value: string): boolean {
  const n = value.length;
  if (n < 20 || value.charCodeAt(n - 1) !== Z || value.charCodeAt(10) !== T) return false;
  if (value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH || value.charCodeAt(13) !== COLON || value.charCodeAt(16) !== COLON) return false;
  if (n > 20 && (n === 21 || value.charCodeAt(19) !== DOT || digitsAt(value, 20, n - 21) < 0)) return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  if (year < 0 || hour < 0 || minute < 0 || second < 0) return false; // month and day: below 1 just after
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && leap ? 29 : DAYS[month])) return false;
  return hour <= 23 && minute <= 59 && second <= 59;
}

/** The number the `count` ASCII digits at `from` write, or -1 when one is not a digit. */
function digitsAt(value: string, from: number, count: number): number {
  let number = 0;
  for (let i = from; i < from + count; i++) {
    const digit = value.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}
