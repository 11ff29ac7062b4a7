// The JSON text of a whole answer built from collections (a read-only list such as the card scheme
// definitions), cached per key (say, a merchant account) until one of the collections changes: the
// same answer is not serialized again for every request that asks for it.
import type { CollectionMap } from '../../store/store.js';
import { type Generation, Generations, type JsonSource } from './generations.js';

export interface AnswerSpec<K extends string> {
  build: (db: CollectionMap, key: K) => unknown;
  /** Every collection `build` reads: a change to any of them is noticed. */
  reads: (db: CollectionMap) => readonly JsonSource[];
}

export class AnswerJson<K extends string> {
  private readonly generations = new Generations();
  private readonly cached = new WeakMap<Generation, Map<K, string>>();

  constructor(private readonly spec: AnswerSpec<K>) {}

  text(db: CollectionMap, key: K): string {
    const generation = this.generations.of(this.spec.reads(db));
    let texts = this.cached.get(generation);
    if (!texts) {
      texts = new Map(); // the previous generation's texts go with it
      this.cached.set(generation, texts);
    }
    let json = texts.get(key);
    if (json === undefined) {
      json = JSON.stringify(this.spec.build(db, key));
      texts.set(key, json);
    }
    return json;
  }
}
