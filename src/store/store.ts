// The state of one namespace: lowdb data holding typed collections. In memory by default; with a
// data file, changes are written atomically (lowdb's steno writes a temp file and renames it) and
// coalesced, so a burst of requests costs a few writes a second, not one per request.
import { existsSync, readFileSync } from 'node:fs';
import { Low, Memory } from 'lowdb';
import { DataFile } from 'lowdb/node';
import { Collection } from './collection.js';
import { COLLECTION_NAMES, type CollectionName, type Collections, type StoreData } from './records.js';

export type CollectionMap = { [K in CollectionName]: Collection<Collections[K] & { id: string }> };

export interface StoreOptions {
  /** JSON file to persist to; absent: memory only. */
  file?: string;
  /** Milliseconds to gather changes before one write (default 100). */
  writeDelayMs?: number;
}

export class Store {
  collections!: CollectionMap;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  private constructor(
    private readonly db: Low<StoreData>,
    private readonly options: StoreOptions,
  ) {
    this.bind();
  }

  /**
   * Opens a store. With a file that exists, its data is loaded (a corrupt or unreadable file is an
   * error naming it, never a silent reset); otherwise `initial()` seeds it.
   */
  static async open(initial: () => StoreData, options: StoreOptions = {}): Promise<Store> {
    if (!options.file) return Store.inMemory(initial());
    const file = options.file;
    const adapter = new DataFile<StoreData>(file, { parse: JSON.parse, stringify: (d) => JSON.stringify(d) });
    // A missing or empty file is seeded; anything else must load.
    const text = existsSync(file) ? readText(file) : '';
    const data = text.trim() !== '' ? parseDataFile(file, text) : initial();
    const store = new Store(new Low<StoreData>(adapter, data), options);
    await store.flush(true);
    return store;
  }

  static inMemory(data: StoreData): Store {
    return new Store(new Low<StoreData>(new Memory<StoreData>(), data), {});
  }

  get data(): StoreData {
    return this.db.data;
  }

  get seed(): number {
    return this.db.data.seed;
  }

  /** Replaces the whole state (reset, snapshot import) and persists it. */
  replaceAll(data: StoreData): void {
    this.db.data = data;
    this.bind();
    this.changed();
  }

  /** Writes pending changes now; resolves once they are on disk. */
  async flush(force = false): Promise<void> {
    if (!this.options.file) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.dirty && !force) return this.writing;
    this.dirty = false;
    this.writing = this.writing.then(() => this.db.write());
    return this.writing;
  }

  get persistent(): boolean {
    return Boolean(this.options.file);
  }

  private changed(): void {
    if (!this.options.file) return;
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush().catch((err) => process.emitWarning(`payments-sandbox: writing ${this.options.file} failed: ${(err as Error).message}`));
    }, this.options.writeDelayMs ?? 100);
  }

  private bind(): void {
    const data = this.db.data;
    for (const name of COLLECTION_NAMES) data.collections[name] ??= [];
    this.collections = Object.fromEntries(
      COLLECTION_NAMES.map((name) => [name, new Collection(name, data.collections[name] as { id: string }[], () => this.changed())]),
    ) as unknown as CollectionMap;
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`the data file ${file} cannot be read: ${(err as Error).message}. Fix its path or permissions; the sandbox does not reset it silently.`);
  }
}

function parseDataFile(file: string, text: string): StoreData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`the data file ${file} cannot be loaded: ${(err as Error).message}. Fix or remove it; the sandbox does not reset it silently.`);
  }
  const data = parsed as StoreData;
  if (!data || typeof data !== 'object' || data.schema_version !== 1 || typeof data.collections !== 'object' || data.collections === null) {
    throw new Error(`the data file ${file} is not a payments-sandbox data file (schema_version 1 with collections). Fix or remove it.`);
  }
  return data;
}
