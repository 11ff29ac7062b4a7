// The data file through the real HTTP interface: a change goes to FILE.log (FILE, the snapshot, is
// not rewritten), a new sandbox on the same files replays it, a torn last log line is skipped, a
// corrupt one elsewhere stops boot naming the log and the line, reset and snapshot import write a
// snapshot and empty the log, a graceful flush leaves FILE equal to the live state.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSandbox } from '../../src/sandbox.js';
import { expectJson, expectNoContent, expectNotFound, store } from '../api/support.js';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const WEBHOOK = WELL_KNOWN.webhookSubscriptions.default.id;

const dir = mkdtempSync(join(tmpdir(), 'sandbox-change-log-'));
const opened: TestSandbox[] = [];
afterAll(() => {
  for (const sb of opened) sb.server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(file: string): Promise<TestSandbox> {
  const sb = await startTestSandbox({ dataFile: file });
  opened.push(sb);
  return sb;
}

const fileStore = (sb: TestSandbox) => sb.deps.namespaces.get().store;
/** Content and identity of the snapshot: a rewrite (steno renames a temp file) changes the inode. */
function snapshotOf(file: string) {
  const stat = statSync(file);
  return { text: readFileSync(file, 'utf8'), ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size };
}
/** The state a snapshot holds: the file without its log_seq (which lines of the log it holds). */
function snapshotState(file: string): any {
  const { log_seq, ...state } = JSON.parse(readFileSync(file, 'utf8'));
  expect(Number.isSafeInteger(log_seq)).toBe(true);
  return state;
}
/** The log's lines without their seq (checked to increase by one from `after` + 1). */
function logLines(file: string, after?: number): any[] {
  return readFileSync(`${file}.log`, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) => {
      const { seq, ...change } = JSON.parse(l);
      if (after !== undefined) expect(seq).toBe(after + 1 + i);
      return change;
    });
}
const storedBuyer = async (sb: TestSandbox, id = BUYER) => sb.http.get(`/_sandbox/records/buyers/${id}?shape=stored`);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('changes go to the log, not the snapshot', () => {
  it('appends a PUT to FILE.log without rewriting FILE, and a new sandbox replays it', async () => {
    const file = join(dir, 'put.json');
    const first = await open(file);
    expect(readFileSync(`${file}.log`, 'utf8')).toBe(''); // seeded: a snapshot and an empty log
    const before = snapshotOf(file);
    expect(JSON.parse(before.text).collections.buyers.find((b: any) => b.id === BUYER).display_name).toBe('Jane Doe');

    const put = await first.http.put(`/buyers/${BUYER}`).set('authorization', first.auth).send({ display_name: 'Logged Jane', account_number: null });
    expectJson(put, 200);
    expect(snapshotOf(file)).toEqual(before);
    const lines = logLines(file, 0);
    const live = store(first);
    // The buyer once, as stored now; besides it only the admin key pair (its last_used_at moved).
    expect(lines.filter((l) => l.c === 'buyers')).toEqual([{ c: 'buyers', put: JSON.parse(JSON.stringify(live.buyers.get(BUYER))) }]);
    for (const line of lines.filter((l) => l.c !== 'buyers')) {
      expect(line).toEqual({ c: 'api_key_pairs', put: JSON.parse(JSON.stringify(live.api_key_pairs.get(WELL_KNOWN.keyPairs.admin.id))) });
    }
    expect(lines.length).toBeLessThanOrEqual(2);
    const stats = fileStore(first).persistenceStats!;
    expect(stats.snapshots).toBe(1);
    expect(stats.appendedLines).toBe(lines.length);
    expect(stats.logChars).toBe(readFileSync(`${file}.log`, 'utf8').length);
    expect(stats.pending).toBe(0);

    // The first sandbox is never stopped: the second starts from the files as a crash left them.
    const second = await open(file);
    const read = await storedBuyer(second);
    expectJson(read, 200);
    expect(read.body).toEqual(JSON.parse(JSON.stringify(live.buyers.get(BUYER))));
    expect(read.body).toMatchObject({ display_name: 'Logged Jane', account_number: null, updated_at: put.body.updated_at });
    // Starting after a crash folds the log into a new snapshot, so the next start has nothing to replay.
    expect(readFileSync(`${file}.log`, 'utf8')).toBe('');
    expect(snapshotState(file)).toEqual(JSON.parse(JSON.stringify(fileStore(second).data)));
    expect(JSON.parse(readFileSync(file, 'utf8')).log_seq).toBe(lines.length); // the lines it holds
    expect(fileStore(second).persistenceStats).toMatchObject({ snapshots: 1, appends: 0, logChars: 0 });
  });

  it('keeps a DELETE across a restart', async () => {
    const file = join(dir, 'delete.json');
    const first = await open(file);
    expectNoContent(await first.http.delete(`/webhook-subscriptions/${WEBHOOK}`).set('authorization', first.auth));
    expect(logLines(file).filter((l) => l.c === 'webhook_subscriptions')).toEqual([{ c: 'webhook_subscriptions', del: WEBHOOK }]);
    expect(JSON.parse(readFileSync(file, 'utf8')).collections.webhook_subscriptions.map((w: any) => w.id)).toContain(WEBHOOK);

    const second = await open(file);
    expectNotFound(await second.http.delete(`/webhook-subscriptions/${WEBHOOK}`).set('authorization', second.auth));
    expectNotFound(await second.http.get(`/_sandbox/records/webhook_subscriptions/${WEBHOOK}`));
    expect(store(second).webhook_subscriptions.get(WELL_KNOWN.webhookSubscriptions.merchantTwo.id)).toBeDefined();
    expect(JSON.parse(readFileSync(file, 'utf8')).collections.webhook_subscriptions.map((w: any) => w.id)).not.toContain(WEBHOOK);
  });

  it('answers a write only once the log holds it, and gathers concurrent writes into shared appends', async () => {
    const file = join(dir, 'burst.json');
    const sb = await open(file);
    const lastBuyerLine = () =>
      logLines(file)
        .filter((l) => l.c === 'buyers')
        .at(-1)?.put;
    // One at a time: when the 200 arrives, the log already holds that very change (no sync() asked).
    for (let i = 0; i < 5; i++) {
      const res = await sb.http
        .put(`/buyers/${BUYER}`)
        .set('authorization', sb.auth)
        .send({ display_name: `Sequential ${i}` });
      expectJson(res, 200);
      expect(lastBuyerLine().display_name).toBe(`Sequential ${i}`);
      expect(lastBuyerLine()).toEqual(JSON.parse(JSON.stringify(store(sb).buyers.get(BUYER))));
    }
    // Bursts: when every answer is in, the log holds the final state.
    const before = fileStore(sb).persistenceStats!;
    let requests = 0;
    for (let round = 0; round < 10; round++) {
      const batch = Array.from({ length: 10 }, (_, i) => `Burst ${round}-${i}`);
      const answers = await Promise.all(batch.map((name) => sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: name })));
      requests += answers.length;
      for (const res of answers) expectJson(res, 200);
      expect(lastBuyerLine()).toEqual(JSON.parse(JSON.stringify(store(sb).buyers.get(BUYER))));
      expect(batch).toContain(lastBuyerLine().display_name);
    }
    const stats = fileStore(sb).persistenceStats!;
    expect(stats.pending).toBe(0);
    expect(stats.appends - before.appends).toBeLessThanOrEqual(requests);
    // Per append at most the buyer and the key pair, each collapsed to its last state.
    expect(stats.appendedLines - before.appendedLines).toBeLessThanOrEqual(2 * (stats.appends - before.appends));
    expect(stats.snapshots).toBe(1);
    expect(logLines(file).length).toBe(stats.appendedLines);
  });
});

