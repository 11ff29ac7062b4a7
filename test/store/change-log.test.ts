// The store's file persistence on its own (no HTTP): replay reproduces the live state exactly, order
// included; replaying a log already in the snapshot changes nothing; the log is folded into a
// snapshot past its limit; group commit (the changes of one turn of the event loop, and those made
// while an append is in flight, in one append); whenDurable() resolves only once the log holds
// every change; the fsync policies; memory stores do no file work at all. A failed append is
// tested through a real process under a file size limit (test/reliability/persistence.test.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { mulberry32 } from '../../src/scenarios/random.js';
import type { StoreData } from '../../src/store/records.js';
import { Store } from '../../src/store/store.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-store-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

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
    const store = await Store.open(seed, { file });
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
      { file },
    );
    expect(json(reopened.data)).toEqual(json(store.data));
    expect(reopened.collections.buyers.all().map((b) => b.id)).toEqual(ids());
    // That start folded the log into a snapshot; the same log replayed onto it changes nothing.
    expect(logText(file)).toBe('');
    writeFileSync(`${file}.log`, log);
    const replayedTwice = await Store.open(seed, { file });
    expect(json(replayedTwice.data)).toEqual(json(store.data));
  });

  it('changes nothing when the log replayed is already in the snapshot (a crash between the two writes)', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file });
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
    const reopened = await Store.open(seed, { file });
    expect(json(reopened.data)).toEqual(json(store.data));
    expect(reopened.collections.buyers.all().map((b) => b.id)).toEqual(['b2', 'b3', 'b1', 'b9']);
  });

  it('does not bring back an older value when the log is replayed over a newer snapshot (the crash state of a compaction)', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file });
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
    const reopened = await Store.open(seed, { file });
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
    const reopened = await Store.open(seed, { file });
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
    const reopened = await Store.open(seed, { file });
    expect(reopened.collections.buyers.get('b2')).toMatchObject({ display_name: 'two' });
    expect(snapshotOf(file)).toEqual({ logSeq: 0, state: JSON.stringify(reopened.data) });
  });

  it('writes nothing at a start after a graceful stop (empty log), and creates a missing log', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file });
    buyers(store).update('b1', { display_name: 'kept' });
    await store.flush();
    rmSync(`${file}.log`);
    const before = statSync(file);
    const reopened = await Store.open(seed, { file });
    expect(statSync(file).ino).toBe(before.ino);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
    expect(reopened.persistenceStats).toMatchObject({ snapshots: 0, appends: 0, logChars: 0, pending: 0 });
    expect(logText(file)).toBe('');
    expect(reopened.collections.buyers.get('b1')).toMatchObject({ display_name: 'kept' });
  });
});

describe('a whole new state', () => {
  it('writes a snapshot, and refuses changes made afterwards through collections of the old state (never written)', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file });
    buyers(store).update('b1', { display_name: 'before' });
    const old = buyers(store); // a request still holding the collections of the state being replaced
    const next = seed();
    (next.collections.buyers as unknown as Array<{ id: string }>).splice(0, 1);
    store.replaceAll(next);
    await store.sync();
    expect(store.persistenceStats).toMatchObject({ appends: 0, snapshots: 2, logChars: 0, pending: 0 });
    expect(logText(file)).toBe('');
    expect(snapshotOf(file).state).toBe(JSON.stringify(store.data));

    const refused =
      'The records were replaced (a reset or an import of the namespace) while this request was handled, so its change to buyers was not made. Retry it.';
    expect(() => old.update('b2', { display_name: 'into the old state' })).toThrow(refused);
    expect(() => old.insert({ type: 'buyer', id: 'ghost', display_name: 'ghost', merchant_account_id: 'default' })).toThrow(refused);
    buyers(store).update('b3', { display_name: 'after' });
    await store.sync();
    expect(logLines(file)).toEqual([{ seq: 1, c: 'buyers', put: { type: 'buyer', id: 'b3', display_name: 'after', merchant_account_id: 'default' } }]);
    const reopened = await Store.open(seed, { file });
    expect(reopened.collections.buyers.all().map((b) => [b.id, b.display_name])).toEqual([
      ['b2', 'Buyer 2'],
      ['b3', 'after'],
    ]);
  });
});

