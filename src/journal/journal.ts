// The request journal: what each namespace's clients sent and what they got back, bounded both in
// entries (config.journalSize) and in bytes (JOURNAL_BYTE_BUDGET), so a long CI run cannot exhaust
// memory: the oldest entries are dropped first.
// A journal hangs off its namespace through a WeakMap: an evicted namespace takes its journal with it,
// and the store layer does not need to know the journal exists.
import type { Namespace } from '../store/namespaces.js';
import { bodyOf, queryOf, redactHeaders, redactText } from './redact.js';

export interface JournalEntry {
  /** Increasing per namespace, never reused (clearing the journal does not restart it). */
  id: number;
  /** The namespace clock when the request arrived, RFC 3339. */
  timestamp: string;
  namespace: string;
  method: string;
  /** The API path, without the /ns/{name} prefix. */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  status: number;
  response_body: unknown;
  duration_ms: number;
  operation_id: string | null;
  scenario: string | null;
  request_id: string;
}

/**
 * What recording a request keeps: raw text, parsed and redacted only when the journal is read, so
 * the request path pays for a few references, not for parsing and copying bodies.
 */
export interface RawJournalEntry {
  timestamp: string;
  namespace: string;
  method: string;
  path: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** At most MAX_BODY_CHARS: a longer body is kept as its prefix, with its whole length beside it. */
  requestText: string;
  requestLength?: number;
  requestContentType: string | null;
  status: number;
  responseText: string;
  responseLength?: number;
  responseContentType: string | null;
  duration_ms: number;
  operation_id: string | null;
  scenario: string | null;
  request_id: string;
}

function materialize(id: number, raw: RawJournalEntry): JournalEntry {
  return {
    id,
    timestamp: raw.timestamp,
    namespace: raw.namespace,
    method: raw.method,
    path: raw.path,
    query: queryOf(raw.url),
    headers: redactHeaders(raw.headers),
    body: bodyOf(raw.requestText, raw.requestContentType, raw.requestLength),
    status: raw.status,
    response_body: bodyOf(raw.responseText, raw.responseContentType, raw.responseLength),
    duration_ms: raw.duration_ms,
    operation_id: raw.operation_id,
    scenario: raw.scenario,
    request_id: raw.request_id,
  };
}

interface Slot {
  id: number;
  raw: RawJournalEntry | null;
  entry: JournalEntry | null;
  bytes: number;
}

export interface JournalFilter {
  method?: string;
  /** Exact API path, or a pattern where `*` matches any run of characters. */
  path?: string;
  operation_id?: string;
  /** 404, or a class such as 4xx. */
  status?: string;
}

/** Most bytes (bodies and headers, as JSON text) one namespace's journal holds. */
export const JOURNAL_BYTE_BUDGET = 16 * 1024 * 1024;

export class Journal {
  // A queue: entries[start..] are kept, oldest first; the dropped head is compacted away now and then.
  private entriesOldestFirst: Slot[] = [];
  private start = 0;
  private bytes = 0;
  private seq = 0;
  private droppedCount = 0;

  constructor(
    readonly capacity: number,
    readonly byteBudget = JOURNAL_BYTE_BUDGET,
  ) {}

  get size(): number {
    return this.entriesOldestFirst.length - this.start;
  }

  /** Entries dropped because the journal was full, since the namespace was created. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** `bytes`: the entry's approximate size (its bodies and headers as text). */
  add(raw: RawJournalEntry, bytes = 0): void {
    const id = ++this.seq;
    if (this.capacity <= 0) return;
    // The one secret a response can carry (a generated private key) never waits in memory.
    if (raw.responseText.includes('"private_key"')) raw.responseText = redactText(raw.responseText);
    // A private key sent by mistake (say, as public_key) is dropped now too, not only when read.
    if (raw.requestText.includes('PRIVATE KEY-----')) raw.requestText = redactText(raw.requestText);
    this.entriesOldestFirst.push({ id, raw, entry: null, bytes });
    this.bytes += bytes;
    while (this.size > this.capacity || (this.bytes > this.byteBudget && this.size > 1)) {
      this.bytes -= this.entriesOldestFirst[this.start].bytes;
      this.start++;
      this.droppedCount++;
    }
    if (this.start > 1024 && this.start * 2 > this.entriesOldestFirst.length) {
      this.entriesOldestFirst = this.entriesOldestFirst.slice(this.start);
      this.start = 0;
    }
  }

  /** Newest first. */
  entries(): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = this.entriesOldestFirst.length - 1; i >= this.start; i--) {
      const slot = this.entriesOldestFirst[i];
      if (!slot.entry) {
        slot.entry = materialize(slot.id, slot.raw as RawJournalEntry);
        slot.raw = null;
      }
      out.push(slot.entry);
    }
    return out;
  }

  clear(): void {
    this.entriesOldestFirst = [];
    this.start = 0;
    this.bytes = 0;
  }
}

const journals = new WeakMap<Namespace, Journal>();

/** The namespace's journal, made on first use with `capacity` entries. */
export function journalOf(ns: Namespace, capacity: number): Journal {
  let journal = journals.get(ns);
  if (!journal) {
    journal = new Journal(capacity);
    journals.set(ns, journal);
  }
  return journal;
}

/** The journal of a namespace if it has one (reading must not make one). */
export function existingJournalOf(ns: Namespace): Journal | undefined {
  return journals.get(ns);
}

export function matchesFilter(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.method && entry.method !== filter.method.toUpperCase()) return false;
  if (filter.operation_id && entry.operation_id !== filter.operation_id) return false;
  if (filter.path && !pathMatches(filter.path, entry.path)) return false;
  if (filter.status && !statusMatches(filter.status, entry.status)) return false;
  return true;
}

function pathMatches(pattern: string, path: string): boolean {
  if (!pattern.includes('*')) return pattern === path;
  const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return regex.test(path);
}

function statusMatches(wanted: string, status: number): boolean {
  const cls = /^([1-5])xx$/i.exec(wanted);
  return cls ? Math.floor(status / 100) === Number(cls[1]) : Number(wanted) === status;
}
