// The JSON of records in their API shape, cached until what it shows changes. A page of 100 gift
// cards (128 KB) is then copied together from cached bytes instead of being built as objects and
// serialized again on every request: serializing was most of a list call's work, and with a large
// store it also walked records spread across memory.
//
// A record's JSON is cached as UTF-8 bytes, encoded once: a page is then one memory copy, not a
// 128 KB string to encode on every call (which took a quarter of a list call), and with a large
// store the cached JSON (about 130 MB for 100,000 cards) lies outside the JavaScript heap, where the
// garbage collector does not walk it. It is held on its record, under a symbol that JSON,
// Object.keys, spread and structuredClone all ignore, so it never reaches a client, a data file or
// a copy. Not in a WeakMap: with a large store, V8 walks a WeakMap of every record on each
// young-generation collection, which cost more than the texts saved.
//
// A record's cached JSON stays valid while the record and each record it shows are the same objects
// at the same revision (store/collection.ts): a change to one buyer renews the JSON of that buyer's
// cards only, not of every card in the store. Checking that costs a few lookups per record, which
// in a large store miss the processor's caches (100 cards: about 280 µs), so it is done once per
// record after one of the source collections changed; while none has, one comparison per record
// suffices.
import type { JsonPieces } from '../../http/json-response.js';
import { revisionOf } from '../../store/collection.js';
import type { CollectionMap } from '../../store/store.js';
import { type CachedJson, type Generation, Generations, type JsonSource } from './generations.js';
import { ViewBlocks } from './view-blocks.js';

/** How one kind of record is shown, declared beside its serializer: every collection the shape reads is named here. */
export interface RecordShapeSpec<R> {
  /** Record -> API shape. */
  serialize: (db: CollectionMap, record: R) => unknown;
  /** Every collection `serialize` reads, the records' own first: a change to any of them is noticed. */
  reads: (db: CollectionMap) => readonly JsonSource[];
  /** The other records the shape of `record` shows (undefined for one that does not exist). */
  shows: (db: CollectionMap, record: R) => readonly (object | undefined)[];
}

/** The cached API JSON of one kind of record, as pieces the answer writer joins (http/json-response.ts). */
export class RecordJson<R extends object> {
  /** Where each record holds its JSON (one symbol per shape). */
  private readonly slot = Symbol('api json');
  private readonly generations = new Generations();
  /** Blocks of cached JSON per ordered view, by the view's array: a rebuilt view (a new array) starts afresh. */
  private readonly blocks = new WeakMap<readonly R[], ViewBlocks<R>>();

  constructor(private readonly spec: RecordShapeSpec<R>) {}

  /** `records` as a JSON array of their API shapes, between `opening` and `closing`. */
  list(db: CollectionMap, records: readonly R[], opening: string, closing: string): JsonPieces {
    const generation = this.generations.of(this.spec.reads(db));
    const pieces: Buffer[] = new Array(records.length);
    let chars = 0;
    for (let i = 0; i < records.length; i++) {
      const cached = this.cachedOf(db, records[i], generation);
      pieces[i] = cached.bytes;
      chars += cached.chars;
    }
    return { opening: `${opening}[`, pieces, pieceChars: chars, closing: `]${closing}` };
  }

  /**
   * As list(), for `rows[start, end)` of an ordered view that stays the same array while its
   * collection is unchanged (Collection.view): copied from the view's cached blocks, one or two
   * pieces per page instead of one per record.
   */
  viewRange(db: CollectionMap, rows: readonly R[], start: number, end: number, opening: string, closing: string): JsonPieces {
    const generation = this.generations.of(this.spec.reads(db));
    let blocks = this.blocks.get(rows);
    if (!blocks) {
      blocks = new ViewBlocks<R>();
      this.blocks.set(rows, blocks);
    }
    const { pieces, chars } = blocks.range(rows, start, end, generation, (record) => this.cachedOf(db, record, generation));
    return { opening: `${opening}[`, pieces, pieceChars: chars, closing: `]${closing}` };
  }

  private cachedOf(db: CollectionMap, record: R, generation: Generation): CachedJson {
    const cached = (record as Record<symbol, CachedJson | undefined>)[this.slot];
    if (cached !== undefined && cached.generation === generation) return cached; // nothing changed since
    const shown = this.spec.shows(db, record);
    if (cached !== undefined && isCurrent(cached, record, shown)) {
      cached.generation = generation;
      return cached;
    }
    const json = JSON.stringify(this.spec.serialize(db, record));
    const fresh: CachedJson = {
      generation,
      revision: revisionOf(record),
      shown,
      shownRevisions: shown.map((r) => (r ? revisionOf(r) : 0)),
      bytes: Buffer.from(json),
      chars: json.length,
    };
    // Not enumerable: spread and Object.assign (record copies) leave it behind.
    Object.defineProperty(record, this.slot, { value: fresh, writable: true, configurable: true, enumerable: false });
    return fresh;
  }
}

function isCurrent(cached: CachedJson, record: object, shown: readonly (object | undefined)[]): boolean {
  if (cached.revision !== revisionOf(record) || cached.shown.length !== shown.length) return false;
  for (let i = 0; i < shown.length; i++) {
    const other = shown[i];
    if (other !== cached.shown[i] || (other !== undefined && revisionOf(other) !== cached.shownRevisions[i])) return false;
  }
  return true;
}
