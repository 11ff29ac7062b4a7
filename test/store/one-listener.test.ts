// Every collection of a durable store reports its changes to the one listener its persistence
// heard last, so each change is written and its answer waits for it (issue 27 part 1: a store
// loaded with collections of its own gave each its own listener, and all but the last were
// silenced: their changes were answered 2xx and never written). A listener silenced while its
// state lives is a defect the persistence refuses loudly; one of a state replaced since (a reset)
// is quietly ignored, as before.
import { describe, expect, it } from 'vitest';
import type { CollectionListener } from '../../src/store/collection.js';
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

describe('a listener the persistence no longer hears', () => {
  const row = { id: 'x1' };
  const attempt = (listener: CollectionListener) => () => listener.ins('buyers', row);

  it('fails loudly when silenced while its state lives (a second listener for the same state), naming the collection', () => {
    const persistence = new RecordedPersistence();
    const first = persistence.listener();
    persistence.listener();
    expect(attempt(first)).toThrow(
      "a change to 'buyers' reached a listener silenced while its state lives (listener 1, current 2): it would be acknowledged and never written",
    );
    expect(() => first.put('reports', row)).toThrow("a change to 'reports' reached a listener silenced");
    expect(() => first.del('reports', 'x1')).toThrow("a change to 'reports' reached a listener silenced");
    expect(persistence.whenDurable()).toBeUndefined(); // nothing was taken: the request fails instead of a 2xx
  });

  it("ignores a change to a state replaced since (a request still holding the old collections), and writes the new state's", async () => {
    const persistence = new RecordedPersistence();
    const old = persistence.listener();
    const current = persistence.listener();
    persistence.replaced();
    await persistence.whenDurable(); // the snapshot of the new state
    expect(persistence.snapshots).toBe(1);
    expect(attempt(old)).not.toThrow();
    expect(persistence.whenDurable()).toBeUndefined();
    current.ins('buyers', row);
    await persistence.whenDurable();
    expect(persistence.written).toEqual([[{ c: 'buyers', ins: row }]]);
  });

  it('ignores the old listeners of a store reset (shareAll), and its collections write through the new one', async () => {
    const template = Store.inMemory(fixtures());
    const persistence = new RecordedPersistence();
    const store = Store.partlyShared(template, { buyers: [{ type: 'buyer', id: 'b1', display_name: 'loaded' }] } as never, persistence);
    const before = collection(store, 'buyers');
    store.shareAll(template);
    await store.whenDurable();
    expect(() => before.update('b1', { display_name: 'to a state that is gone' })).not.toThrow();
    expect(store.whenDurable()).toBeUndefined();
    collection(store, 'buyers').update('b2', { display_name: 'after the reset' });
    await store.whenDurable();
    expect(persistence.written).toEqual([[{ c: 'buyers', put: { type: 'buyer', id: 'b2', display_name: 'after the reset' } }]]);
  });
});
