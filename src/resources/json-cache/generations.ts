// When cached JSON is still current: a generation is one state of the collections an answer is
// built from (their change counts). Cached JSON made in it is valid while it is the current one.

/** A collection an answer is built from: its change count says when cached answers went stale. */
export interface JsonSource {
  readonly changeCount: number;
}

/** One state of the source collections: answers made in it carry it, and are valid while it lasts. */
export interface Generation {
  sources: readonly JsonSource[];
  counts: number[];
}

/** The current generation of each set of sources, by its first source collection. */
export class Generations {
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

/** A record's cached JSON (record-json.ts), as view blocks (view-blocks.ts) also see it. */
export interface CachedJson {
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
