// The lowdb adapter that writes a data file's snapshot: the whole text to a temporary file beside
// it, then renamed over it, so FILE is always whole (what lowdb's own DataFile does through steno).
// Unlike steno it can make the write durable: the temporary file is flushed to the disk before the
// rename and the folder after it, so a power loss leaves the old snapshot or the new one, never an
// empty FILE, and the change log is emptied only once the new snapshot is on the disk.
// (write-file-atomic flushes the file but not the folder, and installs signal handlers of its own
// beside the CLI's.)
import { open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';

export class SnapshotFile<T> implements Adapter<T> {
  private readonly tempFile: string;

  /**
   * `stringify` is called once per write, when the write starts: the state it captures is the one
   * written. `durable`: flush to the disk (fdatasync, then fsync of the folder) before resolving.
   */
  constructor(
    readonly file: string,
    private readonly stringify: (data: T) => string,
    private readonly durable: boolean,
  ) {
    this.tempFile = join(dirname(file), `.${basename(file)}.tmp`);
  }

  /** Never used: the store loads FILE itself (persistence-load.ts), with its checks. */
  async read(): Promise<T | null> {
    return null;
  }

  async write(data: T): Promise<void> {
    const text = this.stringify(data);
    const handle = await open(this.tempFile, 'w');
    try {
      await handle.writeFile(text, 'utf8');
      if (this.durable) await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(this.tempFile, this.file);
    if (this.durable) await syncFolder(dirname(this.file));
  }
}

/** Makes a rename in the folder durable (a folder is flushed through a descriptor of its own). */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
