// The request journal: what each namespace's clients sent and what they got back, bounded both in
// entries (config.journalSize) and in bytes (JOURNAL_BYTE_BUDGET), so a long CI run cannot exhaust
// memory: the oldest entries are dropped first.
// A journal hangs off its namespace through a WeakMap: an evicted namespace takes its journal with it,
// and the store layer does not need to know the journal exists.
import type { Namespace } from '../store/namespaces.js';

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
  private entriesOldestFirst: Array<{ entry: JournalEntry; bytes: number }> = [];
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
  add(entry: Omit<JournalEntry, 'id'>, bytes = 0): JournalEntry {
    const full: JournalEntry = { id: ++this.seq, ...entry };
    if (this.capacity <= 0) return full;
    this.entriesOldestFirst.push({ entry: full, bytes });
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
    return full;
  }

  /** Newest first. */
  entries(): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = this.entriesOldestFirst.length - 1; i >= this.start; i--) out.push(this.entriesOldestFirst[i].entry);
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
