// The store's file persistence on its own (no HTTP): replay reproduces the live state exactly, order
// included; replaying a log already in the snapshot changes nothing; the log is folded into a
// snapshot past its limit; one append per interval however many changes; a failed append is
// followed by a snapshot, never by another append; memory stores do no file work at all.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { mulberry32 } from '../../src/scenarios/random.js';
import type { StoreData } from '../../src/store/records.js';
import { Store } from '../../src/store/store.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-store-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

const NO_TIMER = 3_600_000; // tests append with sync(), not on the timer
let files = 0;
const newFile = () => join(dir, `state-${++files}.json`);

/** A small state: three buyers and two webhook subscriptions (shapes do not matter to the store). */
function seed(): StoreData {
  const buyer = (n: number) => ({ type: 'buyer', id: `b${n}`, display_name: `Buyer ${n}`, merchant_account_id: 'default' });
  return {
    schema_version: 1,
    seed: 7,
    collections: {
      buyers: [buyer(1), buyer(2), buyer(3)],
      webhook_subscriptions: [
        { type: 'webhook-subscription', id: 'w1', url: 'https://a.example' },
        { type: 'webhook-subscription', id: 'w2', url: 'https://b.example' },
      ],
    },
  } as unknown as StoreData;
}
const json = (value: unknown) => JSON.parse(JSON.stringify(value));
const logText = (file: string) => readFileSync(`${file}.log`, 'utf8');
const logLines = (file: string) =>
  logText(file)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
