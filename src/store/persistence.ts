// File persistence of a store: a snapshot FILE plus an append-only change log FILE.log.
//
// A change (a record inserted or changed, whole, or an id deleted) is buffered in memory and
// appended to the log before any answer that could show it is sent: whoever answers a request asks
// whenDurable() and waits (src/http/dispatch.ts, src/admin/routes.ts). Group commit keeps that
// cheap: the changes made during one turn of the event loop, and those made while an append is in
// flight, go out in one append (one write(2) on the open log), and every request waiting on them is
// released when it completes. Changes to the same record within one append collapse into one line
// (every authenticated request updates its key pair's last_used_at: an incidental change, appended
// like the others, that no answer waits for). The fsync policy says when
// the disk itself (not only the OS) holds an append: `always` before releasing it, `batch` within
// FSYNC_BATCH_MS after it, `never` when the OS decides (change-log-file.ts).
//
// When the log grows past half the snapshot (1 MiB at least), a new snapshot is written (temporary
// file renamed over FILE, so FILE is always whole: snapshot-file.ts) and the log is emptied. Every
// line carries a seq, increasing over the file's life, and the snapshot records the last one it
// holds (log_seq): after a crash between the two writes, the lines left in the log are skipped at
// start instead of replayed over the newer snapshot (a put would bring an older state back). One
// disk operation runs at a time, so no append lands between a snapshot and the emptying of the log.
import { Low } from 'lowdb';
import { ChangeLogFile, type FsyncPolicy } from './change-log-file.js';
import type { CollectionListener } from './collection.js';
import { type LogChange, logFileOf } from './persistence-load.js';
import type { StoreData } from './records.js';
import { SnapshotFile } from './snapshot-file.js';

export { FSYNC_POLICIES, type FsyncPolicy } from './change-log-file.js';

export interface PersistenceOptions {
  /** Default `batch`. */
  fsync?: FsyncPolicy;
  /** Log size (characters) past which a new snapshot is written; default half the snapshot, 1 MiB at least. */
  compactLogChars?: number;
}

export interface PersistenceStats {
  /** Appends to the log (one per batch of changes). */
  appends: number;
  /** Lines appended in all. */
  appendedLines: number;
  /** Snapshots written (seeding, start after a crash, log past its limit, reset or import, flush). */
  snapshots: number;
  /** fdatasync calls on the log. */
  fsyncs: number;
  /** Appends and snapshots that failed (their waiting requests were answered with an error). */
  failedWrites: number;
  /** Characters in the log now. */
  logChars: number;
  /** Characters of the last snapshot. */
  snapshotChars: number;
  /** Changes buffered, not yet appended. */
  pending: number;
  /** The seq of the last line appended. */
  seq: number;
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

const MIN_COMPACT_CHARS = 1 << 20;

type WriteKind = 'due' | 'snapshot' | 'flush';

export class FilePersistence {
  readonly db: Low<StoreData>;
  readonly logFile: string;
  private readonly log: ChangeLogFile;
  private readonly stats: Omit<PersistenceStats, 'pending' | 'seq' | 'fsyncs'>;
  private pending: LogChange[] = [];
  /** `collection \n id` -> position in `pending` of that record's ins or put, to collapse repeats. */
  private readonly pendingPuts = new Map<string, number>();
  /** Set when the log cannot be trusted to continue (a failed append, a whole new state). */
  private snapshotDue = false;
  private epoch = 0;
  /** The seq of the last line appended (or loaded): every line gets the next; a snapshot records it as log_seq. */
  private seq: number;
  /** Whether `pending` holds a change an answer must wait for (not only incidental ones). */
  private pendingAwaited = false;
  /** Whether the write in progress holds such a change. */
  private writingAwaited = false;
  /** Requests waiting on the changes in `pending` (or on the snapshot due). */
  private next: Waiters | null = null;
  /** Requests waiting on the write in progress. */
  private inFlight: Waiters | null = null;
  /** The disk operation in progress (never rejects); null when idle. */
  private writing: Promise<void> | null = null;
  private immediate: NodeJS.Immediate | null = null;

  constructor(
    readonly file: string,
    data: StoreData,
    private readonly options: PersistenceOptions & { snapshotChars: number; logChars: number; lastSeq: number },
  ) {
    this.seq = options.lastSeq;
    const fsync = options.fsync ?? 'batch';
    this.logFile = logFileOf(file);
    this.log = new ChangeLogFile(this.logFile, fsync);
    this.db = new Low<StoreData>(new SnapshotFile<StoreData>(file, (d) => this.captureSnapshot(d), fsync !== 'never'), data);
    this.stats = { appends: 0, appendedLines: 0, snapshots: 0, failedWrites: 0, logChars: options.logChars, snapshotChars: options.snapshotChars };
  }

  /**
   * What the collections of the current state report to. After a whole new state (replaced()), the
   * old collections' listener goes quiet: a request still holding them writes to a state that is
   * gone, in memory and on disk alike.
   */
  listener(): CollectionListener {
    const epoch = ++this.epoch;
    return {
      ins: (collection, row) => epoch === this.epoch && this.ins(collection, row),
      put: (collection, row, incidental) => epoch === this.epoch && this.put(collection, row, incidental),
      del: (collection, id) => epoch === this.epoch && this.del(collection, id),
    };
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
    // Same record again since the last append: one line (an ins stays an ins) with its latest state.
    if (at === undefined) this.pendingPuts.set(key, this.pending.push({ c: collection, put: row }) - 1);
    else if ('ins' in this.pending[at]) (this.pending[at] as { ins: { id: string } }).ins = row;
    else (this.pending[at] as { put: { id: string } }).put = row;
    this.schedule();
  }

