// Loading a data file at start: the snapshot FILE (written whole, atomically: snapshot-file.ts), then its
// change log FILE.log replayed on top, one JSON line per change. A crash (kill -9) can only cut the
// log's last append short, so a torn last line is skipped; anything else that does not load is an
// error naming the file (and line, or record), never a silent reset. A missing FILE starts fresh;
// an existing one must parse, have the shape of a data file, and every record in it (and in the
// log) must pass the checks of a snapshot import: an empty FILE is what a truncated one looks like.
import { existsSync, readFileSync } from 'node:fs';
import { decodeUtf8, invalidUtf8Text } from '../errors/utf8-text.js';
import { type DataChecker, dataFileProblem, isObject, isSeq, listed, type RecordChecker } from './data-file-checks.js';
import { COLLECTION_NAMES, type CollectionName, type StoreData } from './records.js';

/** The change log next to a data file. */
export function logFileOf(file: string): string {
  return `${file}.log`;
}

/**
 * One line of the change log: a record added at the end of collection `c` (ins), a record changed
 * in place (put, the whole record), or an id deleted (del). `seq` numbers the lines, increasing over
 * the whole life of the file (logs written before it existed have none).
 */
export type LogChange = ({ c: string; ins: { id: string } } | { c: string; put: { id: string } } | { c: string; del: string }) & { seq?: number };

export interface LoadedDataFile {
  /** The snapshot with the log replayed; null when FILE is missing (the caller seeds it). */
  data: StoreData | null;
  /** Length of the snapshot text (0 when missing). */
  snapshotChars: number;
  /** Length of the log as found, torn tail included: not 0 means it should be folded into a snapshot. */
  logChars: number;
  /** Complete changes replayed. */
  replayed: number;
  /** Whether a torn last line was skipped. */
  torn: boolean;
  /** Lines skipped because the snapshot already holds them (seq at or below its log_seq). */
  skipped: number;
  /** The highest seq of the snapshot and the log: the next line appended gets the one after. */
  lastSeq: number;
}

const DO_NOT_RESET = 'the sandbox does not reset it silently';

export function loadDataFile(file: string, checkRecord: RecordChecker | null = null, checkData: DataChecker | null = null): LoadedDataFile {
  const logFile = logFileOf(file);
  const text = existsSync(file) ? readText(file, `the data file ${file}`, false) : null;
  const log = existsSync(logFile) ? readText(logFile, `the change log ${logFile}`, true) : '';
  if (text === null) {
    // Our snapshot is written before any log line, so changes without it mean a lost FILE.
    if (log.trim() !== '') {
      throw new Error(
        `the data file ${file} is missing but its change log ${logFile} holds changes. Restore ${file}, or remove ${logFile} too to start from the fixtures; ${DO_NOT_RESET}.`,
      );
    }
    return { data: null, snapshotChars: 0, logChars: log.length, replayed: 0, torn: false, skipped: 0, lastSeq: 0 };
  }
  if (text.trim() === '') {
    // The sandbox writes FILE whole (a temporary file renamed over it): never empty, so it was cut short or emptied.
    throw new Error(
      `the data file ${file} is empty (${Buffer.byteLength(text)} bytes), as a file cut short or emptied would be; the sandbox never writes it empty. Restore it, or remove it (and ${logFile}) to start from the fixtures; ${DO_NOT_RESET}.`,
    );
  }
  const { data, logSeq } = parseDataFile(file, text, checkRecord);
  const replay = replayLog(data, logFile, log, { checkRecord, logSeq });
  const problem = checkData?.(data);
  if (problem) {
    const replayed = replay.replayed ? ` (with the ${replay.replayed} change${replay.replayed === 1 ? '' : 's'} of ${logFile} replayed)` : '';
    throw new Error(`the data file ${file}${replayed}: ${problem}. Fix or remove it; ${DO_NOT_RESET}.`);
  }
  return { data, snapshotChars: text.length, logChars: log.length, ...replay };
}

/**
 * The file as text, refused when it is not UTF-8 (a lenient read would load U+FFFD as if it had
 * been written). `tornTail`: a change log, whose last line, when a crash cut it short, may end
 * inside a character; that line is skipped anyway.
 */
