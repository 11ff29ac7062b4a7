// The file reader the commands hand to loadConfig (which reads no file itself).
import { readFileSync } from 'node:fs';

/** A file's text, or null when there is none (a missing config file is not an error). */
export function readFileOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
