// A namespace's state as the shared sandbox keeps it in Redis, and its loading.
//
// Durable (written before the answer that shows it): the records, as a snapshot of the collections
// the namespace changed (the others are the seeded fixtures, which every node has) plus a log of
// changes since, and the "durable parts": the clock and every part but the journal (scenario
// definitions and activations, report schedules, webhook behaviour), written whole in a log entry
// whenever a control call changed them. Each such entry carries a generation, one more each time.
// Volatile (written a few times a second, volatile.ts): the journal, and the parts again with their
// step counters, applied at load only when their generation is the durable one's (so a counter
// written before a later activation never brings back the older sequence).
import type { ClockState } from '../clock.js';
import { JOURNAL } from '../journal/journal.js';
import type { Namespace } from '../namespace/namespace.js';
import type { LogChange } from '../store/persistence-load.js';
import { Replayer } from '../store/persistence-load.js';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from '../store/records.js';
import type { Store } from '../store/store.js';

/** The clock and the parts but the journal, with their generation. */
export interface DurableParts {
  clock: ClockState;
  parts: Record<string, unknown>;
  gen: number;
}

export interface Snapshot {
  v: 1;
  seed: number;
  /** The collections the namespace changed; the others are the fixtures'. */
  own: Partial<StoreData['collections']>;
  state: DurableParts;
}

/** One write: record changes and/or the durable parts as they now are. */
export interface LogEntry {
  c?: LogChange[];
  p?: DurableParts;
}

/** Parts written a few times a second, with the durable generation they belong to. */
export interface VolatileState {
  gen: number;
  parts: Record<string, unknown>;
  /** Wall clock of the write (GET /_sandbox/namespaces shows it for a namespace nobody holds). */
  at: string;
}

export interface JournalMeta {
  last_id: number;
  dropped: number;
}

/** What Redis holds of one namespace, as read in one round trip. */
export interface StoredNamespace {
  snap: string | null;
  log: string[];
  volatile: string | null;
  journal: Buffer[];
  journalMeta: string | null;
  registered: boolean;
}

/** Journal entries packed in one buffer, each behind its length (4 bytes): one list element per write. */
export function packRecords(records: readonly Buffer[]): Buffer {
  let length = 0;
  for (const record of records) length += 4 + record.length;
  const packed = Buffer.allocUnsafe(length);
  let at = 0;
  for (const record of records) {
    packed.writeUInt32LE(record.length, at);
    record.copy(packed, at + 4);
    at += 4 + record.length;
  }
  return packed;
}

export function unpackRecords(chunks: readonly Buffer[]): Buffer[] {
  const records: Buffer[] = [];
  for (const chunk of chunks) {
    for (let at = 0; at + 4 <= chunk.length; ) {
      const length = chunk.readUInt32LE(at);
      records.push(chunk.subarray(at + 4, at + 4 + length));
      at += 4 + length;
    }
  }
  return records;
}

/** The parts of a namespace but its journal (which follows on its own), as exported now. */
export function partsOf(ns: Namespace): Record<string, unknown> {
  return ns.exportParts([JOURNAL.name]);
}

export function durablePartsOf(ns: Namespace, gen: number): DurableParts {
  return { clock: ns.clock.snapshot(), parts: partsOf(ns), gen };
}

/**
 * What a control call can change of the durable parts, as text: the clock, scenario definitions and
 * activations (without the calls counted), webhook behaviour. Step counters and other state the API
 * moves on its own are left out: they follow asynchronously.
 */
export function fingerprintOf(ns: Namespace): string {
  const parts = partsOf(ns) as {
    scenarios?: { defined?: unknown[]; active?: Array<Record<string, unknown>> };
    webhooks?: { behaviour?: unknown };
  };
  const active = parts.scenarios?.active?.map(({ calls: _calls, ...rest }) => rest);
  return JSON.stringify([ns.clock.snapshot(), parts.scenarios?.defined, active, parts.webhooks?.behaviour]);
}

export function encodeSnapshot(store: Store, parts: DurableParts): string {
  const snapshot: Snapshot = { v: 1, seed: store.seed, own: store.ownCollections(), state: parts };
  return JSON.stringify(snapshot);
}

/** A namespace's state as stored, decoded: the collections it has of its own (the rest are the fixtures'), the durable parts, the rest. */
export interface DecodedNamespace {
  own: Partial<StoreData['collections']>;
  parts: DurableParts | null;
  volatile: VolatileState | null;
  journal: { records: Buffer[]; meta: JournalMeta } | null;
  /** The log's length and size (compaction follows them). */
  logLength: number;
  logChars: number;
  snapChars: number;
}

/**
 * Decodes what Redis holds: the snapshot, then the log replayed in order (a collection the log
 * changes but the snapshot does not hold starts as a deep copy of the fixtures': records are
 * changed in place later, and the fixtures are shared by every namespace).
 */
export function decodeNamespace(stored: StoredNamespace, template: Store, seed: number): DecodedNamespace {
  const snapshot = stored.snap ? (JSON.parse(stored.snap) as Snapshot) : null;
  if (snapshot && snapshot.seed !== seed) {
    throw new Error(`its state in Redis was made with seed ${snapshot.seed}, this node has --seed ${seed}: every node of a shared sandbox needs the same seed`);
  }
  const collections: Partial<Record<CollectionName, unknown[]>> = { ...(snapshot?.own ?? {}) };
  const data = { schema_version: 1, seed, collections } as unknown as StoreData;
  const replayer = new Replayer(data);
  let parts = snapshot?.state ?? null;
  let logChars = 0;
  for (const text of stored.log) {
    logChars += text.length;
    const entry = JSON.parse(text) as LogEntry;
    for (const change of entry.c ?? []) {
      const name = change.c as CollectionName;
      if (!(name in collections)) collections[name] = structuredClone(template.collections[name].all()) as unknown[];
      replayer.apply(change);
    }
    if (entry.p) parts = entry.p;
  }
  replayer.finish();
  for (const name of Object.keys(collections)) if (!COLLECTION_NAMES.includes(name as CollectionName)) delete collections[name as CollectionName];
  return {
    own: data.collections,
    parts,
    volatile: stored.volatile ? (JSON.parse(stored.volatile) as VolatileState) : null,
    journal: stored.journalMeta ? { records: unpackRecords(stored.journal), meta: JSON.parse(stored.journalMeta) as JournalMeta } : null,
    logLength: stored.log.length,
    logChars,
    snapChars: stored.snap?.length ?? 0,
  };
}

/**
 * Brings a namespace whose records are in place to the decoded state: the durable parts (a fresh
 * namespace's when none were written), then the volatile ones when of the same generation, then
 * the journal. Returns the generation.
 */
export function applyParts(ns: Namespace, decoded: DecodedNamespace): number {
  const gen = decoded.parts?.gen ?? 0;
  if (decoded.parts) ns.importParts(decoded.parts);
  const volatile = decoded.volatile;
  if (volatile && volatile.gen === gen) ns.importParts({ clock: ns.clock.snapshot(), parts: { ...partsOf(ns), ...volatile.parts } });
  if (decoded.journal) ns.part(JOURNAL).importRecords(decoded.journal.records, decoded.journal.meta.last_id, decoded.journal.meta.dropped);
  return gen;
}
