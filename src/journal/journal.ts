// The request journal: what each namespace's clients sent and what they got back, bounded both in
// entries (config.journalSize) and in bytes (JOURNAL_BYTE_BUDGET), so a long CI run cannot exhaust
// memory: the oldest entries are dropped first. Entries are kept encoded in one buffer (byte-ring.ts)
// and turned back into objects only when the journal is read.
// A journal is a part of its namespace (namespace/part.ts): an evicted namespace takes its journal
// with it, a reset keeps it, and it travels with the namespace's exported state.
import type { PartKind } from '../namespace/namespace.js';
import { type NamespacePart, PartKey } from '../namespace/part.js';
import { ByteRing } from './byte-ring.js';
import { decode, decodeWithoutBodies, encode } from './codec.js';
import { type JournalEntry, type JournalSummary, type JournalView, materialize, type RawJournalEntry, summarize } from './entry.js';
import type { FilteredFields } from './filters.js';
import { PRIVATE_KEY_FIELD, pathWithoutSecrets, redactText, requestTextWithoutSecrets, urlWithoutSecrets } from './redact.js';
import { checkJournalState, type JournalState } from './state.js';

/** Most bytes one namespace's journal holds (its entries, encoded: bodies, headers and fields). */
export const JOURNAL_BYTE_BUDGET = 16 * 1024 * 1024;

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
      raw.responseMayHoldPrivateKey && raw.responseText.includes(PRIVATE_KEY_FIELD) ? redactText(raw.responseText.toString()) : raw.responseText;
    // What the client sent loses its secrets now (bearer credentials and JWTs in the path, query and
    // body, private keys), not only when read: the stored entry is what the state export and a shared
    // sandbox's Redis get. A cheap look each when there are none (mayHoldToken).
    const requestText = requestTextWithoutSecrets(raw.requestText, raw.requestContentType, raw.requestLength);
    const { buffer, length } = encode(raw, urlWithoutSecrets(raw.url), pathWithoutSecrets(raw.path), requestText, responseText);
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

/** Every namespace's journal. */
export const JOURNAL = new PartKey<Journal>('journal');
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
