// The state of one namespace: lowdb data holding typed collections. In memory by default; with a
// data file, FILE is a snapshot (written whole and atomically) and every change goes to an
// append-only log FILE.log before any answer that may show it is sent (src/store/persistence.ts),
// so a PUT never rewrites a large file and a 2xx means the change is in the log. At start the log
// is replayed onto the snapshot (persistence-load.ts).
import { Low, Memory } from 'lowdb';
import { Collection, type CollectionListener } from './collection.js';
import type { DataChecker, RecordChecker } from './data-file-checks.js';
import type { Persistence } from './group-commit.js';
import { FilePersistence, type PersistenceOptions, type PersistenceStats } from './persistence.js';
import { loadDataFile } from './persistence-load.js';
import { COLLECTION_NAMES, type CollectionName, type Collections, type StoreData } from './records.js';

export type CollectionMap = { [K in CollectionName]: Collection<Collections[K] & { id: string }> };

export interface StoreOptions extends PersistenceOptions {
  /** JSON file to persist to (its change log is FILE.log); absent: memory only. */
  file?: string;
  /** The record checks of a snapshot import, run on every record of FILE and of its log at start. */
  checkRecord?: RecordChecker;
  /** The whole-state checks of an import (references), run on FILE once its log is replayed. */
  checkData?: DataChecker;
}

export class Store {
  /** The current state: its collections, all reporting to the one sink made with them (newState). */
  private state!: CollectionMap;

  private constructor(
    private readonly db: Low<StoreData>,
    private readonly persistence: Persistence | null,
    template?: Store,
    own?: Partial<StoreData['collections']>,
  ) {
    if (template) this.shareFrom(template, own);
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
    const loaded = loadDataFile(options.file, options.checkRecord ?? null, options.checkData ?? null);
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
  static sharing(template: Store, persistence: Persistence | null = null): Store {
    return new Store(new Low<StoreData>(new Memory<StoreData>(), template.data), persistence, template);
  }

  /**
   * A store that shares `template`'s collections except those `own` gives (rows loaded from
   * elsewhere: a namespace's state in Redis), with `persistence` told of every change from now on.
   */
  static partlyShared(template: Store, own: Partial<StoreData['collections']>, persistence: Persistence | null): Store {
    return new Store(new Low<StoreData>(new Memory<StoreData>(), template.data), persistence, template, own);
  }

  get collections(): CollectionMap {
    return this.state;
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
  }

  /** Replaces the whole state with `template`'s, shared until changed (a reset of a memory store). */
  shareAll(template: Store): void {
    if (this.persistence?.keepsOwnRecords) throw new Error('a file-backed store keeps its own records: replaceAll() it');
    this.shareFrom(template);
  }

  /**
   * The state becomes `template`'s collections, read until changed, except those `own` gives (rows
   * of its own).
   */
  private shareFrom(template: Store, own: Partial<StoreData['collections']> = {}): void {
    const data: StoreData = { ...template.data, collections: { ...template.data.collections } };
    this.db.data = data;
    this.newState((name, sink) => {
      const rows = own[name] as { id: string }[] | undefined;
      if (rows) {
        (data.collections as Record<string, unknown[]>)[name] = rows;
        return new Collection(name, rows, sink);
      }
      return Collection.sharing(template.collections[name] as unknown as Collection<{ id: string }>, sink, (copied) => {
        (data.collections as Record<string, unknown[]>)[name] = copied;
      });
    });
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

  /** Whether a persistence (data file, Redis) records its changes. */
  get persistent(): boolean {
    return this.persistence !== null;
  }

  /** Whether it keeps its own copy of every record (a data file): a reset then writes the fixtures out rather than sharing them. */
  get keepsOwnRecords(): boolean {
    return this.persistence?.keepsOwnRecords === true;
  }

  /** Counters of the file persistence (appends, snapshots, sizes); null for another store. */
  get persistenceStats(): PersistenceStats | null {
    return this.persistence instanceof FilePersistence ? this.persistence.getStats() : null;
  }

  /** Whether every collection still reads the template's rows (nothing changed since created or reset). */
  get allShared(): boolean {
    return COLLECTION_NAMES.every((name) => this.collections[name].isShared);
  }

  /** The collections that have their own rows (changed since shared), by name. */
  ownCollections(): Partial<StoreData['collections']> {
    const own: Record<string, unknown> = {};
    for (const name of COLLECTION_NAMES) if (!this.collections[name].isShared) own[name] = this.collections[name].all();
    return own as Partial<StoreData['collections']>;
  }

  /** The state becomes the collections of `db.data`, its own rows. */
  private bind(): void {
    const data = this.db.data;
    for (const name of COLLECTION_NAMES) data.collections[name] ??= [];
    this.newState((name, sink) => new Collection(name, data.collections[name] as { id: string }[], sink));
  }

  /**
   * A new state: every collection made by `collectionOf` with the one sink the persistence makes
   * for this state (none in memory), which replaces the state before and retires its sink.
   */
  private newState(collectionOf: (name: CollectionName, sink: CollectionListener | null) => Collection<{ id: string }>): void {
    const build = (sink: CollectionListener | null) =>
      Object.fromEntries(COLLECTION_NAMES.map((name) => [name, collectionOf(name, sink)])) as unknown as CollectionMap;
    this.state = this.persistence ? this.persistence.newState(build) : build(null);
  }
}
