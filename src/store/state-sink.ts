// Where the collections of one state of a durable store report their changes. A store's state (its
// set of collections) is made together with its sink (Persistence.newState), so the collections
// of one state share one sink and nothing else can hand them another. When a new state replaces it
// (a reset, an import), its sink is retired: a change reaching it (a request that held the old
// collections across an await) belongs to a state that is gone, and is refused with a 503 saying
// so, rather than answered 2xx and never written.
import { ApiError } from '../errors/api-error.js';
import type { CollectionListener } from './collection.js';

export class StateSink implements CollectionListener {
  private retired = false;

  /** `changes`: where a live state's changes go (the persistence's group commit). */
  constructor(private readonly changes: CollectionListener) {}

  ins(collection: string, row: { id: string }): void {
    if (this.retired) this.refuse(collection);
    this.changes.ins(collection, row);
  }

  put(collection: string, row: { id: string }, incidental?: boolean): void {
    if (this.retired) this.refuse(collection);
    this.changes.put(collection, row, incidental);
  }

  del(collection: string, id: string): void {
    if (this.retired) this.refuse(collection);
    this.changes.del(collection, id);
  }

  /** Its state was replaced: nothing more reaches the persistence through it. */
  retire(): void {
    this.retired = true;
  }

  get isRetired(): boolean {
    return this.retired;
  }

  private refuse(collection: string): never {
    throw ApiError.unavailable(
      `The records were replaced (a reset or an import of the namespace) while this request was handled, so its change to ${collection} was not made. Retry it.`,
      1,
    );
  }
}