/** The snapshot's log_seq, and its text without it: the state, as JSON.stringify gives it. */
function snapshotOf(file: string): { logSeq: number; state: string } {
  const text = readFileSync(file, 'utf8');
  const match = /^\{"log_seq":(\d+),/.exec(text);
  expect(match, 'a snapshot starts with its log_seq').not.toBeNull();
  return { logSeq: Number(match![1]), state: `{${text.slice(match![0].length)}` };
}
const buyers = (store: Store) =>
  store.collections.buyers as unknown as {
    insert(r: object): void;
    update(id: string, p: object): void;
    replace(r: object): void;
    remove(id: string): boolean;
    removeWhere(p: (r: any) => boolean): number;
  };

describe('replaying the log', () => {
  it('reproduces the live state, record order included, after random inserts, updates, replaces and removes', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    const random = mulberry32(4010);
    const ids = () => store.collections.buyers.all().map((b) => b.id);
    for (let step = 0; step < 400; step++) {
      const roll = random();
      const existing = ids();
      const pick = existing[Math.floor(random() * existing.length)];
      const id = `b${1 + Math.floor(random() * 12)}`;
      if (roll < 0.3 && !store.collections.buyers.get(id))
        buyers(store).insert({ type: 'buyer', id, display_name: `new ${step}`, merchant_account_id: 'default' });
      else if (roll < 0.55 && pick) buyers(store).update(pick, { display_name: `upd ${step}` });
      else if (roll < 0.7 && pick) buyers(store).replace({ type: 'buyer', id: pick, display_name: `rep ${step}`, merchant_account_id: 'm2' });
      else if (roll < 0.9 && pick) buyers(store).remove(pick);
      else buyers(store).removeWhere((b) => b.merchant_account_id === 'm2');
      if (step % 37 === 0) await store.sync(); // several appends, each collapsing repeated puts
    }
    await store.sync();
    const stats = store.persistenceStats!;
    expect(stats.appends).toBeGreaterThan(5);
    expect(stats.snapshots).toBe(1); // the seed only: the log stayed below its limit
    expect(logText(file).split('\n').filter(Boolean).length).toBe(stats.appendedLines);

    const log = logText(file);
    const reopened = await Store.open(
      () => {
        throw new Error('must load, not seed');
      },
      { file, writeDelayMs: NO_TIMER },
    );
    expect(json(reopened.data)).toEqual(json(store.data));
    expect(reopened.collections.buyers.all().map((b) => b.id)).toEqual(ids());
    // That start folded the log into a snapshot; the same log replayed onto it changes nothing.
    expect(logText(file)).toBe('');
    writeFileSync(`${file}.log`, log);
    const replayedTwice = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    expect(json(replayedTwice.data)).toEqual(json(store.data));
  });

  it('changes nothing when the log replayed is already in the snapshot (a crash between the two writes)', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    buyers(store).remove('b1');
    buyers(store).insert({ type: 'buyer', id: 'b1', display_name: 'back', merchant_account_id: 'default' });
    buyers(store).update('b2', { display_name: 'two' });
    buyers(store).insert({ type: 'buyer', id: 'b9', display_name: 'nine', merchant_account_id: 'default' });
    store.collections.webhook_subscriptions.remove('w1');
    await store.sync();
    const log = logText(file);
    expect(logLines(file)).toEqual([
      { seq: 1, c: 'buyers', del: 'b1' },
      { seq: 2, c: 'buyers', ins: { type: 'buyer', id: 'b1', display_name: 'back', merchant_account_id: 'default' } },
      { seq: 3, c: 'buyers', put: { type: 'buyer', id: 'b2', display_name: 'two', merchant_account_id: 'default' } },
      { seq: 4, c: 'buyers', ins: { type: 'buyer', id: 'b9', display_name: 'nine', merchant_account_id: 'default' } },
      { seq: 5, c: 'webhook_subscriptions', del: 'w1' },
    ]);
    await store.flush();
    expect(logText(file)).toBe('');
    expect(snapshotOf(file).logSeq).toBe(5);
    writeFileSync(`${file}.log`, log); // as if the process died after the snapshot, before emptying the log
    const reopened = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    expect(json(reopened.data)).toEqual(json(store.data));
    expect(reopened.collections.buyers.all().map((b) => b.id)).toEqual(['b2', 'b3', 'b1', 'b9']);
  });

  it('does not bring back an older value when the log is replayed over a newer snapshot (the crash state of a compaction)', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    buyers(store).update('b2', { display_name: 'old' });
    buyers(store).insert({ type: 'buyer', id: 'b7', display_name: 'seven', merchant_account_id: 'default' });
    await store.sync();
    const log = logText(file); // seq 1: b2 "old", seq 2: b7 inserted
    buyers(store).update('b2', { display_name: 'new' });
    buyers(store).remove('b7');
    await store.flush(); // the snapshot holds "new" and no b7, with log_seq 2; then the log is emptied
    expect(snapshotOf(file).logSeq).toBe(2);
    // The files a crash between the two writes leaves: the new snapshot, the old log.
    writeFileSync(`${file}.log`, log);
    const reopened = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    expect(reopened.collections.buyers.get('b2')).toMatchObject({ display_name: 'new' });
    expect(reopened.collections.buyers.get('b7')).toBeUndefined();
    expect(json(reopened.data)).toEqual(json(store.data));
    // Seqs go on from there, across the file's life: the next line after 2 is 3.
    buyers(reopened).update('b3', { display_name: 'three' });
    await reopened.sync();
    expect(logLines(file)).toEqual([{ seq: 3, c: 'buyers', put: { type: 'buyer', id: 'b3', display_name: 'three', merchant_account_id: 'default' } }]);
  });

  it('replays only the lines after log_seq, and old lines without seq always', async () => {
    const file = newFile();
    writeFileSync(file, `{"log_seq":7,${JSON.stringify(seed()).slice(1)}`);
    const b = (n: number, name: string) => ({ type: 'buyer', id: `b${n}`, display_name: name, merchant_account_id: 'default' });
    writeFileSync(
      `${file}.log`,
      [
        { seq: 6, c: 'buyers', put: b(1, 'in the snapshot already') },
        { seq: 7, c: 'buyers', del: 'b2' },
        { seq: 8, c: 'buyers', put: b(3, 'after the snapshot') },
        { c: 'buyers', put: b(1, 'a line of an older sandbox') },
      ]
        .map((l) => `${JSON.stringify(l)}\n`)
        .join(''),
    );
    const reopened = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    expect(reopened.collections.buyers.all().map((r) => [r.id, r.display_name])).toEqual([
      ['b1', 'a line of an older sandbox'],
      ['b2', 'Buyer 2'],
      ['b3', 'after the snapshot'],
    ]);
    expect(snapshotOf(file).logSeq).toBe(8); // folded in at start, the highest seq seen
  });

  it('loads a data file of an older sandbox (no log_seq, lines without seq)', async () => {
    const file = newFile();
    writeFileSync(file, JSON.stringify(seed()));
    writeFileSync(`${file}.log`, `${JSON.stringify({ c: 'buyers', put: { type: 'buyer', id: 'b2', display_name: 'two', merchant_account_id: 'default' } })}\n`);
    const reopened = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    expect(reopened.collections.buyers.get('b2')).toMatchObject({ display_name: 'two' });
    expect(snapshotOf(file)).toEqual({ logSeq: 0, state: JSON.stringify(reopened.data) });
  });

  it('writes nothing at a start after a graceful stop (empty log), and creates a missing log', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    buyers(store).update('b1', { display_name: 'kept' });
    await store.flush();
    rmSync(`${file}.log`);
    const before = statSync(file);
    const reopened = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    expect(statSync(file).ino).toBe(before.ino);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
    expect(reopened.persistenceStats).toMatchObject({ snapshots: 0, appends: 0, logChars: 0, pending: 0 });
    expect(logText(file)).toBe('');
    expect(reopened.collections.buyers.get('b1')).toMatchObject({ display_name: 'kept' });
  });
});

