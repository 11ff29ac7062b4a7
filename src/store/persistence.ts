// File persistence of a store: a snapshot FILE plus an append-only change log FILE.log.
//
// A change (a record inserted or changed, whole, or an id deleted) is buffered in memory; one async
// append per interval (100 ms by default) writes the buffered lines, so a request never waits on the
// disk and a burst costs a few appends a second, however many requests and however big the state.
// Changes to the same record within one interval collapse into one line (every authenticated
// request updates its key pair's last_used_at). When the log grows past half the snapshot (1 MiB at
// least), a new snapshot is written through lowdb (steno: temp file + rename, so FILE is always
// whole) and the log is emptied. Every line carries a seq, increasing over the file's life, and
// the snapshot records the last one it holds (log_seq): after a crash between the two writes, the
// lines left in the log are skipped at start instead of replayed over the newer snapshot (a put
// would bring an older state back). Every disk operation runs in one queue, in order, so no append
// lands between a snapshot and the emptying of the log.
import { appendFile, writeFile } from 'node:fs/promises';
import { Low } from 'lowdb';
import { DataFile } from 'lowdb/node';
import type { CollectionListener } from './collection.js';
import { type LogChange, logFileOf } from './persistence-load.js';
import type { StoreData } from './records.js';

export interface PersistenceOptions {
  /** Milliseconds to gather changes before one append (default 100). */
  writeDelayMs?: number;
  /** Log size (characters) past which a new snapshot is written; default half the snapshot, 1 MiB at least. */
  compactLogChars?: number;
}

export interface PersistenceStats {
  /** Appends to the log (one per interval with changes). */
  appends: number;
  /** Lines appended in all. */
  appendedLines: number;
  /** Snapshots written (seeding, start after a crash, log past its limit, reset or import, flush). */
  snapshots: number;
  /** Characters in the log now. */
  logChars: number;
  /** Characters of the last snapshot. */
  snapshotChars: number;
  /** Changes buffered, not yet appended. */
  pending: number;
}

const MIN_COMPACT_CHARS = 1 << 20;

export class FilePersistence {
  readonly db: Low<StoreData>;
  readonly logFile: string;
  private readonly stats: Omit<PersistenceStats, 'pending'>;
  private pending: LogChange[] = [];
  /** `collection \n id` -> position in `pending` of that record's ins or put, to collapse repeats. */
  private readonly pendingPuts = new Map<string, number>();
  /** Set when the log cannot be trusted to continue (a failed append, a whole new state). */
  private snapshotDue = false;
  private timer: NodeJS.Timeout | null = null;
  private queue: Promise<void> = Promise.resolve();
  private epoch = 0;
  /** The seq of the last line appended (or loaded): every line gets the next; a snapshot records it as log_seq. */
  private seq: number;

  constructor(
    readonly file: string,
    data: StoreData,
    private readonly options: PersistenceOptions & { snapshotChars: number; logChars: number; lastSeq: number },
  ) {
    this.seq = options.lastSeq;
    this.logFile = logFileOf(file);
    this.db = new Low<StoreData>(new DataFile<StoreData>(file, { parse: JSON.parse, stringify: (d) => this.captureSnapshot(d) }), data);
    this.stats = { appends: 0, appendedLines: 0, snapshots: 0, logChars: options.logChars, snapshotChars: options.snapshotChars };
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
      put: (collection, row) => epoch === this.epoch && this.put(collection, row),
      del: (collection, id) => epoch === this.epoch && this.del(collection, id),
    };
  }

  private ins(collection: string, row: { id: string }): void {
    // Live, an insert means the id is absent, so a delete came first and no put of it is pending.
    this.pendingPuts.set(`${collection}\n${row.id}`, this.pending.push({ c: collection, ins: row }) - 1);
    this.schedule();
  }

  private put(collection: string, row: { id: string }): void {
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
    this.pending.push({ c: collection, del: id });
    this.schedule();
  }

  /** The whole state was replaced (reset, snapshot import): the next write is a snapshot, not lines. */
  replaced(): void {
    this.snapshotDue = true;
    this.clearPending();
    this.schedule();
  }

  /** Appends the buffered changes (or writes the snapshot that is due); resolves once on disk. */
  sync(): Promise<void> {
    this.cancelTimer();
    return this.enqueue(() => this.writeDue());
  }

  /**
   * Makes FILE alone hold the whole state: a snapshot when anything changed since the last one (the
   * log is then emptied). For a graceful stop: nothing acknowledged is lost, and FILE is complete.
   */
  flush(): Promise<void> {
    this.cancelTimer();
    return this.enqueue(async () => {
      if (this.snapshotDue || this.pending.length > 0 || this.stats.logChars > 0) await this.writeSnapshot();
    });
  }

  /** Writes a snapshot and empties the log now (also used at start, to seed FILE or fold a replayed log). */
  snapshot(): Promise<void> {
    this.cancelTimer();
    return this.enqueue(() => this.writeSnapshot());
  }

  /** Makes sure the log can be appended to (creates it empty when missing), so a bad path fails at start. */
  async checkWritable(): Promise<void> {
    try {
      await appendFile(this.logFile, '');
    } catch (err) {
      throw new Error(`the change log ${this.logFile} cannot be written: ${(err as Error).message}. Fix its path or permissions.`);
    }
  }

  getStats(): PersistenceStats {
    return { ...this.stats, pending: this.pending.length };
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.enqueue(() => this.writeDue()).catch((err) => process.emitWarning(`payments-sandbox: writing ${this.file} failed: ${(err as Error).message}`));
    }, this.options.writeDelayMs ?? 100);
  }

  private cancelTimer(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  /** Runs disk operations one after another; a failed one does not stop those queued after it. */
  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
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
      await appendFile(this.logFile, text);
    } catch (err) {
      // The log may now end in a partial line and these changes are not in it: only a snapshot can
      // continue (it holds everything in memory), never another append.
      this.snapshotDue = true;
      throw err;
    }
    this.stats.appends++;
    this.stats.appendedLines += lines;
    this.stats.logChars += text.length;
    if (this.stats.logChars > this.compactLimit()) await this.writeSnapshot();
  }

  private async writeSnapshot(): Promise<void> {
    this.snapshotDue = true; // until the log is emptied: a failure here is retried by the next write
    await this.db.write(); // stringifies now (captureSnapshot), then writes FILE atomically
    await writeFile(this.logFile, '');
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
  }

  private compactLimit(): number {
    return this.options.compactLogChars ?? Math.max(MIN_COMPACT_CHARS, this.stats.snapshotChars / 2);
  }
}
