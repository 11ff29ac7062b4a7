// The state of one namespace: lowdb data holding typed collections. In memory by default; with a
// data file, FILE is a snapshot (written whole and atomically) and every change goes to an
// append-only log FILE.log before any answer that may show it is sent (src/store/persistence.ts),
// so a PUT never rewrites a large file and a 2xx means the change is in the log. At start the log
// is replayed onto the snapshot (persistence-load.ts).
import { Low, Memory } from 'lowdb';
import { Collection } from './collection.js';
import type { RecordChecker } from './data-file-checks.js';
import { FilePersistence, type PersistenceOptions, type PersistenceStats } from './persistence.js';
import { loadDataFile } from './persistence-load.js';
import { COLLECTION_NAMES, type CollectionName, type Collections, type StoreData } from './records.js';

export type CollectionMap = { [K in CollectionName]: Collection<Collections[K] & { id: string }> };

export interface StoreOptions extends PersistenceOptions {
  /** JSON file to persist to (its change log is FILE.log); absent: memory only. */
  file?: string;
  /** The record checks of a snapshot import, run on every record of FILE and of its log at start. */
  checkRecord?: RecordChecker;
}

export class Store {
  collections!: CollectionMap;

  private constructor(
    private readonly db: Low<StoreData>,
    private readonly persistence: FilePersistence | null,
    template?: Store,
  ) {
    if (template) this.shareAll(template);
    else this.bind();
  }

  /**
   * Opens a store. With a file that exists, its data is loaded and its change log replayed (a
   * corrupt, empty or unreadable file, a record that fails `checkRecord`, or a corrupt log line
   * before the last, is an error naming it, never a silent reset); a missing file is seeded with
   * `initial()`. A snapshot is written at start only to seed
   * FILE or to fold in a log left by a crash, so a start after a graceful stop writes nothing.
   */
  static async open(initial: () => StoreData, options: StoreOptions = {}): Promise<Store> {
    if (!options.file) return Store.inMemory(initial());
    const loaded = loadDataFile(options.file, options.checkRecord ?? null);
    const persistence = new FilePersistence(options.file, loaded.data ?? initial(), {
      ...options,
      snapshotChars: loaded.snapshotChars,
      logChars: loaded.logChars,
      lastSeq: loaded.lastSeq,
    });
    const store = new Store(persistence.db, persistence);
    persistence.checkWritable();
    if (!loaded.data || loaded.logChars > 0) await persistence.snapshot();
    return store;
  }

  static inMemory(data: StoreData): Store {
    return new Store(new Low<StoreData>(new Memory<StoreData>(), data), null);
  }

  /**
   * A memory store that reads `template`'s records (the seeded fixtures, never written) until it
   * changes a collection, which then gets its own copy (Collection.sharing): a namespace that has
   * not written costs no copy of the fixtures.
   */
  static sharing(template: Store): Store {
    return new Store(new Low<StoreData>(new Memory<StoreData>(), template.data), null, template);
  }

  get data(): StoreData {
    return this.db.data;
  }

  get seed(): number {
    return this.db.data.seed;
  }

  /** Replaces the whole state (reset, snapshot import); a file-backed store writes a snapshot and empties its log. */
  replaceAll(data: StoreData): void {
    this.db.data = data;
    this.bind();
    this.persistence?.replaced();
  }

  /** Replaces the whole state with `template`'s, shared until changed (a reset of a memory store). */
  shareAll(template: Store): void {
    if (this.persistence) throw new Error('a file-backed store keeps its own records: replaceAll() it');
    const data: StoreData = { ...template.data, collections: { ...template.data.collections } };
    this.db.data = data;
    this.collections = Object.fromEntries(
      COLLECTION_NAMES.map((name) => [
        name,
        Collection.sharing(template.collections[name] as unknown as Collection<{ id: string }>, null, (rows) => {
          (data.collections as Record<string, unknown[]>)[name] = rows;
        }),
      ]),
    ) as unknown as CollectionMap;
  }

  /**
   * Writes every change made so far and resolves once it is on disk, with FILE alone holding the
   * whole state (a snapshot, when anything changed since the last one, and an empty log). Called on
   * a graceful stop.
   */
  async flush(): Promise<void> {
    await this.persistence?.flush();
  }

  /** Appends the buffered changes to the log now (no snapshot unless one is due); resolves once on disk. */
  async sync(): Promise<void> {
    await this.persistence?.sync();
  }

  /**
   * For whoever answers a request: resolves once the change log holds every change made so far
   * (rejects when that write failed: the answer must then not be a success). Undefined when there
   * is nothing to wait for, always for a memory-only store: no promise, no cost.
   */
  whenDurable(): Promise<void> | undefined {
    return this.persistence?.whenDurable();
  }

  get persistent(): boolean {
    return this.persistence !== null;
  }

  /** Counters of the file persistence (appends, snapshots, sizes); null for a memory-only store. */
  get persistenceStats(): PersistenceStats | null {
    return this.persistence?.getStats() ?? null;
  }

  private bind(): void {
    const data = this.db.data;
    for (const name of COLLECTION_NAMES) data.collections[name] ??= [];
    const listener = this.persistence?.listener() ?? null;
    this.collections = Object.fromEntries(
      COLLECTION_NAMES.map((name) => [name, new Collection(name, data.collections[name] as { id: string }[], listener)]),
    ) as unknown as CollectionMap;
  }
}