describe('compaction', () => {
  it('folds the log into a snapshot equal to the live state once it passes its limit, by itself', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file, compactLogChars: 1_000 });
    for (let i = 0; i < 5; i++) buyers(store).update('b1', { display_name: `round ${i}` });
    await store.sync();
    expect(store.persistenceStats).toMatchObject({ appends: 1, appendedLines: 1, snapshots: 1 }); // five puts, one line
    const oneLine = logText(file).length;
    expect(oneLine).toBeLessThan(1_000);

    for (let i = 0; i < 20; i++) buyers(store).insert({ type: 'buyer', id: `n${i}`, display_name: 'x'.repeat(40), merchant_account_id: 'default' });
    await store.whenDurable(); // the append: the log is past its limit now
    expect(store.persistenceStats).toMatchObject({ appends: 2, appendedLines: 21, snapshots: 1 });
    // The snapshot follows as a write of its own, so the requests of that append were not kept waiting for it.
    await vi.waitFor(() => expect(store.persistenceStats).toMatchObject({ snapshots: 2, logChars: 0, pending: 0 }), { timeout: 10_000, interval: 5 });
    expect(logText(file)).toBe('');
    expect(snapshotOf(file)).toEqual({ logSeq: 21, state: JSON.stringify(store.data) });
    expect(store.persistenceStats!.snapshotChars).toBe(readFileSync(file, 'utf8').length);
  });
});

describe('group commit', () => {
  it('appends the changes of one turn of the event loop at its end, in one write, each record once', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file });
    expect(store.whenDurable()).toBeUndefined(); // nothing to wait for: no promise at all
    for (let i = 0; i < 1_000; i++) buyers(store).update(`b${1 + (i % 3)}`, { display_name: `n${i}` });
    const durable = store.whenDurable()!;
    expect(durable).toBeInstanceOf(Promise);
    expect(store.whenDurable()).toBe(durable); // everyone waiting on the same changes shares one promise
    expect(store.persistenceStats).toMatchObject({ appends: 0, pending: 3 });
    expect(logText(file)).toBe('');
    await durable;
    // Resolved only once the log holds the changes.
    expect(logLines(file).map((l) => l.put.display_name)).toEqual(['n999', 'n997', 'n998']);
    expect(store.persistenceStats).toMatchObject({ appends: 1, appendedLines: 3, pending: 0 });
    expect(store.whenDurable()).toBeUndefined();
  });

  it('gathers the changes made while an append is in flight into the next append', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file });
    buyers(store).update('b1', { display_name: 'first' });
    const first = store.whenDurable()!;
    // The store's write was scheduled first, so it has started (and cannot have ended) when this runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.persistenceStats).toMatchObject({ appends: 0, pending: 0 }); // taken by the append in flight
    const inFlight = store.whenDurable()!; // no change of this caller's own, but the write in flight may show
    expect(inFlight).toBeInstanceOf(Promise);
    buyers(store).update('b2', { display_name: 'second' });
    const second = store.whenDurable()!;
    expect(second).not.toBe(first);
    await Promise.resolve(); // more changes in later turns, still during that append
    buyers(store).update('b2', { display_name: 'third' });
    buyers(store).insert({ type: 'buyer', id: 'b4', display_name: 'four', merchant_account_id: 'default' });
    expect(store.whenDurable()).toBe(second);
    await first;
    await inFlight;
    expect(logLines(file).map((l) => l.seq)).toEqual([1]);
    await second;
    expect(logLines(file)).toEqual([
      { seq: 1, c: 'buyers', put: { type: 'buyer', id: 'b1', display_name: 'first', merchant_account_id: 'default' } },
      { seq: 2, c: 'buyers', put: { type: 'buyer', id: 'b2', display_name: 'third', merchant_account_id: 'default' } },
      { seq: 3, c: 'buyers', ins: { type: 'buyer', id: 'b4', display_name: 'four', merchant_account_id: 'default' } },
    ]);
    expect(store.persistenceStats).toMatchObject({ appends: 2, appendedLines: 3 });
  });

  it('keeps nobody waiting for an incidental change (last_used_at), but appends it with the next batch', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file });
    const touch = (name: string) => (store.collections.buyers as any).update('b1', { display_name: name }, { incidental: true });
    touch('incidental 1');
    expect(store.whenDurable()).toBeUndefined(); // a read that only touched its key pair: no wait, no promise
    expect(store.persistenceStats!.pending).toBe(1);
    await vi.waitFor(() => expect(logLines(file)).toEqual([{ seq: 1, c: 'buyers', put: expect.objectContaining({ display_name: 'incidental 1' }) }]), {
      timeout: 5_000,
      interval: 5,
    });
    // Beside a change that is waited for, it goes in the same append; and answers wait for that one.
    touch('incidental 2');
    buyers(store).update('b2', { display_name: 'awaited' });
    const durable = store.whenDurable()!;
    expect(durable).toBeInstanceOf(Promise);
    await durable;
    expect(logLines(file).slice(1)).toEqual([
      { seq: 2, c: 'buyers', put: expect.objectContaining({ id: 'b1', display_name: 'incidental 2' }) },
      { seq: 3, c: 'buyers', put: expect.objectContaining({ id: 'b2', display_name: 'awaited' }) },
    ]);
    // While an append of incidental changes only is in flight, nobody waits either.
    touch('incidental 3');
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.whenDurable()).toBeUndefined();
  });

  it('makes a reset (a whole new state) durable as a snapshot before releasing its waiters', async () => {
    const file = newFile();
    const store = await Store.open(seed, { file });
    buyers(store).update('b1', { display_name: 'gone with the reset' });
    store.replaceAll(seed());
    await store.whenDurable();
    expect(store.persistenceStats).toMatchObject({ appends: 0, snapshots: 2, pending: 0 });
    expect(snapshotOf(file).state).toBe(JSON.stringify(store.data));
    expect(logText(file)).toBe('');
  });
});

