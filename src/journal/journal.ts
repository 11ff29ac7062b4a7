// The request journal: what each namespace's clients sent and what they got back, bounded both in
// entries (config.journalSize) and in bytes (JOURNAL_BYTE_BUDGET), so a long CI run cannot exhaust
// memory: the oldest entries are dropped first. Entries are kept encoded in one buffer (byte-ring.ts)
// and turned back into objects only when the journal is read.
// A journal is a part of its namespace (namespace/part.ts): an evicted namespace takes its journal
// with it, a reset keeps it, and it travels with the namespace's exported state.
import type { PartKind } from '../namespace/namespace.js';
import { type NamespacePart, PartKey } from '../namespace/part.js';
import { ByteRing } from './byte-ring.js';
import { bodyOf, pathWithoutSecrets, queryOf, redactHeaders, redactText, requestTextWithoutSecrets, urlWithoutSecrets } from './redact.js';

export interface JournalEntry {
  /** Increasing per namespace, never reused (clearing the journal does not restart it). */
  id: number;
  /** The namespace clock when the request arrived, RFC 3339. */
  timestamp: string;
  namespace: string;
  method: string;
  /** The API path, without the /ns/{name} prefix. */
  path: string;
  /** The URL as the client asked for it: scheme and host as the sandbox was reached, /ns/{name} prefix and query included (a bearer credential or a JWT in the path, a query value or name redacted). */
  url: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  status: number;
  /** The headers the sandbox set on its answer (not those Node adds when writing it: date, connection, content-length). */
  response_headers: Record<string, string>;
  response_body: unknown;
  duration_ms: number;
  operation_id: string | null;
  /** The merchant account the request acted on (or was refused for); null when it never got that far (an unknown path, a misnamed merchant account header). */
  merchant_account_id: string | null;
  scenario: string | null;
  request_id: string;
  /** Present when a scenario answered with a status the operation does not declare (429 or 5xx, as infrastructure would). */
  outside_contract?: true;
  /** Present when the operation ran but a scenario lost its answer: what the operation answered; the client got `status` instead. */
  lost_answer?: { status: number; body: unknown };
}

/** An entry without its headers and bodies: what a list of requests shows (view=summary). */
export type JournalSummary = Omit<JournalEntry, 'headers' | 'body' | 'response_headers' | 'response_body'>;

/**
 * What recording a request keeps: raw text, parsed only when the journal is read, so the request
 * path pays for a few references, not for parsing and copying bodies. Secrets the client sent are
 * gone from it once added (Journal.add): what is stored, exported or shared holds none.
 */
export interface RawJournalEntry {
  timestamp: string;
  namespace: string;
  method: string;
  path: string;
  url: string;
  /** `name: value` lines, one a header (a repeated header on several lines); secrets already replaced. */
  headerLines: string;
  /** At most MAX_BODY_CHARS: a longer body is kept as its prefix, with its whole length beside it. */
  requestText: string;
  requestLength?: number;
  requestContentType: string | null;
  status: number;
  /** The answer's headers as `name: value` lines, as headerLines (absent in states exported before they were kept). */
  responseHeaderLines?: string;
  /** The response body: text, or UTF-8 bytes (an answer the sandbox sent as bytes), at most MAX_BODY_CHARS characters. */
  responseText: string | Buffer;
  responseLength?: number;
  responseContentType: string | null;
  /**
   * Whether the response text may carry a private key (a generated key pair's answer, or an answer
   * not made by the sandbox): only those are searched for one before being kept. Not stored.
   */
  responseMayHoldPrivateKey: boolean;
  duration_ms: number;
  operation_id: string | null;
  merchant_account_id?: string | null;
  scenario: string | null;
  request_id: string;
  /** What a scenario did beyond its name, as JSON text (ScenarioNote); absent for most requests. */
  scenarioNote?: string | null;
}

/** What the journal says of a scenario's answer beside its name (kept as JSON text in RawJournalEntry.scenarioNote). */
export interface ScenarioNote {
  outside_contract?: true;
  /** The answer a scenario lost (the operation ran): status, JSON text (at most MAX_BODY_CHARS) and its whole length. */
  lost?: { status: number; text: string; length: number };
}

