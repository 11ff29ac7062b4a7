// A namespace's state beyond its records and clock lives in parts that other areas define (the
// journal, scenario state, report schedules): each part says what a reset does to it and how it is
// exported and imported, so a whole namespace can be reset, saved and moved to another process.
// A part's key is a module constant of the area that owns it, so the namespace layer never imports
// those areas; what makes a part (a factory with the sandbox's options) is given to the registry
// at boot.
export interface NamespacePart {
  /** What POST /_sandbox/reset does to this part (say so where it keeps anything). */
  reset(): void;
  /** Its state as plain JSON, for GET /_sandbox/state and for moving the namespace elsewhere. */
  exportState(): unknown;
  /**
   * Checks a state exportState() gave (null: a fresh part) and returns what makes it this part's
   * state; throws an Error naming what is wrong before changing anything, so that a namespace is
   * never half imported.
   */
  prepareImport(state: unknown): () => void;
  /** The records were replaced without a reset (a snapshot import): state derived from them is rebuilt. */
  recordsReplaced?(): void;
  /** The namespace is gone: stop timers and work in progress (the webhook queue). */
  dispose?(): void;
}

let nextIndex = 0;

/** Names one kind of part; `ns.part(KEY)` is typed by it. */
export class PartKey<P extends NamespacePart> {
  /** Where namespaces keep this part: an array slot, not a map lookup, on the request path. */
  readonly index = nextIndex++;
  declare readonly kind?: P; // carries the type only

  constructor(readonly name: string) {}
}