  private del(collection: string, id: string): void {
    // A put after this delete must come after it in the log, so it cannot collapse into an earlier one.
    this.pendingPuts.delete(`${collection}\n${id}`);
    this.pendingAwaited = true;
    this.pending.push({ c: collection, del: id });
    this.schedule();
  }

  /** The whole state was replaced (reset, snapshot import): the next write is a snapshot, not lines. */
  replaced(): void {
    this.snapshotDue = true;
    this.clearPending();
    this.schedule();
  }

  /**
   * Resolves once the log (or a snapshot) holds every change made so far; rejects when that write
   * failed. Undefined when no change is pending or being written but incidental ones: a read, and
   * every answer of a quiet store, costs no promise. An answer waiting on a write in progress that
   * holds none of its own changes still waits: it may show changes that write holds, and must not
   * show what may be lost.
   */
  whenDurable(): Promise<void> | undefined {
    if (this.pendingAwaited || this.snapshotDue) return (this.next ??= waiters()).promise;
    if (this.writing && this.writingAwaited) return (this.inFlight ??= waiters()).promise;
    return undefined;
  }

  /** Writes the pending changes (or the snapshot that is due) now; resolves once written, rejects when that failed. */
  async sync(): Promise<void> {
    const failure = await this.exclusive('due');
    if (failure) throw failure;
  }

  /**
   * Makes FILE alone hold the whole state: a snapshot when anything changed since the last one (the
   * log is then emptied). For a graceful stop: nothing acknowledged is lost, and FILE is complete.
   */
  async flush(): Promise<void> {
    const failure = await this.exclusive('flush');
    if (failure) throw failure;
  }

  /** Writes a snapshot and empties the log now (also used at start, to seed FILE or fold a replayed log). */
  async snapshot(): Promise<void> {
    const failure = await this.exclusive('snapshot');
    if (failure) throw failure;
  }

  /** Opens the log for appending (creating it empty when missing), so a bad path fails at start. */
  checkWritable(): void {
    this.log.open();
  }

  getStats(): PersistenceStats {
    return { ...this.stats, fsyncs: this.log.fsyncs, pending: this.pending.length, seq: this.seq };
  }

  /** A write at the end of this turn of the event loop, so the changes of every request handled in it go in one append. */
  private schedule(): void {
    if (this.immediate !== null || this.writing !== null) return; // the write in progress schedules the next when it ends
    this.immediate = setImmediate(this.writeScheduled);
  }

  private readonly writeScheduled = (): void => {
    this.immediate = null;
    if (this.writing === null && this.hasWork()) void this.exclusive('due');
  };

  private hasWork(): boolean {
    return this.pending.length > 0 || this.snapshotDue || this.next !== null || this.stats.logChars > this.compactLimit();
  }

  /**
   * Runs one disk operation once the one in progress has ended, then releases the requests waiting
   * on it (rejecting them when it failed); resolves with its failure (null when it succeeded),
   * never rejects.
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
    // Idle again before anyone is released: a released request asking whenDurable() gets nothing to wait for.
    this.writing = null;
    const settled = this.inFlight;
    this.inFlight = null;
    if (!failure) settled?.resolve();
    else if (settled) settled.reject(failure);
    // A change nobody waits on (a report a timer ran): nothing else would tell of the failure.
    else if (kind === 'due') process.emitWarning(`payments-sandbox: writing ${this.file} failed: ${failure.message}`);
    if (this.hasWork()) this.schedule();
    return failure;
  }

  private async write(kind: WriteKind): Promise<Error | null> {
    try {
      if (kind === 'snapshot') await this.writeSnapshot();
      else if (kind === 'flush') {
        if (this.snapshotDue || this.pending.length > 0 || this.stats.logChars > 0) await this.writeSnapshot();
      } else await this.writeDue();
      return null;
    } catch (err) {
      this.stats.failedWrites++;
      return err as Error;
    }
  }

  private async writeDue(): Promise<void> {
    if (this.snapshotDue || this.stats.logChars > this.compactLimit()) return this.writeSnapshot();
    if (this.pending.length === 0) return;
    const lines = this.pending.length;
    let text = '';
    // `{"seq":N,` then the change's own fields: records as they are now.
    for (const change of this.pending) text += `{"seq":${++this.seq},${JSON.stringify(change).slice(1)}\n`;
    this.clearPending();
    try {
      await this.log.append(text);
    } catch (err) {
      // The log may now end in a partial line and these changes are not (surely) in it: only a
      // snapshot can continue (it holds everything in memory), never another append.
      this.snapshotDue = true;
      throw err;
    }
    this.stats.appends++;
    this.stats.appendedLines += lines;
    this.stats.logChars += text.length;
  }

  private async writeSnapshot(): Promise<void> {
    this.snapshotDue = true; // until the log is emptied: a failure here is retried by the next write
    await this.db.write(); // stringifies now (captureSnapshot), then writes FILE whole (and durably, unless fsync never)
    await this.log.truncate();
    this.stats.logChars = 0;
    this.stats.snapshots++;
    this.snapshotDue = false;
  }

  /**
   * lowdb's stringify: the moment the state is captured, so what is buffered is in it. `log_seq`
   * says which log lines it holds: replayed over it after a crash that left the log unemptied, they
   * are skipped (a put of an older state would otherwise bring that state back).
   */
  private captureSnapshot(data: StoreData): string {
    this.clearPending();
    const text = `{"log_seq":${this.seq},${JSON.stringify(data).slice(1)}`;
    this.stats.snapshotChars = text.length;
    return text;
  }

  private clearPending(): void {
    this.pending = [];
    this.pendingPuts.clear();
    this.pendingAwaited = false;
  }

  private compactLimit(): number {
    return this.options.compactLogChars ?? Math.max(MIN_COMPACT_CHARS, this.stats.snapshotChars / 2);
  }
}
