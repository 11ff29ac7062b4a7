// Every collection of a durable store reports its changes to the one sink made with its state
// (Persistence.newState), so each change is written and its answer waits for it. Issue 27 part 1:
// a store loaded with collections of its own asked its persistence for a listener per collection,
// each silencing the ones before, so their changes were answered 2xx and never written. Now a sink
// is made only with a whole state, and retired when the next replaces it (reset, import): a change
// reaching a retired sink is refused with a 503, never dropped in silence (issue 35 part 5).
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { GroupCommit, type Persistence } from '../../src/store/group-commit.js';
import type { LogChange } from '../../src/store/persistence-load.js';
import type { StoreData } from '../../src/store/records.js';
import { Store } from '../../src/store/store.js';

/** A persistence that keeps its writes in memory: the group commit of every store, its storage an array. */
class RecordedPersistence extends GroupCommit implements Persistence {
  readonly keepsOwnRecords = false;
  readonly written: LogChange[][] = [];
  snapshots = 0;
  protected async writeDue(): Promise<void> {
    if (this.snapshotDue) return this.writeSnapshot();
    if (this.pending.length > 0) this.written.push(this.takePending());
  }
  protected async writeSnapshot(): Promise<void> {
    this.clearPending();
    this.snapshots++;
    this.snapshotDue = false;
  }
  protected flushNeeded(): boolean {
    return this.pending.length > 0;
  }
  protected unheardFailure(err: Error): void {
    throw err;
  }
}

function fixtures(): StoreData {
  const buyer = (n: number) => ({ type: 'buyer', id: `b${n}`, display_name: `Buyer ${n}` });
  return {
    schema_version: 1,
    seed: 7,
    collections: {
      buyers: [buyer(1), buyer(2)],
      reports: [{ type: 'report', id: 'r1', name: 'fixture' }],
      webhook_subscriptions: [{ type: 'webhook-subscription', id: 'w1', url: 'https://a.example' }],
    },
  } as unknown as StoreData;
}

type Loose = { insert(r: object): void; update(id: string, p: object): unknown; remove(id: string): boolean };
const collection = (store: Store, name: 'buyers' | 'reports' | 'webhook_subscriptions') => store.collections[name] as unknown as Loose;

describe('a store loaded with collections of its own (a namespace read from Redis)', () => {
  it('writes a change to each of them, and to a collection still shared, and every answer waits for its change', async () => {
    const template = Store.inMemory(fixtures());
    const persistence = new RecordedPersistence();
    const own = { buyers: [{ type: 'buyer', id: 'b1', display_name: 'loaded' }], reports: [] } as unknown as Partial<StoreData['collections']>;
    const store = Store.partlyShared(template, own, persistence);
    expect(store.whenDurable()).toBeUndefined();

    collection(store, 'buyers').update('b1', { display_name: 'v2' });
    const afterBuyer = store.whenDurable();
    expect(afterBuyer).toBeInstanceOf(Promise);
    await afterBuyer;
    collection(store, 'reports').insert({ type: 'report', id: 'r2', name: 'made' });
    collection(store, 'webhook_subscriptions').remove('w1');
    await store.whenDurable();

    expect(persistence.written).toEqual([
      [{ c: 'buyers', put: { type: 'buyer', id: 'b1', display_name: 'v2' } }],
      [
        { c: 'reports', ins: { type: 'report', id: 'r2', name: 'made' } },
        { c: 'webhook_subscriptions', del: 'w1' },
      ],
    ]);
    expect(store.whenDurable()).toBeUndefined();
    expect(template.collections.webhook_subscriptions.size).toBe(1); // the fixtures are never written
  });
});