describe('a whole new state', () => {
  it('writes a snapshot, and ignores changes made afterwards through collections of the old state', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    buyers(store).update('b1', { display_name: 'before' });
    const old = buyers(store); // a request still holding the collections of the state being replaced
    const next = seed();
    (next.collections.buyers as unknown as Array<{ id: string }>).splice(0, 1);
    store.replaceAll(next);
    await store.sync();
    expect(store.persistenceStats).toMatchObject({ appends: 0, snapshots: 2, logChars: 0, pending: 0 });
    expect(logText(file)).toBe('');
    expect(snapshotOf(file).state).toBe(JSON.stringify(store.data));

    old.update('b2', { display_name: 'into the old state' });
    old.insert({ type: 'buyer', id: 'ghost', display_name: 'ghost', merchant_account_id: 'default' });
    buyers(store).update('b3', { display_name: 'after' });
    await store.sync();
    expect(logLines(file)).toEqual([{ seq: 1, c: 'buyers', put: { type: 'buyer', id: 'b3', display_name: 'after', merchant_account_id: 'default' } }]);
    const reopened = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    expect(reopened.collections.buyers.all().map((b) => [b.id, b.display_name])).toEqual([
      ['b2', 'Buyer 2'],
      ['b3', 'after'],
    ]);
  });
});

describe('compaction', () => {
  it('folds the log into a snapshot equal to the live state once it passes its limit', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file, writeDelayMs: NO_TIMER, compactLogChars: 1_000 });
    for (let i = 0; i < 5; i++) buyers(store).update('b1', { display_name: `round ${i}` });
    await store.sync();
    expect(store.persistenceStats).toMatchObject({ appends: 1, appendedLines: 1, snapshots: 1 }); // five puts, one line
    const oneLine = logText(file).length;
    expect(oneLine).toBeLessThan(1_000);

    for (let i = 0; i < 20; i++) buyers(store).insert({ type: 'buyer', id: `n${i}`, display_name: 'x'.repeat(40), merchant_account_id: 'default' });
    await store.sync();
    expect(store.persistenceStats).toMatchObject({ appends: 2, appendedLines: 21, snapshots: 2, logChars: 0, pending: 0 });
    expect(logText(file)).toBe('');
    expect(snapshotOf(file)).toEqual({ logSeq: 21, state: JSON.stringify(store.data) });
    expect(store.persistenceStats!.snapshotChars).toBe(readFileSync(file, 'utf8').length);
  });
});

describe('coalescing', () => {
  it('appends once per interval however many changes, each record once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const file = newFile();
    const store = await Store.open(seed, { file }); // the default 100 ms
    for (let i = 0; i < 1_000; i++) buyers(store).update(`b${1 + (i % 3)}`, { display_name: `n${i}` });
    vi.advanceTimersByTime(99); // not yet: the interval is not over
    expect(store.persistenceStats).toMatchObject({ appends: 0, pending: 3 });
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(store.persistenceStats!.appends).toBe(1), { timeout: 5_000, interval: 5 });
    expect(store.persistenceStats).toMatchObject({ appends: 1, appendedLines: 3, pending: 0 });
    expect(
      logText(file)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).put.display_name),
    ).toEqual(['n999', 'n997', 'n998']);
    expect(vi.getTimerCount()).toBe(0); // no timer left armed without changes
  });
});

describe('failures', () => {
  it('follows a failed append with a snapshot, not another append', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file, writeDelayMs: NO_TIMER });
    rmSync(`${file}.log`);
    mkdirSync(`${file}.log`); // appends now fail with EISDIR
    buyers(store).update('b1', { display_name: 'lost append' });
    await expect(store.sync()).rejects.toThrow(/EISDIR/);
    rmSync(`${file}.log`, { recursive: true });
    buyers(store).update('b2', { display_name: 'after' });
    await store.sync();
    expect(store.persistenceStats).toMatchObject({ appends: 0, snapshots: 2, logChars: 0, pending: 0 });
    expect(logText(file)).toBe('');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.collections.buyers.slice(0, 2).map((b: any) => b.display_name)).toEqual(['lost append', 'after']);
  });

  it('fails to open naming the log when its folder does not exist', async () => {
    const file = join(dir, 'no-such-folder', 'state.json');
    await expect(Store.open(seed, { file })).rejects.toThrow(`the change log ${file}.log cannot be written: ENOENT`);
    expect(existsSync(file)).toBe(false);
  });
});

describe('memory stores', () => {
  it('do no file work: not persistent, no stats, flush and sync resolve at once', async () => {
    const store = Store.inMemory(seed());
    buyers(store).update('b1', { display_name: 'memory' });
    expect(store.persistent).toBe(false);
    expect(store.persistenceStats).toBeNull();
    await store.flush();
    await store.sync();
    const opened = await Store.open(seed);
    expect(opened.persistent).toBe(false);
    expect(opened.collections.buyers.get('b1')).toMatchObject({ display_name: 'Buyer 1' });
  });
});