describe('starting from a log', () => {
  it('skips a torn last line (a crash mid-append) and applies the complete ones', async () => {
    const file = join(dir, 'torn.json');
    const first = await open(file);
    const buyer = { ...store(first).buyers.get(BUYER)!, display_name: 'From the log' };
    const other =
      WELL_KNOWN.buyers.merchantTwo?.id ??
      store(first)
        .buyers.all()
        .find((b) => b.id !== BUYER)!.id;
    writeFileSync(`${file}.log`, `${JSON.stringify({ c: 'buyers', put: buyer })}\n{"c":"buyers","put":{"id":"${other}","display_na`);

    const second = await open(file);
    expect((await storedBuyer(second)).body).toEqual(buyer);
    expect(store(second).buyers.get(other)).toEqual(store(first).buyers.get(other));
    expect(readFileSync(`${file}.log`, 'utf8')).toBe(''); // folded into the snapshot, torn tail gone
    expect(JSON.parse(readFileSync(file, 'utf8')).collections.buyers.find((b: any) => b.id === BUYER)).toEqual(buyer);
  });

  it('keeps the newer value when a crash between a snapshot and the emptying of the log left the old log', async () => {
    const file = join(dir, 'compaction-crash.json');
    const first = await open(file);
    expectJson(await first.http.put(`/buyers/${BUYER}`).set('authorization', first.auth).send({ display_name: 'Older' }), 200);
    const oldLog = readFileSync(`${file}.log`, 'utf8');
    expect(logLines(file).find((l) => l.c === 'buyers').put.display_name).toBe('Older');
    expectJson(await first.http.put(`/buyers/${BUYER}`).set('authorization', first.auth).send({ display_name: 'Newer' }), 200);
    await fileStore(first).flush(); // a snapshot with "Newer", then the log emptied
    writeFileSync(`${file}.log`, oldLog); // the files as the crash left them: new snapshot, old log

    const second = await open(file);
    expect((await storedBuyer(second)).body.display_name).toBe('Newer');
    expect(snapshotState(file).collections.buyers.find((b: any) => b.id === BUYER).display_name).toBe('Newer');

    // A data file can be imported as a snapshot as it is: its log_seq is accepted and ignored.
    const asFile = JSON.parse(readFileSync(file, 'utf8'));
    expect(asFile.log_seq).toBeGreaterThan(0);
    const imported = await second.http.put('/_sandbox/snapshot').send(asFile);
    expect(imported.status).toBe(200);
    expect((await second.http.get('/_sandbox/snapshot')).body).not.toHaveProperty('log_seq');
  });

  it('fails boot naming FILE.log and the line when a line before the last is corrupt, leaving both files as they were', async () => {
    const file = join(dir, 'corrupt-line.json');
    await open(file);
    const snapshot = readFileSync(file, 'utf8');
    const log = `{"c":"buyers","del":"${BUYER}"}\n{"c":"buyers","put":{"id":\n{"c":"buyers","del":"${BUYER}"}\n`;
    writeFileSync(`${file}.log`, log);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(
      new RegExp(`^the change log ${escapeRegExp(file)}\\.log is corrupt at line 2: not JSON`),
    );
    expect(readFileSync(file, 'utf8')).toBe(snapshot);
    expect(readFileSync(`${file}.log`, 'utf8')).toBe(log);
  });

  it('fails boot on a complete last line that is not a change, naming the line', async () => {
    const file = join(dir, 'bad-change.json');
    await open(file);
    writeFileSync(`${file}.log`, `{"c":"buyers","del":"${BUYER}"}\n{"c":"dragons","del":"x"}\n`);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(
      `the change log ${file}.log is corrupt at line 2: "c" is not a collection name ("dragons")`,
    );
    writeFileSync(`${file}.log`, `{"c":"buyers","put":{"display_name":"no id"}}\n`);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(
      `the change log ${file}.log is corrupt at line 1: "put" is not a record with a string id`,
    );
    writeFileSync(`${file}.log`, `{"c":"buyers","ins":{"id":""}}\n`);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(
      `the change log ${file}.log is corrupt at line 1: "ins" is not a record with a string id`,
    );
    writeFileSync(`${file}.log`, `[1]\n{"c":"buyers"}\n`);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(`the change log ${file}.log is corrupt at line 1: not a JSON object`);
    writeFileSync(`${file}.log`, `{"c":"buyers"}\n`);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(
      `the change log ${file}.log is corrupt at line 1: none of "ins" or "put" (a record) or "del" (an id)`,
    );
  });

  it('fails boot when FILE is gone but its log holds changes, never seeding over them', async () => {
    const file = join(dir, 'lost.json');
    writeFileSync(`${file}.log`, `{"c":"buyers","del":"${BUYER}"}\n`);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(
      `the data file ${file} is missing but its change log ${file}.log holds changes`,
    );
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(`${file}.log`, 'utf8')).toBe(`{"c":"buyers","del":"${BUYER}"}\n`);
  });

  it('fails boot naming a log that cannot be read', async () => {
    const file = join(dir, 'log-folder.json');
    writeFileSync(file, '');
    rmSync(`${file}.log`, { force: true });
    mkdirSync(`${file}.log`);
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(`the change log ${file}.log cannot be read: EISDIR`);
  });
});

