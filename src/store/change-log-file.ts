// The change log FILE.log as the store writes it: one descriptor opened for appending (O_APPEND,
// so every write lands at the end), whole batches appended with one write(2) each, the fsync
// policy applied to them, and the log emptied once a snapshot holds what it held.
import { fdatasync, ftruncate, openSync, write } from 'node:fs';

/** When an append reaches the disk itself: before it is acknowledged, within FSYNC_BATCH_MS, or when the OS decides. */
export type FsyncPolicy = 'always' | 'batch' | 'never';
export const FSYNC_POLICIES: readonly FsyncPolicy[] = ['always', 'batch', 'never'];

/** With `batch`: the most time an acknowledged append may wait for its fsync. */
export const FSYNC_BATCH_MS = 100;

export class ChangeLogFile {
  /** fdatasync calls so far. */
  fsyncs = 0;
  private fd = -1;
  /** With `batch`: an append not yet flushed to the disk, and the timer that will. */
  private unsynced = false;
  private fsyncTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly path: string,
    private readonly fsync: FsyncPolicy,
  ) {
    if (!FSYNC_POLICIES.includes(fsync)) throw new Error(`fsync must be one of ${FSYNC_POLICIES.join(', ')}, not ${JSON.stringify(fsync)}`);
  }

  /** Opens the log (creating it empty when missing), so a bad path fails at start. */
  open(): void {
    try {
      this.fd = openSync(this.path, 'a');
    } catch (err) {
      throw new Error(`the change log ${this.path} cannot be written: ${(err as Error).message}. Fix its path or permissions.`);
    }
  }

  /**
   * Appends `text` (whole lines); resolves once the OS holds it, and with `always` once the disk
   * does. A failure may leave part of it at the end of the log: the caller must not append again
   * before a snapshot has emptied it.
   */
  async append(text: string): Promise<void> {
    await this.writeAll(Buffer.from(text));
    if (this.fsync === 'always') await this.datasync();
    else if (this.fsync === 'batch') this.syncSoon();
  }

  /** Empties the log: a snapshot now holds what it held. */
  truncate(): Promise<void> {
    return new Promise((resolve, reject) =>
      ftruncate(this.fd, 0, (err) => {
        if (err) return reject(err);
        this.unsynced = false;
        resolve();
      }),
    );
  }

  /** One write(2) of the whole text; a short write (a disk filling up) goes on with the rest, or fails. */
  private writeAll(bytes: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      const from = (offset: number) =>
        write(this.fd, bytes, offset, bytes.length - offset, null, (err, written) => {
          if (err) reject(err);
          else if (written === 0) reject(new Error(`appending to ${this.path} wrote nothing`));
          else if (offset + written < bytes.length) from(offset + written);
          else resolve();
        });
      from(0);
    });
  }

  private datasync(): Promise<void> {
    return new Promise((resolve, reject) =>
      fdatasync(this.fd, (err) => {
        if (err) return reject(err);
        this.fsyncs++;
        resolve();
      }),
    );
  }

  /** With `batch`: one fdatasync within FSYNC_BATCH_MS of an append, for every append in that time. */
  private syncSoon(): void {
    this.unsynced = true;
    this.fsyncTimer ??= setTimeout(() => {
      this.fsyncTimer = null;
      if (!this.unsynced) return;
      this.unsynced = false;
      this.datasync().catch((err) => process.emitWarning(`payments-sandbox: fsync of ${this.path} failed: ${(err as Error).message}`));
    }, FSYNC_BATCH_MS).unref(); // a stop flushes with a snapshot: the timer must not hold the process
  }
}
