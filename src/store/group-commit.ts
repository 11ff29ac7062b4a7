// Group commit of a store's changes, whatever keeps them (a data file's change log: persistence.ts;
// Redis in a shared sandbox: cluster/redis-persistence.ts).
//
// A change (a record inserted or changed, whole, or an id deleted) is buffered in memory and
// written before any answer that could show it is sent: whoever answers a request asks
// whenDurable() and waits (src/http/dispatch.ts). The changes made during one turn of the event
// loop, and those made while a write is in flight, go out in one write, and every request waiting
// on them is released when it completes. Changes to the same record within one write collapse into
// one (every authenticated request updates its key pair's last_used_at: an incidental change,
// written like the others, that no answer waits for). One write runs at a time.
//
// The changes come from the collections of the store's current state, through the one sink made
// with it (newState, state-sink.ts); a state replaced (reset, import) has its sink retired.
import type { CollectionListener } from './collection.js';
import type { LogChange } from './persistence-load.js';
import { StateSink } from './state-sink.js';

/** What a store's persistence offers it (Store keeps one, or none in memory). */
export interface Persistence {
  /**
   * Makes a state of the store: `build` gets the one sink all its collections report to, made for
   * that state alone. A later state replaces the one before: that one's sink is retired (a change
   * through it is refused) and the next write holds the whole new state.
   */
  newState<S>(build: (sink: CollectionListener) => S): S;
  whenDurable(): Promise<void> | undefined;
  sync(): Promise<void>;
  flush(): Promise<void>;
  /** A data file keeps its own copy of every record; a Redis-backed namespace shares the fixtures until it changes them. */
  readonly keepsOwnRecords: boolean;
}

/** A promise and its settlers: the requests waiting on one write. */
interface Waiters {
  promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function waiters(): Waiters {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // its requests handle a failure; nobody else must hear of it as unhandled
  return { promise, resolve, reject };
}

/** `due`: the pending changes (or the snapshot due); `snapshot`: the whole state now; `flush`: whatever leaves the whole state written. */
export type WriteKind = 'due' | 'snapshot' | 'flush';

export abstract class GroupCommit {
  protected pending: LogChange[] = [];
  /** `collection \n id` -> position in `pending` of that record's ins or put, to collapse repeats. */
  private readonly pendingPuts = new Map<string, number>();
  /** Set when the changes cannot be trusted to continue (a failed write, a whole new state). */
  protected snapshotDue = false;
  /** The sink of the current state (newState); null before the first. */
  private sink: StateSink | null = null;
  /** Where every live state's sink passes its changes. */
  private readonly changes: CollectionListener = {
    ins: (collection, row) => this.ins(collection, row),
    put: (collection, row, incidental) => this.put(collection, row, incidental),
    del: (collection, id) => this.del(collection, id),
  };
  /** Whether `pending` holds a change an answer must wait for (not only incidental ones). */
  private pendingAwaited = false;
  /** Whether the write in progress holds such a change. */
  private writingAwaited = false;
  /** Requests waiting on the changes in `pending` (or on the snapshot due). */
  private next: Waiters | null = null;
  /** Requests waiting on the write in progress. */
  private inFlight: Waiters | null = null;
  /** The write in progress (never rejects); null when idle. */
  private writing: Promise<void> | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private retry: NodeJS.Timeout | null = null;
  /** After a failed write, how long before the next is tried unless someone waits (0: at once; a store over the network waits). */
  protected retryDelayMs = 0;
  /**
   * Whether an answer without changes of its own waits for the snapshot due after a failed write (a
   * data file: yes, it may show what is not written). A shared sandbox's reads do not: while Redis
   * is unreachable they are served from memory (docs/shared-sandbox.md).
   */
  protected readsWaitAfterFailure = true;
  /**
   * How long a batch of incidental changes only (a key pair's last_used_at, which every
   * authenticated request moves) may wait for company before it is written (0: the end of the turn,
   * as any change). A store over the network gathers them, so reads cost no round trip of their own.
   */
  protected incidentalDelayMs = 0;
  private incidentalTimer: NodeJS.Timeout | null = null;
  private failing = false;

