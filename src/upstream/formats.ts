// The format checks of the contract comparison: ajv-formats' own (full mode), each found once. A
// date-time in the form toISOString() writes (most of them: a list page holds about a hundred) is
// accepted after one regular expression and a few comparisons, where ajv-formats splits the string
// and runs two more; every other form, and every value the quick look does not accept, goes to
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

/** YYYY-MM-DDTHH:MM:SS[.fraction]Z, as toISOString() writes it. */
const ISO_UTC = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?Z$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True only for values ajv-formats' date-time accepts too (a real day, a time before 24:00 without a leap second); false: ask it. */
export function isoUtcDateTime(value: string): boolean {
  const m = ISO_UTC.exec(value);
  if (!m) return false;
  const [year, month, day] = [+m[1], +m[2], +m[3]];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && leap ? 29 : DAYS[month])) return false;
  return +m[4] <= 23 && +m[5] <= 59 && +m[6] <= 59;
}
