// File persistence of a store: a snapshot FILE plus an append-only change log FILE.log.
//
// Every change is appended to the log before any answer that could show it is sent, with group
// commit (group-commit.ts): the changes of one turn of the event loop, and those made while an
// append is in flight, go out in one append (one write(2) on the open log). The fsync policy says when
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
import { GroupCommit, type Persistence } from './group-commit.js';
import { logFileOf } from './persistence-load.js';
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

const MIN_COMPACT_CHARS = 1 << 20;

export class FilePersistence extends GroupCommit implements Persistence {
  readonly db: Low<StoreData>;
  readonly logFile: string;
  readonly keepsOwnRecords = true;
  private readonly log: ChangeLogFile;
  private readonly stats: Omit<PersistenceStats, 'pending' | 'seq' | 'fsyncs'>;
  /** The seq of the last line appended (or loaded): every line gets the next; a snapshot records it as log_seq. */
  private seq: number;

  constructor(
    readonly file: string,
    data: StoreData,
    private readonly options: PersistenceOptions & { snapshotChars: number; logChars: number; lastSeq: number },
  ) {
    super();
    this.seq = options.lastSeq;
    const fsync = options.fsync ?? 'batch';
    this.logFile = logFileOf(file);
    this.log = new ChangeLogFile(this.logFile, fsync);
    this.db = new Low<StoreData>(new SnapshotFile<StoreData>(file, (d) => this.captureSnapshot(d), fsync !== 'never'), data);
    this.stats = { appends: 0, appendedLines: 0, snapshots: 0, failedWrites: 0, logChars: options.logChars, snapshotChars: options.snapshotChars };
  }

  /** Opens the log for appending (creating it empty when missing), so a bad path fails at start. */
  checkWritable(): void {
    this.log.open();
  }

  getStats(): PersistenceStats {
    return { ...this.stats, fsyncs: this.log.fsyncs, pending: this.pending.length, seq: this.seq };
  }

  protected override compactionDue(): boolean {
    return this.stats.logChars > this.compactLimit();
  }

  protected flushNeeded(): boolean {
    return this.snapshotDue || this.pending.length > 0 || this.stats.logChars > 0;
  }

  protected unheardFailure(err: Error): void {
    process.emitWarning(`payments-sandbox: writing ${this.file} failed: ${err.message}`);
  }

  protected override failedWrite(): void {
    this.stats.failedWrites++;
  }

  protected async writeDue(): Promise<void> {
    if (this.snapshotDue || this.stats.logChars > this.compactLimit()) return this.writeSnapshot();
    if (this.pending.length === 0) return;
    const changes = this.takePending();
    let text = '';
    // `{"seq":N,` then the change's own fields: records as they are now.
    for (const change of changes) text += `{"seq":${++this.seq},${JSON.stringify(change).slice(1)}\n`;
    try {
      await this.log.append(text);
    } catch (err) {
      // The log may now end in a partial line and these changes are not (surely) in it: only a
      // snapshot can continue (it holds everything in memory), never another append.
      this.snapshotDue = true;
      throw err;
    }
    this.stats.appends++;
    this.stats.appendedLines += changes.length;
    this.stats.logChars += text.length;
  }

  protected async writeSnapshot(): Promise<void> {
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

  private compactLimit(): number {
    return this.options.compactLogChars ?? Math.max(MIN_COMPACT_CHARS, this.stats.snapshotChars / 2);
  }
}