describe('fsync policies', () => {
  const writes = async (store: Store, n: number) => {
    for (let i = 0; i < n; i++) {
      buyers(store).update('b1', { display_name: `w${i}` });
      await store.whenDurable();
    }
  };

  it('always: every append is flushed to the disk before its waiters are released', async () => {
    const store = await Store.open(seed, { file: newFile(), fsync: 'always' });
    await writes(store, 5);
    expect(store.persistenceStats).toMatchObject({ appends: 5, fsyncs: 5 });
  });

  it('batch (the default): released at write(2), then one fsync for every append of the next 100 ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }); // the fsync timer; appends and setImmediate stay real
    const store = await Store.open(seed, { file: newFile() });
    await writes(store, 5);
    expect(store.persistenceStats).toMatchObject({ appends: 5, fsyncs: 0 }); // nobody waited for the disk
    vi.advanceTimersByTime(99);
    expect(store.persistenceStats!.fsyncs).toBe(0);
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(store.persistenceStats!.fsyncs).toBe(1), { timeout: 5_000, interval: 5 });
    await writes(store, 2);
    vi.advanceTimersByTime(100);
    await vi.waitFor(() => expect(store.persistenceStats!.fsyncs).toBe(2), { timeout: 5_000, interval: 5 });
    expect(vi.getTimerCount()).toBe(0); // no timer left armed without appends
  });

  it('never: no fsync of the log', async () => {
    const store = await Store.open(seed, { file: newFile(), fsync: 'never' });
    await writes(store, 5);
    await new Promise((resolve) => setTimeout(resolve, 150)); // past the batch interval: still none
    expect(store.persistenceStats).toMatchObject({ appends: 5, fsyncs: 0 });
  });
});

describe('failures', () => {
  it('refuses an fsync policy it does not know, writing nothing', async () => {
    const file = newFile();
    await expect(Store.open(seed, { file, fsync: 'sometimes' as never })).rejects.toThrow('fsync must be one of always, batch, never, not "sometimes"');
    expect(existsSync(file)).toBe(false);
  });

  it('fails to open naming the log when its folder does not exist', async () => {
    const file = join(dir, 'no-such-folder', 'state.json');
    await expect(Store.open(seed, { file })).rejects.toThrow(`the change log ${file}.log cannot be written: ENOENT`);
    expect(existsSync(file)).toBe(false);
  });
});

describe('memory stores', () => {
  it('do no file work: not persistent, no stats, nothing to wait for, flush and sync resolve at once', async () => {
    const store = Store.inMemory(seed());
    buyers(store).update('b1', { display_name: 'memory' });
    expect(store.persistent).toBe(false);
    expect(store.persistenceStats).toBeNull();
    expect(store.whenDurable()).toBeUndefined();
    await store.flush();
    await store.sync();
    const opened = await Store.open(seed);
    expect(opened.persistent).toBe(false);
    expect(opened.collections.buyers.get('b1')).toMatchObject({ display_name: 'Buyer 1' });
  });
});
