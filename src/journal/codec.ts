// How a journal entry is kept in the journal's byte ring (byte-ring.ts): three UTF-8 parts behind
// their byte lengths, the small fields joined by NUL first, then the request and response bodies.
import type { RawJournalEntry } from './entry.js';

// An entry is stored as three UTF-8 parts behind their byte lengths: the small fields, then the
// request body text, then the response body text.
const PART_LENGTHS = 12;

/**
 * The entry's fields other than its bodies, in the order they are encoded (one list for both ways),
 * with how each is written: `text` as it is (`client text` when the client chose it, and may have
 * slipped a NUL in), `nullable` with null as '' (no such field is ever empty when present, and ''
 * means nothing to a reader either), numbers as decimal text.
 */
const FIELDS = {
  timestamp: 'text',
  namespace: 'text',
  method: 'text',
  path: 'client text',
  url: 'client text',
  headerLines: 'client text',
  requestLength: 'number?',
  requestContentType: 'nullable',
  status: 'number',
  responseLength: 'number?',
  responseContentType: 'nullable',
  // Ours, or a scenario file's (its headers are checked strings); a rewritten answer's could be anything.
  responseHeaderLines: 'client text',
  duration_ms: 'number',
  operation_id: 'nullable',
  // A header value (Node and fetch refuse a NUL in one); never empty: an empty header means `default`.
  merchant_account_id: 'nullable',
  scenario: 'nullable',
  request_id: 'text',
  scenarioNote: 'nullable',
  // Last: an entry encoded before it was kept decodes with none (the sandbox answered).
  answeredBy: 'nullable',
} as const satisfies Partial<Record<keyof RawJournalEntry, 'text' | 'client text' | 'nullable' | 'number' | 'number?'>>;
const FIELD_NAMES = Object.keys(FIELDS) as (keyof typeof FIELDS)[];

// Fields are joined with NUL, which no field can hold: Node's HTTP parser and the fetch Headers
// refuse it in header values, and URLs carry it only percent-encoded. A field that holds one anyway
// (an in-process caller's odd URL) has it replaced, so it cannot shift the fields after it. A join
// costs a twentieth of JSON.stringify of the same values, which has to escape every string.
const SEPARATOR = '\u0000';

/** `url`, `path`: the entry's, secrets removed (raw.url and raw.path are what the client sent). */
function encodeFields(raw: RawJournalEntry, url: string, path: string): string {
  let text = '';
  for (let i = 0; i < FIELD_NAMES.length; i++) {
    const name = FIELD_NAMES[i];
    const value = name === 'url' ? url : name === 'path' ? path : raw[name];
    let part = value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value);
    if (FIELDS[name] === 'client text' && part.includes(SEPARATOR)) part = part.replaceAll(SEPARATOR, '\uFFFD');
    text += i > 0 ? SEPARATOR + part : part;
  }
  return text;
}

function decodeFields(text: string, raw: Record<string, unknown>): void {
  const parts = text.split(SEPARATOR);
  FIELD_NAMES.forEach((name, i) => {
    const part = parts[i] ?? '';
    switch (FIELDS[name]) {
      case 'text':
      case 'client text':
        raw[name] = part;
        break;
      case 'nullable':
        raw[name] = part === '' ? null : part;
        break;
      case 'number':
        raw[name] = Number(part);
        break;
      case 'number?':
        if (part !== '') raw[name] = Number(part); // absent, not null, when not recorded
        break;
    }
  });
}

export function decode(record: Buffer): RawJournalEntry {
  const fieldsEnd = PART_LENGTHS + record.readUInt32LE(0);
  const requestEnd = fieldsEnd + record.readUInt32LE(4);
  const responseEnd = requestEnd + record.readUInt32LE(8);
  const raw: Record<string, unknown> = {
    requestText: record.toString('utf8', fieldsEnd, requestEnd),
    responseText: record.toString('utf8', requestEnd, responseEnd),
  };
  decodeFields(record.toString('utf8', PART_LENGTHS, fieldsEnd), raw);
  return raw as unknown as RawJournalEntry;
}

/** The fields of an entry without its bodies (a summary needs no body text decoded). */
export function decodeWithoutBodies(record: Buffer): RawJournalEntry {
  const raw: Record<string, unknown> = { requestText: '', responseText: '' };
  decodeFields(record.toString('utf8', PART_LENGTHS, PART_LENGTHS + record.readUInt32LE(0)), raw);
  return raw as unknown as RawJournalEntry;
}

/**
 * Where an entry is encoded before it is copied into its ring: writing UTF-8 tells the byte length
 * as it goes, where reserving the exact room first would take a measuring pass over every text.
 * Shared by every journal (one request is recorded at a time); grows to the largest entry seen.
 */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

function scratchFor(maxBytes: number): Buffer {
  if (scratch.length < maxBytes) scratch = Buffer.allocUnsafeSlow(Math.max(maxBytes, scratch.length * 2));
  return scratch;
}

/**
 * The entry encoded as the ring keeps it, in a scratch buffer valid until the next entry is
 * encoded: `url`, `path` and the texts are the entry's with secrets already removed.
 */
export function encode(
  raw: RawJournalEntry,
  url: string,
  path: string,
  requestText: string,
  responseText: string | Buffer,
): { buffer: Buffer; length: number } {
  const fields = encodeFields(raw, url, path);
  // At most 3 UTF-8 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2); bytes are as long as they are.
  const responseMax = typeof responseText === 'string' ? 3 * responseText.length : responseText.length;
  const buffer = scratchFor(PART_LENGTHS + 3 * (fields.length + requestText.length) + responseMax);
  const fieldBytes = buffer.write(fields, PART_LENGTHS);
  const requestBytes = buffer.write(requestText, PART_LENGTHS + fieldBytes);
  const responseAt = PART_LENGTHS + fieldBytes + requestBytes;
  const responseBytes = typeof responseText === 'string' ? buffer.write(responseText, responseAt) : responseText.copy(buffer, responseAt);
  buffer.writeUInt32LE(fieldBytes, 0);
  buffer.writeUInt32LE(requestBytes, 4);
  buffer.writeUInt32LE(responseBytes, 8);
  return { buffer, length: PART_LENGTHS + fieldBytes + requestBytes + responseBytes };
}
