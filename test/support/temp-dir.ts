// The tests' temporary folders: made in the system's temp folder, each removed once the test file
// that made it has ended (temp-dir.setup.ts, a setup file of every test file, removes them after the
// file's own hooks have stopped what used them), so that a run leaves nothing behind in /tmp.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new empty folder, `<prefix>` and six random characters, removed after this test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Such a folder holding these files (name -> text). */
export function tempDirWith(prefix: string, files: Record<string, string>): string {
  const dir = tempDir(prefix);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Removes every folder tempDir made until now. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
