// Namespaces share the seeded fixtures until they change them: a collection's first change copies
// its row array (not its records), a record's first update copies that record alone. Nothing one
// namespace does is ever seen by another, nor by namespaces made later.
import { describe, expect, it } from 'vitest';
import { Collection } from '../../src/store/collection.js';
import { type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const ANTI_FRAUD = WELL_KNOWN.antiFraudServices.default.id;

describe('Collection.sharing', () => {
  const template = new Collection('things', [
    { id: 'a', n: 1, nested: { x: 1 } },
    { id: 'b', n: 2, nested: { x: 2 } },
    { id: 'c', n: 3, nested: { x: 3 } },
  ]);

  it('reads the template until its first change, then changes only its own copy', () => {
    let ownedRows: unknown[] | null = null;
    const shared = Collection.sharing(template, null, (rows) => {
      ownedRows = rows;
    });
    expect(shared.isShared).toBe(true);
    expect(shared.all()).toBe(template.all());
    expect(shared.get('b')).toBe(template.get('b'));

    const updated = shared.update('b', { n: 20 });
    expect(updated).toEqual({ id: 'b', n: 20, nested: { x: 2 } });
    expect(template.get('b')).toEqual({ id: 'b', n: 2, nested: { x: 2 } }); // the template is never written
    expect(shared.get('b')).toBe(updated);
    expect(shared.get('a')).toBe(template.get('a')); // untouched records keep their identity
    expect(shared.isShared).toBe(false);
    expect(ownedRows).toBe(shared.all());
    expect(shared.all().map((r) => r.id)).toEqual(['a', 'b', 'c']); // in place, in order

    shared.insert({ id: 'd', n: 4, nested: { x: 4 } });
    shared.remove('a');
    shared.update('c', { n: 30 }); // after a removal shifted it
    expect(shared.all().map((r) => [r.id, r.n])).toEqual([
      ['b', 20],
      ['c', 30],
      ['d', 4],
    ]);
    expect(template.all().map((r) => [r.id, r.n])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('removes from its own copy only, whichever way records are removed', () => {
    const shared = Collection.sharing(template, null, () => {});
    expect(shared.removeWhere((r) => r.id === 'none')).toBe(0);
    expect(shared.isShared).toBe(true); // nothing removed: nothing copied
    expect(shared.removeWhere((r) => r.n < 3)).toBe(2);
    expect(shared.all().map((r) => r.id)).toEqual(['c']);
    expect(template.all().map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(template.get('a')).toBeDefined();
  });

  it('removes the first matches only up to a limit, keeping the order, and tells its listener of each', () => {
    const deleted: string[] = [];
    const listener = { ins: () => {}, put: () => {}, del: (_collection: string, id: string) => deleted.push(id) };
    const rows = ['a', 'b', 'c', 'd', 'e', 'f'].map((id, i) => ({ id, n: i % 2 }));
    const things = new Collection('things', rows, listener);
    const changes = things.changeCount;
    expect(things.removeWhere((r) => r.n === 1, 0)).toBe(0);
    expect(things.removeWhere((r) => r.n === 1, 2)).toBe(2);
    expect(things.all().map((r) => r.id)).toEqual(['a', 'c', 'e', 'f']);
    expect(deleted).toEqual(['b', 'd']);
    expect(things.get('b')).toBeUndefined();
    expect(things.get('f')).toEqual({ id: 'f', n: 1 });
    expect(things.changeCount).toBeGreaterThan(changes);
    expect(things.removeWhere((r) => r.n === 0)).toBe(3); // no limit: every match
    expect(things.all().map((r) => r.id)).toEqual(['f']);
  });

  it('shares the template views while it has not changed, then orders its own rows', () => {
    const shared = Collection.sharing(template, null, () => {});
    const byN = (a: { n: number }, b: { n: number }) => b.n - a.n;
    const view = shared.view('desc', () => true, byN);
    expect(view).toBe(template.view('desc', () => true, byN));
    shared.update('a', { n: 100 });
    expect(shared.view('desc', () => true, byN).map((r) => r.id)).toEqual(['a', 'c', 'b']);
    expect(template.view('desc', () => true, byN).map((r) => r.id)).toEqual(['c', 'b', 'a']);
  });
});

describe('namespaces sharing the fixtures', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));
  const api = (ns: string) => ({
    put: (path: string, body: object) => sb.http.put(`/ns/${ns}${path}`).set('authorization', sb.auth).send(body),
    del: (path: string) => sb.http.delete(`/ns/${ns}${path}`).set('authorization', sb.auth),
  });
  const buyerName = async (ns: string) => (await sb.http.get(`/ns/${ns}/_sandbox/records/buyers/${BUYER}`).expect(200)).body.display_name;
  const connectionIds = async (ns: string) =>
    (await sb.http.get(`/ns/${ns}/connections`).set('authorization', sb.auth).expect(200)).body.items.map((c: { id: string }) => c.id);

  it("never shows one namespace's changes to another, made before or after", async () => {
    await sb.http.get('/ns/cow-before/_sandbox/health').expect(200);
    const put = await api('cow-writer').put(`/buyers/${BUYER}`, { display_name: 'Changed Once' });
    expect(put.status).toBe(200);
    expect(put.body.display_name).toBe('Changed Once'); // the answer shows the change made on the copy
    expect((await api('cow-writer').put(`/buyers/${BUYER}`, { display_name: 'Changed Twice' })).body.display_name).toBe('Changed Twice');
    await api('cow-writer').del(`/anti-fraud-services/${ANTI_FRAUD}`).expect(204);
    await sb.http.post('/ns/cow-writer/_sandbox/records/webhook_subscriptions').send({ url: 'https://cow.example/hook' }).expect(201);

    expect(await buyerName('cow-writer')).toBe('Changed Twice');
    expect(await connectionIds('cow-writer')).not.toContain(ANTI_FRAUD);
    for (const ns of ['cow-before', 'cow-after', 'default']) {
      expect(await buyerName(ns), ns).toBe('Jane Doe');
      expect(await connectionIds(ns), ns).toContain(ANTI_FRAUD);
    }
    const subscriptions = (ns: string) => sb.deps.namespaces.get(ns).store.collections.webhook_subscriptions.size;
    expect(subscriptions('cow-writer')).toBe(subscriptions('cow-after') + 1);
  });

  it('shares what a namespace has not changed, and is shared again after a reset', async () => {
    const writer = sb.deps.namespaces.get('cow-writer').store.collections;
    const reader = sb.deps.namespaces.get('cow-before').store.collections;
    expect(writer.buyers.isShared).toBe(false);
    expect(writer.gift_cards.isShared).toBe(true);
    expect(writer.gift_cards.all()).toBe(reader.gift_cards.all());
    // Its unchanged buyers are still the very records every other namespace reads.
    const other = sb.deps.fixtures().collections.buyers.find((b) => b.id !== BUYER)?.id as string;
    expect(writer.buyers.get(other)).toBe(reader.buyers.get(other));
    expect(writer.buyers.get(BUYER)).not.toBe(reader.buyers.get(BUYER));

    await sb.http.post('/ns/cow-writer/_sandbox/reset').expect(200);
    const reset = sb.deps.namespaces.get('cow-writer').store.collections;
    expect(reset.buyers.isShared).toBe(true);
    expect(await buyerName('cow-writer')).toBe('Jane Doe');
    expect(await connectionIds('cow-writer')).toContain(ANTI_FRAUD);
    // The snapshot of a namespace that shares shows the fixtures (reads since moved key pairs' last use and report schedules only).
    const snapshot = await sb.http.get('/ns/cow-writer/_sandbox/snapshot').expect(200);
    const fixtures = sb.deps.fixtures().collections;
    for (const name of ['buyers', 'anti_fraud_services', 'gift_cards', 'webhook_subscriptions'] as const)
      expect(snapshot.body.collections[name], name).toEqual(fixtures[name]);
  });
});
