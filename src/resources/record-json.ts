// The JSON of records in their API shape, kept until what it shows changes: per record
// (RecordJson: a gift card with its buyer and gift card service), or per whole answer (AnswerJson:
// a read-only list). A page of 100 gift cards (128 KB) is then copied together from kept bytes
// instead of being built as objects and serialized again on every request: serializing was most of
// a list call's work, and with a large store it also walked records spread across memory.
//
// A record's JSON is kept as UTF-8 bytes, encoded once: a page is then one memory copy, not a
// 128 KB string to encode on every call (which took a quarter of a list call), and with a large
// store the kept JSON (about 130 MB for 100,000 cards) lies outside the JavaScript heap, where the
// garbage collector does not walk it. It is kept on its record, under a symbol that JSON,
// Object.keys, spread and structuredClone all ignore, so it never reaches a client, a data file or
// a copy. Not in a WeakMap: with a large store, V8 walks a WeakMap of every record on each
// young-generation collection, which cost more than the texts saved.
//
// A record's kept JSON stays valid while the record and each record it shows are the same objects
// at the same revision (collection.ts): a change to one buyer renews the JSON of that buyer's cards
// only, not of every card in the store. Checking that costs a few lookups per record, which in a
// large store miss the processor's caches (100 cards: about 280 µs), so it is done once per record
// after one of the source collections changed; while none has, one comparison per record suffices.
import { BufferPool } from '../http/buffer-pool.js';
import type { JsonBytes } from '../http/json-response.js';
import { revisionOf } from '../store/collection.js';
import type { CollectionMap } from '../store/store.js';
import { COMMA, ViewBlocks } from './view-blocks.js';

export interface KeptJson {
  /** The last state of the source collections in which the JSON was found current. */
  generation: Generation;
  /** The record's revision, and the records it shows with theirs, when the JSON was made. */
  revision: number;
  shown: readonly (object | undefined)[];
  shownRevisions: number[];
  /**
   * UTF-8: first a slice of a shared pool buffer (Buffer.from), so 100,000 of them are not 100,000
   * allocations; once the record is in a view block, a view of the block's copy (view-blocks.ts).
   */
  bytes: Buffer;
  /** Its length as text (UTF-16 units), which the journal counts its limits in. */
  chars: number;
}

/** Where list pages are assembled: a page's buffer is used again once its response is written. */
const pages = new BufferPool();

export class RecordJson<R extends object> {
  /** Where each record keeps its JSON (one symbol per shape). */
  private readonly slot = Symbol('api json');

  private readonly generations = new Generations();

  /** Blocks of kept JSON per ordered view, by the view's array: a rebuilt view (a new array) starts afresh. */
  private readonly blocks = new WeakMap<readonly R[], ViewBlocks<R>>();

  constructor(
    private readonly serialize: (db: CollectionMap, record: R) => unknown,
    /** Every collection the shape reads, the records' own first. */
    private readonly sourcesOf: (db: CollectionMap) => readonly JsonSource[],
    /** The other records the shape of `record` shows (undefined for one that does not exist). */
    private readonly shownWith: (db: CollectionMap, record: R) => readonly (object | undefined)[],
  ) {}

  /** `before`, then `records` as a JSON array of their API shapes, then `after`, as UTF-8 bytes in one buffer. */
  arrayBytes(db: CollectionMap, records: readonly R[], before = '', after = ''): JsonBytes {
    const generation = this.generations.of(this.sourcesOf(db));
    const pieces: Buffer[] = new Array(records.length);
    let chars = 0;
    for (let i = 0; i < records.length; i++) {
      const kept = this.keptOf(db, records[i], generation);
      pieces[i] = kept.bytes;
      chars += kept.chars;
    }
    return joinPieces(`${before}[`, pieces, chars, `]${after}`);
  }

  /**
   * As arrayBytes, for `rows[start, end)` of an ordered view that stays the same array while its
   * collection is unchanged (Collection.view): copied from the view's kept blocks, one or two
   * copies per page instead of one per record.
   */
  rangeBytes(db: CollectionMap, rows: readonly R[], start: number, end: number, before = '', after = ''): JsonBytes {
    const generation = this.generations.of(this.sourcesOf(db));
    let blocks = this.blocks.get(rows);
    if (!blocks) {
      blocks = new ViewBlocks<R>();
      this.blocks.set(rows, blocks);
    }
    const { pieces, chars } = blocks.range(rows, start, end, generation, (record) => this.keptOf(db, record, generation));
    return joinPieces(`${before}[`, pieces, chars, `]${after}`);
  }

