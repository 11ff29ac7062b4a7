// The JSON text of records in their API shape (RecordJson), or of a whole answer (AnswerJson), kept
// until a collection the shape is built from changes. A page of 100 gift cards (128 KB, each card
// with its nested buyer) is then joined from kept texts instead of being built as objects and serialized again on every request:
// serializing was most of a list call's work, and with a large store it also walked records spread
// across memory.
//
// A text is kept on its record, under a symbol that JSON, Object.keys, spread and structuredClone
// all ignore, so it never reaches a client, a data file or a copy. Not in a WeakMap: with a large
// store, V8 walks a WeakMap of every record on each young-generation collection, which cost more
// than the texts saved. The texts take about as much memory as the records' JSON, and go with them.
import type { CollectionMap } from '../store/store.js';

/** A collection a shape is built from: its change count says when kept texts went stale. */
export interface JsonSource {
  readonly changeCount: number;
}

/** One state of the source collections: texts made in it carry it, and are valid while it lasts. */
interface Generation {
  sources: readonly JsonSource[];
  counts: number[];
}

interface KeptText {
  generation: Generation;
  json: string;
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

export class RecordJson<R extends object> {
  /** Where each record keeps its text (one symbol per shape). */
  private readonly slot = Symbol('api json');
  private readonly generations = new Generations();

  constructor(
    private readonly serialize: (db: CollectionMap, record: R) => unknown,
    /** Every collection the shape reads, the records' own first. */
    private readonly sourcesOf: (db: CollectionMap) => readonly JsonSource[],
  ) {}

  /**
   * `before`, then `records` as a JSON array of their API shapes, then `after`: one flat string
   * made by a single join (a concatenation would make V8 copy the whole page again when it is
   * read, and a list page is 128 KB).
   */
  arrayText(db: CollectionMap, records: readonly R[], before = '', after = ''): string {
    const generation = this.generations.of(this.sourcesOf(db));
    if (records.length === 0) return `${before}[]${after}`;
    const parts: string[] = new Array(records.length * 2 + 1);
    parts[0] = `${before}[`;
    for (let i = 0; i < records.length; i++) {
      parts[2 * i + 1] = this.textOf(db, records[i], generation);
      parts[2 * i + 2] = ',';
    }
    parts[parts.length - 1] = `]${after}`;
    return parts.join('');
  }

  private textOf(db: CollectionMap, record: R, generation: Generation): string {
    const kept = (record as Record<symbol, KeptText | undefined>)[this.slot];
    if (kept !== undefined && kept.generation === generation) return kept.json;
    const json = JSON.stringify(this.serialize(db, record));
    if (kept !== undefined) {
      kept.generation = generation;
      kept.json = json;
    } else {
      // Not enumerable: spread and Object.assign (record copies) leave it behind.
      Object.defineProperty(record, this.slot, { value: { generation, json }, writable: true, configurable: true, enumerable: false });
    }
    return json;
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
