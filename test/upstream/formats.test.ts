// The contract comparison's date-time check: its quick look at toISOString()'s form accepts only
// what ajv-formats accepts, and every answer is ajv-formats' own.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { formatAccepts, isoUtcDateTime } from '../../src/upstream/formats.js';

const ajvDateTime = (value: string) => (fullFormats['date-time'] as { validate: (v: string) => boolean }).validate(value);

const EDGES = [
  '2024-02-29T12:00:00Z', // a leap day
  '2023-02-29T12:00:00Z', // not one
  '1900-02-29T00:00:00Z', // a century: not a leap year
  '2000-02-29T00:00:00.000Z', // every 400 years: one
  '2026-13-01T00:00:00Z',
  '2026-00-10T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-12-00T00:00:00Z',
  '2026-12-06T24:00:00Z',
  '2026-12-06T23:60:00Z',
  '2026-12-06T23:59:60Z', // a leap second: ajv-formats accepts it, the quick look leaves it to ajv-formats
  '2026-12-06T10:00:61Z',
  '2026-12-06t10:00:00z',
  '2026-12-06T10:00:00+02:00',
  '2026-12-06T10:00:00',
  '2026-12-06 10:00:00Z',
  '2026-12-06T10:00:00.123456789Z',
  '2026-12-06T10:00:00.Z',
  '+02026-12-06T10:00:00Z',
  '2026-12-06',
  'not a date',
  '',
];

describe('date-time', () => {
  it('answers as ajv-formats does, at the edges and for any instant', () => {
    // Instants from 1600 to 2400, a step of 146 days and a few ms: every month, leap days, any time of day.
    const instants = Array.from({ length: 2_000 }, (_, i) => new Date(Date.UTC(1600, 0, 1) + i * 12_614_400_007).toISOString());
    for (const value of [...EDGES, ...instants]) {
      expect({ value, accepted: formatAccepts('date-time', value) }).toEqual({ value, accepted: ajvDateTime(value) });
      if (isoUtcDateTime(value)) expect(ajvDateTime(value)).toBe(true);
    }
    // The quick look takes the usual form itself, and leaves the rest to ajv-formats.
    expect(instants.every(isoUtcDateTime)).toBe(true);
    expect(isoUtcDateTime('2026-12-06T23:59:60Z')).toBe(false);
    expect(formatAccepts('date-time', '2026-12-06T23:59:60Z')).toBe(true);
    expect(isoUtcDateTime('2026-12-06T10:00:00+02:00')).toBe(false);
    expect(formatAccepts('date-time', '2026-12-06T10:00:00+02:00')).toBe(true);
  });

  it('checks the other formats as ajv-formats does, and accepts a format it does not know', () => {
    expect(formatAccepts('uuid', 'd5a28ab3-4245-46fe-a37b-f09dddd6218c')).toBe(true);
    expect(formatAccepts('uuid', 'd5a28ab3')).toBe(false);
    expect(formatAccepts('date', '2024-02-29')).toBe(true);
    expect(formatAccepts('date', '2023-02-29')).toBe(false);
    expect(formatAccepts('email', 'someone@example.com')).toBe(true);
    expect(formatAccepts('email', 'someone')).toBe(false);
    expect(formatAccepts('made-up', 'anything')).toBe(true);
    expect(formatAccepts('constructor', 'anything')).toBe(true); // not a format: Object.prototype's
  });
});