describe('the sink of a state replaced since (a request still holding its collections)', () => {
  const row = { id: 'x1' };

  /** What a write through a retired sink must be: a 503 naming the collection, never a silent drop. */
  function expectRefused(write: () => unknown, collectionName: string): void {
    let thrown: unknown;
    try {
      write();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const refusal = thrown as ApiError;
    expect(refusal.status).toBe(503);
    expect(refusal.code).toBe('service_unavailable');
    expect(refusal.extra.headers).toEqual({ 'retry-after': '1' });
    expect(refusal.message).toBe(
      `The records were replaced (a reset or an import of the namespace) while this request was handled, so its change to ${collectionName} was not made. Retry it.`,
    );
  }

  it('refuses every kind of change through it, and takes nothing; the new state writes, after one snapshot of it', async () => {
    const persistence = new RecordedPersistence();
    const first = persistence.newState((sink) => sink);
    expect(persistence.whenDurable()).toBeUndefined(); // a store's first state is not a replacement: nothing to write
    first.ins('buyers', row);
    await persistence.whenDurable();
    expect(persistence.written).toEqual([[{ c: 'buyers', ins: row }]]);

    const second = persistence.newState((sink) => sink);
    expect(second).not.toBe(first);
    await persistence.whenDurable(); // the snapshot of the new state
    expect(persistence.snapshots).toBe(1);
    expectRefused(() => first.ins('buyers', { id: 'x2' }), 'buyers');
    expectRefused(() => first.put('reports', row), 'reports');
    expectRefused(() => first.put('api_key_pairs', row, true), 'api_key_pairs');
    expectRefused(() => first.del('webhook_subscriptions', 'w1'), 'webhook_subscriptions');
    expect(persistence.whenDurable()).toBeUndefined(); // nothing was taken

    second.put('buyers', row);
    await persistence.whenDurable();
    expect(persistence.written).toEqual([[{ c: 'buyers', ins: row }], [{ c: 'buyers', put: row }]]);
    expect(persistence.snapshots).toBe(1);
  });

  it('a build that fails replaces nothing: the state before keeps its sink, and no snapshot is due', async () => {
    const persistence = new RecordedPersistence();
    const live = persistence.newState((sink) => sink);
    expect(() =>
      persistence.newState(() => {
        throw new Error('no state');
      }),
    ).toThrow('no state');
    expect(persistence.whenDurable()).toBeUndefined();
    live.del('buyers', 'b1');
    await persistence.whenDurable();
    expect(persistence.written).toEqual([[{ c: 'buyers', del: 'b1' }]]);
    expect(persistence.snapshots).toBe(0);
  });

  it('a store reset (shareAll) refuses changes through its old collections, loaded or shared, and writes the new ones', async () => {
    const template = Store.inMemory(fixtures());
    const persistence = new RecordedPersistence();
    const store = Store.partlyShared(template, { buyers: [{ type: 'buyer', id: 'b1', display_name: 'loaded' }] } as never, persistence);
    const loadedBefore = collection(store, 'buyers');
    const sharedBefore = collection(store, 'reports');
    store.shareAll(template);
    await store.whenDurable();
    expect(persistence.snapshots).toBe(1);

    expectRefused(() => loadedBefore.update('b1', { display_name: 'to a state that is gone' }), 'buyers');
    expectRefused(() => sharedBefore.insert({ type: 'report', id: 'r9', name: 'gone' }), 'reports');
    expect(store.whenDurable()).toBeUndefined();
    expect(store.collections.buyers.get('b1')).toMatchObject({ display_name: 'Buyer 1' }); // the new state never saw it
    expect(store.collections.reports.get('r9')).toBeUndefined();
    expect(template.collections.reports.get('r9')).toBeUndefined(); // nor the fixtures

    collection(store, 'buyers').update('b2', { display_name: 'after the reset' });
    await store.whenDurable();
    expect(persistence.written).toEqual([[{ c: 'buyers', put: { type: 'buyer', id: 'b2', display_name: 'after the reset' } }]]);
  });

  it('an import (replaceAll) does the same: the old collections are refused, the imported ones write', async () => {
    const template = Store.inMemory(fixtures());
    const persistence = new RecordedPersistence();
    const store = Store.sharing(template, persistence);
    const before = collection(store, 'webhook_subscriptions');
    store.replaceAll(fixtures());
    await store.whenDurable();
    expect(persistence.snapshots).toBe(1);
    expectRefused(() => before.remove('w1'), 'webhook_subscriptions');
    expect(store.collections.webhook_subscriptions.get('w1')).toBeDefined();
    expect(store.whenDurable()).toBeUndefined();

    collection(store, 'webhook_subscriptions').remove('w1');
    await store.whenDurable();
    expect(persistence.written).toEqual([[{ c: 'webhook_subscriptions', del: 'w1' }]]);
  });
});