function readText(file: string, what: string, tornTail: boolean): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new Error(`${what} cannot be read: ${(err as Error).message}. Fix its path or permissions; ${DO_NOT_RESET}.`);
  }
  const { text, invalidAt } = decodeUtf8(bytes);
  if (invalidAt === null || (tornTail && bytes.indexOf(0x0a, invalidAt) < 0)) return text;
  const line = bytes.subarray(0, invalidAt).filter((b) => b === 0x0a).length + 1;
  throw new Error(`${what} is not UTF-8: at line ${line}, ${invalidUtf8Text(bytes, invalidAt)}. Fix or remove it; ${DO_NOT_RESET}.`);
}

/**
 * The snapshot's data, and `log_seq`: the seq of the last log line it holds (0 in files written
 * before seqs existed), taken out of the data (it describes the file, not the state).
 */
function parseDataFile(file: string, text: string, checkRecord: RecordChecker | null): { data: StoreData; logSeq: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`the data file ${file} cannot be loaded: ${(err as Error).message}. Fix or remove it; ${DO_NOT_RESET}.`);
  }
  const data = parsed as StoreData;
  if (!isObject(data) || data.schema_version !== 1 || !isObject(data.collections)) {
    throw new Error(`the data file ${file} is not a payments-sandbox data file (schema_version 1 with collections). Fix or remove it.`);
  }
  const problem = dataFileProblem(data, checkRecord);
  if (problem) throw new Error(`the data file ${file}: ${problem}. Fix or remove it; ${DO_NOT_RESET}.`);
  const { log_seq: logSeq = 0 } = data as { log_seq?: number };
  delete (data as { log_seq?: number }).log_seq;
  return { data, logSeq };
}

export interface ReplayOptions {
  checkRecord?: RecordChecker | null;
  /** The seq of the last line the snapshot holds: lines at or below it are skipped. */
  logSeq?: number;
}

/**
 * Applies the log's changes to `data` in order; the same state the live collections reached. Lines
 * the snapshot already holds are skipped: a crash between writing a snapshot and emptying the log
 * leaves them, and replaying a put of an older state over the snapshot would bring it back.
 */
export function replayLog(
  data: StoreData,
  logFile: string,
  log: string,
  { checkRecord = null, logSeq = 0 }: ReplayOptions = {},
): { replayed: number; torn: boolean; skipped: number; lastSeq: number } {
  const lines = log.split('\n');
  const tail = lines.pop() ?? ''; // '' when the log ends with a newline, as every complete append does
  const replayer = new Replayer(data);
  let replayed = 0;
  let skipped = 0;
  let lastSeq = logSeq;
  const corrupt = (number: number, problem: string) =>
    new Error(
      `the change log ${logFile} is corrupt at line ${number}: ${problem}. Only a torn last line (a crash mid-write) is skipped; fix or remove that line, or remove ${logFile} to lose the changes since the last snapshot; ${DO_NOT_RESET}.`,
    );
  const apply = (change: LogChange, number: number) => {
    if (change.seq !== undefined) {
      lastSeq = Math.max(lastSeq, change.seq);
      if (change.seq <= logSeq) return void skipped++;
    }
    const record = 'ins' in change ? change.ins : 'put' in change ? change.put : null;
    const problems = record && checkRecord ? checkRecord(change.c as CollectionName, record) : [];
    if (problems.length) throw corrupt(number, `the ${change.c} record ${JSON.stringify(record!.id).slice(0, 80)}: ${listed(problems)}`);
    replayer.apply(change);
    replayed++;
  };
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const change = parseLine(line);
    if (typeof change === 'string') throw corrupt(i + 1, change);
    apply(change, i + 1);
  });
  let torn = false;
  if (tail.trim() !== '') {
    // No newline after it: the last append was cut short. Whole and valid, it is still a change made.
    const change = parseLine(tail);
    if (typeof change === 'string') torn = true;
    else apply(change, lines.length + 1);
  }
  replayer.finish();
  return { replayed, torn, skipped, lastSeq };
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
  if (change.seq !== undefined && !isSeq(change.seq, 1)) return `"seq" is not an integer of 1 or more (${JSON.stringify(change.seq)})`;
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
 * when a log without seqs (an older sandbox's) is replayed onto a snapshot that already holds it,
 * and makes that replay change nothing, record order included; lines with seqs the snapshot holds
 * are skipped before they get here.
 */
export class Replayer {
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