  /** Writes `pending` (or a snapshot when due or needed); throws when that failed. */
  protected abstract writeDue(): Promise<void>;
  /** Writes the whole state, so that nothing before it is needed. */
  protected abstract writeSnapshot(): Promise<void>;
  /** Whether `flush` has anything to write (a snapshot when anything changed since the last). */
  protected abstract flushNeeded(): boolean;
  /** Whether a write is wanted even with nothing pending (a log grown past its limit). */
  protected compactionDue(): boolean {
    return false;
  }
  /** A write nobody waited for failed (a change a timer made): nothing else would tell. */
  protected abstract unheardFailure(err: Error): void;

  /**
   * A state and its sink, made together: the sink is handed to `build` only, so every collection
   * of the state shares it. The state before (if any) is replaced: its sink retired, the pending
   * changes (all of it) dropped, and the next write is a snapshot of the new one.
   */
  newState<S>(build: (sink: CollectionListener) => S): S {
    const sink = new StateSink(this.changes);
    const state = build(sink);
    const replaced = this.sink;
    this.sink = sink;
    if (replaced) {
      replaced.retire();
      this.replaced();
    }
    return state;
  }

  private ins(collection: string, row: { id: string }): void {
    // Live, an insert means the id is absent, so a delete came first and no put of it is pending.
    this.pendingPuts.set(`${collection}\n${row.id}`, this.pending.push({ c: collection, ins: row }) - 1);
    this.pendingAwaited = true;
    this.schedule();
  }

  private put(collection: string, row: { id: string }, incidental = false): void {
    if (!incidental) this.pendingAwaited = true;
    const key = `${collection}\n${row.id}`;
    const at = this.pendingPuts.get(key);
    // Same record again since the last write: one change (an ins stays an ins) with its latest state.
    if (at === undefined) this.pendingPuts.set(key, this.pending.push({ c: collection, put: row }) - 1);
    else if ('ins' in this.pending[at]) (this.pending[at] as { ins: { id: string } }).ins = row;
    else (this.pending[at] as { put: { id: string } }).put = row;
    if (incidental && this.incidentalDelayMs > 0) this.scheduleIncidental();
    else this.schedule();
  }

  /** Incidental changes alone: written within incidentalDelayMs, or sooner with the next change that is awaited. */
  private scheduleIncidental(): void {
    if (this.immediate !== null || this.writing !== null || this.incidentalTimer !== null || this.retry !== null) return;
    this.incidentalTimer = setTimeout(() => {
      this.incidentalTimer = null;
      this.schedule();
    }, this.incidentalDelayMs);
    this.incidentalTimer.unref();
  }

  private del(collection: string, id: string): void {
    // A put after this delete must come after it, so it cannot collapse into an earlier one.
    this.pendingPuts.delete(`${collection}\n${id}`);
    this.pendingAwaited = true;
    this.pending.push({ c: collection, del: id });
    this.schedule();
  }

  /** The whole state was replaced (reset, snapshot import): the next write is a snapshot. */
  private replaced(): void {
    this.snapshotDue = true;
    this.clearPending();
    this.schedule();
  }

  /** Something besides the records changed that an answer must wait for (a subclass buffers it): written with the next write. */
  protected awaitNextWrite(): void {
    this.pendingAwaited = true;
    this.schedule();
  }

  /**
   * Resolves once every change made so far is written; rejects when that write failed. Undefined
   * when no change is pending or being written but incidental ones: a read, and every answer of a
   * quiet store, costs no promise. An answer waiting on a write in progress that holds none of its
   * own changes still waits: it may show changes that write holds, and must not show what may be lost.
   */
  whenDurable(): Promise<void> | undefined {
    if (this.pendingAwaited || (this.snapshotDue && (this.readsWaitAfterFailure || !this.failing))) return (this.next ??= waiters()).promise;
    if (this.writing && this.writingAwaited) return (this.inFlight ??= waiters()).promise;
    return undefined;
  }

