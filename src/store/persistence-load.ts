// Loading a data file at start: the snapshot FILE (written whole, atomically, by lowdb), then its
// change log FILE.log replayed on top, one JSON line per change. A crash (kill -9) can only cut the
// log's last append short, so a torn last line is skipped; anything else that does not load is an
// error naming the file (and line), never a silent reset.
import { existsSync, readFileSync } from 'node:fs';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from './records.js';

/** The change log next to a data file. */
export function logFileOf(file: string): string {
  return `${file}.log`;
}

/**
 * One line of the change log: a record added at the end of collection `c` (ins), a record changed
 * in place (put, the whole record), or an id deleted (del).
 */
export type LogChange = { c: string; ins: { id: string } } | { c: string; put: { id: string } } | { c: string; del: string };

export interface LoadedDataFile {
  /** The snapshot with the log replayed; null when FILE is missing or empty (the caller seeds it). */
  data: StoreData | null;
  /** Length of the snapshot text (0 when missing). */
  snapshotChars: number;
  /** Length of the log as found, torn tail included: not 0 means it should be folded into a snapshot. */
  logChars: number;
  /** Complete changes replayed. */
  replayed: number;
  /** Whether a torn last line was skipped. */
  torn: boolean;
}

export function loadDataFile(file: string): LoadedDataFile {
  const logFile = logFileOf(file);
  const text = existsSync(file) ? readText(file, `the data file ${file}`) : '';
  const log = existsSync(logFile) ? readText(logFile, `the change log ${logFile}`) : '';
  if (text.trim() === '') {
    // Our snapshot is written before any log line, so changes without it mean a lost or emptied FILE.
    if (log.trim() !== '') {
      throw new Error(
        `the data file ${file} is missing or empty but its change log ${logFile} holds changes. Restore ${file}, or remove ${logFile} too to start from the fixtures; the sandbox does not reset it silently.`,
      );
    }
    return { data: null, snapshotChars: 0, logChars: log.length, replayed: 0, torn: false };
  }
  const data = parseDataFile(file, text);
  const { replayed, torn } = replayLog(data, logFile, log);
  return { data, snapshotChars: text.length, logChars: log.length, replayed, torn };
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${what} cannot be read: ${(err as Error).message}. Fix its path or permissions; the sandbox does not reset it silently.`);
  }
}

function parseDataFile(file: string, text: string): StoreData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`the data file ${file} cannot be loaded: ${(err as Error).message}. Fix or remove it; the sandbox does not reset it silently.`);
  }
  const data = parsed as StoreData;
  if (!data || typeof data !== 'object' || data.schema_version !== 1 || typeof data.collections !== 'object' || data.collections === null) {
    throw new Error(`the data file ${file} is not a payments-sandbox data file (schema_version 1 with collections). Fix or remove it.`);
  }
  return data;
}

/** Applies the log's changes to `data` in order; the same state the live collections reached. */
export function replayLog(data: StoreData, logFile: string, log: string): { replayed: number; torn: boolean } {
  const lines = log.split('\n');
  const tail = lines.pop() ?? ''; // '' when the log ends with a newline, as every complete append does
  const replayer = new Replayer(data);
  let replayed = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const change = parseLine(line);
    if (typeof change === 'string') {
      throw new Error(
        `the change log ${logFile} is corrupt at line ${i + 1}: ${change}. Only a torn last line (a crash mid-write) is skipped; fix or remove that line, or remove ${logFile} to lose the changes since the last snapshot; the sandbox does not reset it silently.`,
      );
    }
    replayer.apply(change);
    replayed++;
  });
  let torn = false;
  if (tail.trim() !== '') {
    // No newline after it: the last append was cut short. Whole and valid, it is still a change made.
    const change = parseLine(tail);
    if (typeof change === 'string') torn = true;
    else {
      replayer.apply(change);
      replayed++;
    }
  }
  replayer.finish();
  return { replayed, torn };
}

const NAMES = new Set<string>(COLLECTION_NAMES);

/** The change on that line, or what is wrong with it. */
function parseLine(line: string): LogChange | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'not a JSON object';
  const change = parsed as Record<string, unknown>;
  if (typeof change.c !== 'string' || !NAMES.has(change.c)) return `"c" is not a collection name (${JSON.stringify(change.c)})`;
  for (const kind of ['ins', 'put'] as const) {
    if (!(kind in change)) continue;
    const record = change[kind] as { id?: unknown } | null;
    if (!record || typeof record !== 'object' || Array.isArray(record) || typeof record.id !== 'string' || record.id === '')
      return `"${kind}" is not a record with a string id`;
    return change as LogChange;
  }
  if (typeof change.del === 'string' && change.del !== '') return change as LogChange;
  return 'none of "ins" or "put" (a record) or "del" (an id)';
}

/**
 * Replays the changes with an id -> position index per collection, as the live collection made
 * them: ins appends (insert), put replaces in place (update, replace), del leaves a hole removed at
 * the end (remove splices). An ins of an id already there moves it to the end: that happens only
 * when the log is replayed onto a snapshot that already holds it (a crash between writing a
 * snapshot and emptying the log), and makes that replay change nothing, record order included.
 */
class Replayer {
  private readonly indexes = new Map<string, Map<string, number>>();
  private readonly holed = new Set<CollectionName>();

  constructor(private readonly data: StoreData) {}

  apply(change: LogChange): void {
    const name = change.c as CollectionName;
    const rows = (this.data.collections[name] ??= []) as Array<{ id: string } | undefined>;
    const index = this.indexOf(name, rows);
    if ('del' in change) {
      this.unset(name, rows, index, change.del);
      return;
    }
    const record = 'ins' in change ? change.ins : change.put;
    const at = index.get(record.id);
    if (at !== undefined && 'put' in change) {
      rows[at] = record;
      return;
    }
    this.unset(name, rows, index, record.id);
    index.set(record.id, rows.push(record) - 1);
  }

  private unset(name: CollectionName, rows: Array<{ id: string } | undefined>, index: Map<string, number>, id: string): void {
    const at = index.get(id);
    if (at === undefined) return;
    rows[at] = undefined;
    index.delete(id);
    this.holed.add(name);
  }

  finish(): void {
    for (const name of this.holed) {
      (this.data.collections as Record<string, unknown[]>)[name] = this.data.collections[name].filter((row) => row !== undefined);
    }
  }

  private indexOf(name: string, rows: Array<{ id: string } | undefined>): Map<string, number> {
    let index = this.indexes.get(name);
    if (!index) {
      index = new Map();
      rows.forEach((row, i) => {
        if (row) index!.set(row.id, i);
      });
      this.indexes.set(name, index);
    }
    return index;
  }
}