  private keptOf(db: CollectionMap, record: R, generation: Generation): KeptJson {
    const kept = (record as Record<symbol, KeptJson | undefined>)[this.slot];
    if (kept !== undefined && kept.generation === generation) return kept; // nothing changed since
    const shown = this.shownWith(db, record);
    if (kept !== undefined && isCurrent(kept, record, shown)) {
      kept.generation = generation;
      return kept;
    }
    const json = JSON.stringify(this.serialize(db, record));
    const fresh: KeptJson = {
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

/** `opening`, the pieces separated by commas, then `closing`, in one buffer from the page pool. */
function joinPieces(opening: string, pieces: readonly Buffer[], pieceChars: number, closing: string): JsonBytes {
  const commas = Math.max(0, pieces.length - 1);
  let length = Buffer.byteLength(opening) + Buffer.byteLength(closing) + commas;
  for (let i = 0; i < pieces.length; i++) length += pieces[i].length;
  const bytes = pages.take(length);
  let at = bytes.write(opening, 0);
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) bytes[at++] = COMMA;
    // set(), not copy(): Node 20's copy() makes a new view of the source on every call.
    bytes.set(pieces[i], at);
    at += pieces[i].length;
  }
  bytes.write(closing, at);
  let released = false;
  // Once only: a buffer given back twice would be handed to two responses at the same time.
  const release = () => {
    if (released) return;
    released = true;
    pages.give(bytes);
  };
  return { bytes, chars: opening.length + closing.length + commas + pieceChars, release };
}

function isCurrent(kept: KeptJson, record: object, shown: readonly (object | undefined)[]): boolean {
  if (kept.revision !== revisionOf(record) || kept.shown.length !== shown.length) return false;
  for (let i = 0; i < shown.length; i++) {
    const other = shown[i];
    if (other !== kept.shown[i] || (other !== undefined && revisionOf(other) !== kept.shownRevisions[i])) return false;
  }
  return true;
}

/** A collection an answer is built from: its change count says when kept answers went stale. */
export interface JsonSource {
  readonly changeCount: number;
}

/** One state of the source collections: answers made in it carry it, and are valid while it lasts. */
export interface Generation {
  sources: readonly JsonSource[];
  counts: number[];
}

/** The current generation of each set of sources, by its first source collection. */
class Generations {
  /** Keyed by the first source: each namespace's store (and each reset) has its own. */
  private readonly current = new WeakMap<JsonSource, Generation>();

  /** A new generation when a source collection changed (or was replaced) since the last call. */
  of(sources: readonly JsonSource[]): Generation {
    const current = this.current.get(sources[0]);
    if (current && sources.every((source, i) => source === current.sources[i] && source.changeCount === current.counts[i])) return current;
    const next: Generation = { sources, counts: sources.map((source) => source.changeCount) };
    this.current.set(sources[0], next);
    return next;
  }
}

/**
 * The JSON text of a whole answer built from collections (a read-only list such as the card scheme
 * definitions), kept per key (say, a merchant account) until one of the collections changes: the
 * same answer is not serialized again for every request that asks for it.
 */
export class AnswerJson<K extends string> {
  private readonly generations = new Generations();
  private readonly kept = new WeakMap<Generation, Map<K, string>>();

  constructor(
    private readonly build: (db: CollectionMap, key: K) => unknown,
    /** Every collection the answer reads. */
    private readonly sourcesOf: (db: CollectionMap) => readonly JsonSource[],
  ) {}

  text(db: CollectionMap, key: K): string {
    const generation = this.generations.of(this.sourcesOf(db));
    let texts = this.kept.get(generation);
    if (!texts) {
      texts = new Map(); // the previous generation's texts go with it
      this.kept.set(generation, texts);
    }
    let json = texts.get(key);
    if (json === undefined) {
      json = JSON.stringify(this.build(db, key));
      texts.set(key, json);
    }
    return json;
  }
}