  /** Writes the pending changes (or the snapshot that is due) now; resolves once written, rejects when that failed. */
  async sync(): Promise<void> {
    const failure = await this.exclusive('due');
    if (failure) throw failure;
  }

  /** Leaves the whole state written (a snapshot when anything changed since the last), for a graceful stop or a handover. */
  async flush(): Promise<void> {
    const failure = await this.exclusive('flush');
    if (failure) throw failure;
  }

  /** Writes a snapshot now. */
  async snapshot(): Promise<void> {
    const failure = await this.exclusive('snapshot');
    if (failure) throw failure;
  }

  /** Whether a write is in progress or waiting. */
  get busy(): boolean {
    return this.writing !== null || this.immediate !== null;
  }

  /** A write at the end of this turn of the event loop, so the changes of every request handled in it go in one write. */
  protected schedule(): void {
    if (this.immediate !== null || this.writing !== null) return; // the write in progress schedules the next when it ends
    if (this.retry !== null) {
      clearTimeout(this.retry);
      this.retry = null;
    }
    this.immediate = setImmediate(this.writeScheduled);
  }

  /** The next try after a failed write, later (nobody waits for it yet: a new change or a waiting request brings it forward). */
  private scheduleRetry(): void {
    if (this.retry !== null || this.immediate !== null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.schedule();
    }, this.retryDelayMs);
    this.retry.unref();
  }

  private readonly writeScheduled = (): void => {
    this.immediate = null;
    if (this.incidentalTimer !== null) {
      clearTimeout(this.incidentalTimer);
      this.incidentalTimer = null;
    }
    if (this.writing === null && this.hasWork()) void this.exclusive('due');
  };

  /** Pending changes none of which an answer waits for, with nothing else due (they may wait for company). */
  private onlyIncidentalPending(): boolean {
    return this.incidentalDelayMs > 0 && this.pending.length > 0 && !this.pendingAwaited && !this.snapshotDue && this.next === null && !this.compactionDue();
  }

  private hasWork(): boolean {
    return this.pending.length > 0 || this.snapshotDue || this.next !== null || this.compactionDue();
  }

  /**
   * Runs one write once the one in progress has ended, then releases the requests waiting on it
   * (rejecting them when it failed); resolves with its failure (null when it succeeded), never rejects.
   */
  private async exclusive(kind: WriteKind): Promise<Error | null> {
    while (this.writing) await this.writing;
    this.inFlight = this.next; // the requests whose changes this write takes
    this.next = null;
    this.writingAwaited = this.pendingAwaited || this.snapshotDue || kind !== 'due';
    this.pendingAwaited = false;
    const run = this.write(kind);
    this.writing = run.then(() => undefined);
    const failure = await run;
    this.failing = failure !== null;
    // Idle again before anyone is released: a released request asking whenDurable() gets nothing to wait for.
    this.writing = null;
    const settled = this.inFlight;
    this.inFlight = null;
    if (!failure) settled?.resolve();
    else if (settled) settled.reject(failure);
    else if (kind === 'due') this.unheardFailure(failure);
    if (failure && this.retryDelayMs > 0 && this.next === null) {
      if (this.hasWork()) this.scheduleRetry();
    } else if (this.onlyIncidentalPending()) this.scheduleIncidental();
    else if (this.hasWork()) this.schedule();
    return failure;
  }

  private async write(kind: WriteKind): Promise<Error | null> {
    try {
      if (kind === 'snapshot') await this.writeSnapshot();
      else if (kind === 'flush') {
        if (this.flushNeeded()) await this.writeSnapshot();
      } else await this.writeDue();
      return null;
    } catch (err) {
      this.failedWrite(err as Error);
      return err as Error;
    }
  }

  /** Counts a failed write (subclasses keep stats). */
  protected failedWrite(_err: Error): void {}

  /** The changes buffered, handed to the write that takes them. */
  protected takePending(): LogChange[] {
    const taken = this.pending;
    this.clearPending();
    return taken;
  }

  protected clearPending(): void {
    this.pending = [];
    this.pendingPuts.clear();
    this.pendingAwaited = false;
  }
}