/** The headers of `headerLines`: a header on several lines gets its values joined with ", ". */
function headersOfLines(lines: string): Record<string, string> {
  const headers: Record<string, string> = Object.create(null); // a header may be named __proto__
  for (const line of lines.split('\n')) {
    const colon = line.indexOf(': ');
    if (colon < 0) continue;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 2);
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

function materialize(id: number, raw: RawJournalEntry): JournalEntry {
  const entry: JournalEntry = {
    ...summarize(id, raw),
    headers: redactHeaders(headersOfLines(raw.headerLines)),
    body: bodyOf(raw.requestText, raw.requestContentType, raw.requestLength, true),
    response_headers: redactHeaders(headersOfLines(raw.responseHeaderLines ?? '')),
    response_body: bodyOf(raw.responseText.toString(), raw.responseContentType, raw.responseLength),
  };
  const lost = raw.scenarioNote ? noteOf(raw.scenarioNote)?.lost : undefined;
  if (lost) entry.lost_answer = { status: lost.status, body: bodyOf(String(lost.text), 'application/json', lost.length) };
  return entry;
}

/** A note as recorded; an imported one that is not a note says nothing. */
function noteOf(text: string): ScenarioNote | null {
  try {
    const note = JSON.parse(text) as ScenarioNote;
    return note && typeof note === 'object' ? note : null;
  } catch {
    return null;
  }
}

function summarize(id: number, raw: RawJournalEntry): JournalSummary {
  const summary: JournalSummary = {
    id,
    timestamp: raw.timestamp,
    namespace: raw.namespace,
    method: raw.method,
    path: pathWithoutSecrets(raw.path),
    url: urlWithoutSecrets(raw.url),
    query: queryOf(raw.url),
    status: raw.status,
    duration_ms: raw.duration_ms,
    operation_id: raw.operation_id,
    merchant_account_id: raw.merchant_account_id ?? null,
    scenario: raw.scenario,
    request_id: raw.request_id,
  };
  if (raw.scenarioNote && noteOf(raw.scenarioNote)?.outside_contract) summary.outside_contract = true;
  return summary;
}

/** How much of each entry a reader wants: everything, or the summary a list shows. */
export type JournalView = 'full' | 'summary';

export interface JournalFilter {
  method?: string;
  /** Exact API path, or a pattern where `*` matches any run of characters. */
  path?: string;
  operation_id?: string;
  /** 404, or a class such as 4xx. */
  status?: string;
  /** The scenario that answered or shaped the response. */
  scenario?: string;
  merchant_account_id?: string;
}

/** Most bytes one namespace's journal holds (its entries, encoded: bodies, headers and fields). */
export const JOURNAL_BYTE_BUDGET = 16 * 1024 * 1024;

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

function decode(record: Buffer): RawJournalEntry {
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
function decodeWithoutBodies(record: Buffer): RawJournalEntry {
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

/** What a journal tells of its changes (feed.ts); only when someone is watching. */
export interface JournalFeedLike {
  /** True while a watcher is connected: the one thing a journal looks at per entry otherwise. */
  readonly watching: boolean;
  changed(journal: Journal, namespace: string): void;
}

export class Journal implements NamespacePart {
  private readonly ring: ByteRing;
  private seq = 0;
  private droppedCount = 0;
  private generationCount = 0;
  private droppedWithNamespace = false;
  private feed: JournalFeedLike | null = null;
  private namespace = '';

  constructor(
    readonly capacity: number,
    readonly byteBudget = JOURNAL_BYTE_BUDGET,
  ) {
    this.ring = new ByteRing(byteBudget);
  }

  get size(): number {
    return this.ring.count;
  }

  /** Entries dropped because the journal was full, since the namespace was created. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Bytes of the entries held, encoded: at most the byte budget (or one entry larger than it). */
  get bytes(): number {
    return this.ring.bytes;
  }

  /** Bytes the journal's buffer holds now: at most the byte budget plus its largest entry. */
  get allocatedBytes(): number {
    return this.ring.allocatedBytes;
  }

  add(raw: RawJournalEntry): void {
    this.seq++;
    if (this.capacity <= 0) return;
    // The one secret a response can carry (a generated private key) never waits in memory.
    const responseText =
      raw.responseMayHoldPrivateKey && raw.responseText.includes('"private_key"') ? redactText(raw.responseText.toString()) : raw.responseText;
    // What the client sent loses its secrets now (bearer credentials and JWTs in the path, query and
    // body, private keys), not only when read: the stored entry is what the state export and a shared
    // sandbox's Redis get. A cheap look each when there are none (mayHoldToken).
    const requestText = requestTextWithoutSecrets(raw.requestText, raw.requestContentType, raw.requestLength);
    const fields = encodeFields(raw, urlWithoutSecrets(raw.url), pathWithoutSecrets(raw.path));
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
    const length = PART_LENGTHS + fieldBytes + requestBytes + responseBytes;
    const before = this.ring.count;
    // The oldest entry goes when the entry count is reached; others only when the byte budget really is (byte-ring.ts).
    if (before >= this.capacity) this.ring.dropOldest();
    const { buffer: ring, offset } = this.ring.reserve(length);
    buffer.copy(ring, offset, 0, length);
    this.droppedCount += before + 1 - this.ring.count;
    if (this.feed?.watching) this.feed.changed(this, this.namespace);
  }

  private replaced(): void {
    this.generationCount++;
    if (this.feed?.watching) this.feed.changed(this, this.namespace);
  }

  /** Newest first. Ids are consecutive: the newest entry has the last id given. */
  entries(): JournalEntry[];
  entries(view: 'summary'): JournalSummary[];
  entries(view: JournalView): JournalEntry[] | JournalSummary[];
  entries(view: JournalView = 'full'): JournalEntry[] | JournalSummary[] {
    const out = [];
    const count = this.ring.count;
    for (let i = count - 1; i >= 0; i--) out.push(this.entryAt(i, view));
    return out;
  }

  /** The id of the newest entry given (0 before the first). */
  get lastId(): number {
    return this.seq;
  }

  /** Grows each time the entries are cleared or replaced (an import): a reader's position in them is then void. */
  get generation(): number {
    return this.generationCount;
  }

  /** The entry with that id, as the view asks, if the journal still holds it. */
  entry(id: number, view: JournalView): JournalEntry | JournalSummary | undefined {
    const index = this.ring.count - 1 - (this.seq - id);
    if (!Number.isInteger(index) || index < 0 || index >= this.ring.count) return undefined;
    return this.entryAt(index, view);
  }

  /**
   * The fields a filter looks at of the entry with that id, decoded without its bodies, headers or
   * query (a follower tests many entries and shows few); undefined when no longer held.
   */
  filterFields(id: number): FilteredFields | undefined {
    const index = this.ring.count - 1 - (this.seq - id);
    if (!Number.isInteger(index) || index < 0 || index >= this.ring.count) return undefined;
    const raw = decodeWithoutBodies(this.ring.record(index));
    raw.merchant_account_id ??= null;
    return raw as FilteredFields;
  }

  /** Tells `feed` of every entry added from now on, and of every clear or import (feed.ts). */
  announceTo(feed: JournalFeedLike, namespace: string): void {
    this.feed = feed;
    this.namespace = namespace;
  }

  private entryAt(index: number, view: JournalView): JournalEntry | JournalSummary {
    const id = this.seq - (this.ring.count - 1 - index);
    const record = this.ring.record(index);
    return view === 'summary' ? summarize(id, decodeWithoutBodies(record)) : materialize(id, decode(record));
  }

  clear(): void {
    this.ring.clear();
    this.replaced();
  }

  /**
   * The encoded entries newer than `id`, oldest first, as views of the journal's buffer: valid
   * until the next entry is added, so copy them at once (a shared sandbox sends them to Redis as
   * they are, a few times a second: no decoding, no JSON).
   */
  recordsAfter(id: number): Buffer[] {
    const count = this.ring.count;
    const first = Math.max(0, count - (this.seq - id));
    const out: Buffer[] = [];
    for (let i = first; i < count; i++) out.push(this.ring.record(i));
    return out;
  }

  /** Entries recordsAfter() gave, oldest first, as the journal's whole content; `lastId` is the newest one's id. */
  importRecords(records: readonly Buffer[], lastId: number, dropped: number): void {
    this.ring.clear();
    for (const record of records.slice(-this.capacity)) {
      const { buffer, offset } = this.ring.reserve(record.length);
      record.copy(buffer, offset);
    }
    this.seq = Math.max(lastId, this.ring.count);
    this.droppedCount = dropped;
    this.replaced();
  }

  /** Its namespace was dropped (deleted, evicted, handed over): a follower hears it as a journal replaced. */
  dispose(): void {
    if (this.droppedWithNamespace) return;
    this.droppedWithNamespace = true;
    this.replaced();
  }

  /** Whether its namespace was dropped: it gets no more entries. */
  get disposed(): boolean {
    return this.droppedWithNamespace;
  }

  /** A reset keeps the journal: a test can still read what its client sent (POST /_sandbox/reset?journal=true clears it). */
  reset(): void {}

  exportState(): JournalState {
    const entries: RawJournalEntry[] = [];
    for (let i = 0; i < this.ring.count; i++) entries.push(decode(this.ring.record(i))); // oldest first
    return { last_id: this.seq, dropped: this.droppedCount, entries };
  }

  prepareImport(state: unknown): () => void {
    const checked = state === null ? { last_id: 0, dropped: 0, entries: [] } : checkJournalState(state);
    return () => {
      this.ring.clear();
      this.seq = checked.last_id - checked.entries.length;
      for (const entry of checked.entries) this.add({ ...entry, responseMayHoldPrivateKey: false });
      this.seq = checked.last_id;
      this.droppedCount = checked.dropped;
      this.replaced();
    };
  }
}

/** A journal as exported: its entries oldest first, as stored (secrets the client sent already gone: see Journal.add). */
export interface JournalState {
  /** The id of the newest entry (ids are consecutive). */
  last_id: number;
  dropped: number;
  entries: RawJournalEntry[];
}

/** Every namespace's journal. */
export const JOURNAL = new PartKey<Journal>('journal');

function checkJournalState(state: unknown): JournalState {
  const s = state as Partial<JournalState> | null;
  if (!s || typeof s !== 'object' || !Array.isArray(s.entries) || !Number.isInteger(s.last_id) || !Number.isInteger(s.dropped)) {
    throw new Error('expected {last_id, dropped, entries: [...]}');
  }
  if ((s.last_id as number) < s.entries.length) throw new Error('last_id is smaller than the number of entries');
  for (const [i, entry] of s.entries.entries()) {
    const e = entry as Partial<RawJournalEntry> | null;
    if (
      !e ||
      typeof e !== 'object' ||
      typeof e.method !== 'string' ||
      typeof e.path !== 'string' ||
      typeof e.url !== 'string' ||
      typeof e.status !== 'number'
    ) {
      throw new Error(`entries[${i}] is not a recorded request`);
    }
  }
  return s as JournalState;
}

/** What a filter tests of an entry. */
export type FilteredFields = Pick<JournalSummary, 'method' | 'path' | 'status' | 'operation_id' | 'scenario' | 'merchant_account_id'>;

/** The filter as a test of entries, its path pattern compiled once (a journal holds thousands of entries). */
export function entryFilter(filter: JournalFilter): (entry: FilteredFields) => boolean {
  const method = filter.method?.toUpperCase();
  const { operation_id: operationId, scenario, merchant_account_id: merchantAccountId, status } = filter;
  const path = filter.path ? pathTest(filter.path) : null;
  return (entry) =>
    (!method || entry.method === method) &&
    (!operationId || entry.operation_id === operationId) &&
    (!scenario || entry.scenario === scenario) &&
    (!merchantAccountId || entry.merchant_account_id === merchantAccountId) &&
    (!path || path(entry.path)) &&
    (!status || statusMatches(status, entry.status));
}

/** An exact path, or a pattern where `*` matches any run of characters. */
function pathTest(pattern: string): (path: string) => boolean {
  if (!pattern.includes('*')) return (path) => path === pattern;
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (path) => regex.test(path);
}

function statusMatches(wanted: string, status: number): boolean {
  const cls = /^([1-5])xx$/i.exec(wanted);
  return cls ? Math.floor(status / 100) === Number(cls[1]) : Number(wanted) === status;
}

/**
 * The journal kind for a sandbox's namespaces: `capacity` entries each (config.journalSize). Made
 * with the namespace, so that what was set aside for it before it existed (pending.ts) is there.
 */
export function journalKind(capacity: number, pending: { handOver(name: string, journal: Journal): void }, feed: JournalFeedLike): PartKind<Journal> {
  return {
    key: JOURNAL,
    eager: true,
    create: (ns) => {
      const journal = new Journal(capacity);
      if (!ns.admitted) return journal; // the shared fresh state, or a one-request copy: no one follows those
      journal.announceTo(feed, ns.name);
      pending.handOver(ns.name, journal);
      return journal;
    },
  };
}