describe('snapshots', () => {
  it('writes a snapshot and empties the log on reset', async () => {
    const file = join(dir, 'reset.json');
    const sb = await open(file);
    expectJson(await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'Before reset' }), 200);
    expect(logLines(file).length).toBeGreaterThan(0);

    expect((await sb.http.post('/_sandbox/reset')).status).toBe(200); // answered once the snapshot is written
    expect(readFileSync(`${file}.log`, 'utf8')).toBe('');
    // The fixtures again (with what the reset hooks then did, e.g. report schedules): the live state.
    expect(JSON.stringify(snapshotState(file)) === JSON.stringify(fileStore(sb).data)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).collections.buyers.find((b: any) => b.id === BUYER).display_name).toBe('Jane Doe');
    expect(fileStore(sb).persistenceStats).toMatchObject({ snapshots: 2, logChars: 0, pending: 0 });
    const again = await open(file);
    expect((await storedBuyer(again)).body.display_name).toBe('Jane Doe');
  });

  it('writes a snapshot and empties the log on a snapshot import', async () => {
    const file = join(dir, 'import.json');
    const sb = await open(file);
    // A buyer no record names, left out of the import (one that leaves a reference dangling is refused with a 422).
    const created = await sb.http.post('/_sandbox/records/buyers').send({ display_name: 'Leaving' });
    expect(created.status).toBe(201);
    const gone = created.body.id;
    const exported = (await sb.http.get('/_sandbox/snapshot')).body;
    exported.collections.buyers = exported.collections.buyers.filter((b: any) => b.id !== gone);
    expectNoContent(await sb.http.delete(`/webhook-subscriptions/${WEBHOOK}`).set('authorization', sb.auth));
    expect(logLines(file).length).toBeGreaterThan(0);

    expect((await sb.http.put('/_sandbox/snapshot').send(exported)).status).toBe(200); // answered once the snapshot is written
    expect(readFileSync(`${file}.log`, 'utf8')).toBe('');
    expect(snapshotState(file)).toEqual(exported);
    const again = await open(file);
    expectNotFound(await storedBuyer(again, gone));
    expect(store(again).webhook_subscriptions.get(WEBHOOK)).toBeDefined(); // the import had it
  });

  it('flush (a graceful stop) leaves FILE equal to the live state and the log empty', async () => {
    const file = join(dir, 'flush.json');
    const sb = await open(file);
    expectJson(await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'Flushed' }), 200);
    expectNoContent(await sb.http.delete(`/webhook-subscriptions/${WEBHOOK}`).set('authorization', sb.auth));
    await fileStore(sb).flush();
    const live = await sb.http.get('/_sandbox/snapshot');
    await fileStore(sb).flush(); // the export may catch reports up; then nothing else changes
    expect(snapshotState(file)).toEqual(live.body);
    expect(readFileSync(`${file}.log`, 'utf8')).toBe('');
    // Nothing changed since: a second flush writes nothing.
    const written = snapshotOf(file);
    await fileStore(sb).flush();
    expect(snapshotOf(file)).toEqual(written);
  });
});
