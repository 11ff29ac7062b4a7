// The contract comparison's date-time check: its quick look at toISOString()'s form accepts only
// what ajv-formats accepts, and every answer is ajv-formats' own. And what the compare worker's
// first reading of an upstream body as Latin-1 relies on: no format refuses a string as sent (UTF-8)
// and accepts it read as Latin-1, and the formats openapi.json declares refuse both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

describe('a string with characters beyond ASCII, read as UTF-8 or as Latin-1', () => {
  // Valid values of each kind, with letters beyond ASCII put in or around them.
  const VALUES = [
    '2026-12-06T10:00:00.000Z',
    'd5a28ab3-4245-46fe-a37b-f09dddd6218c',
    'https://example.com/päth?q=1',
    'someone@example.com',
    'example.com',
    '192.168.0.1',
    '2024-02-29',
    'P1D',
    '/a/b',
    'a.*b',
  ].flatMap((valid) => [valid, `${valid}é`, `é${valid}`, valid.replace(/[0-9a]/, '٢'), valid.replace(/[a-z]/, 'ö'), `${valid}日本`, `${valid}🎁`]);
  const beyondAscii = (value: string) => [...value].some((c) => c.charCodeAt(0) > 0x7f);
  const asLatin1 = (value: string) => Buffer.from(value, 'utf8').toString('latin1');
  const declared = [...new Set([...readFileSync(join(import.meta.dirname, '../../openapi.json'), 'utf8').matchAll(/"format": *"([^"]+)"/g)].map((m) => m[1]))];

  it('is never accepted read as Latin-1 by a format that refuses it as sent', () => {
    const refusedAsSent = [];
    for (const format of Object.keys(fullFormats)) {
      for (const value of VALUES.filter(beyondAscii)) {
        if (formatAccepts(format, asLatin1(value))) expect({ format, value, asSent: formatAccepts(format, value) }).toEqual({ format, value, asSent: true });
        if (!formatAccepts(format, value)) refusedAsSent.push(format);
      }
    }
    expect(new Set(refusedAsSent).size).toBeGreaterThanOrEqual(10); // most formats refuse some of them: the check is not empty
  });

  it('is refused either way by the formats openapi.json declares', () => {
    expect(declared.sort()).toEqual(['date-time', 'uri', 'uuid']);
    for (const format of declared) {
      for (const value of VALUES.filter(beyondAscii)) {
        expect({ format, value, asSent: formatAccepts(format, value), asLatin1: formatAccepts(format, asLatin1(value)) }).toEqual({
          format,
          value,
          asSent: false,
          asLatin1: false,
        });
      }
    }
  });
});
