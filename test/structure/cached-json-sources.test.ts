// Cached JSON is renewed when a collection its `reads` names changes (resources/json-cache/): a
// serializer that reads a collection its `reads` leaves out would answer stale JSON after that
// collection changed, silently. Each cached shape's serializer runs here over every seeded record
// with the collections it touches recorded, and each must be among those `reads` names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardSchemesAnswer, connectionsAnswer, flowRulesAnswer } from '../../src/resources/configuration.js';
import { giftCardShape } from '../../src/resources/gift-cards/serialize.js';
import type { CollectionMap } from '../../src/store/store.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

/** `db` as seen through a proxy that notes the name of every collection read from it. */
function recording(db: CollectionMap): { db: CollectionMap; touched: Set<string> } {
  const touched = new Set<string>();
  const proxy = new Proxy(db, {
    get(target, name, receiver) {
      if (typeof name === 'string' && Object.hasOwn(target, name)) touched.add(name);
      return Reflect.get(target, name, receiver);
    },
  });
  return { db: proxy, touched };
}

/** The names of the collections `reads` gives, found by identity in `db`. */
function namesOf(db: CollectionMap, collections: readonly unknown[]): string[] {
  return Object.entries(db)
    .filter(([, collection]) => collections.includes(collection))
    .map(([name]) => name)
    .sort();
}

describe('cached JSON names every collection its serializer reads', () => {
  let sb: TestSandbox;
  let db: CollectionMap;
  beforeAll(async () => {
    sb = await startTestSandbox();
    db = sb.deps.namespaces.get('default').store.collections;
  });
  afterAll(() => sb.server.close());

  it('gift cards: their buyer and gift card service', () => {
    const cards = db.gift_cards.all();
    expect(cards.length).toBeGreaterThan(0);
    const seen = recording(db);
    for (const card of cards) giftCardShape.serialize(seen.db, card);
    for (const name of seen.touched) expect(namesOf(db, giftCardShape.reads(db)), `serializeGiftCard reads ${name}`).toContain(name);
    expect(seen.touched).toContain('buyers'); // a card with a buyer shows it
  });

  it('connections, flow rules and card scheme definitions, for every merchant account and flow', () => {
    const accounts = db.merchant_accounts.all().map((account) => account.id);
    const flows = [...new Set(db.flow_rules.all().map((rule) => rule.flow))];
    expect(accounts.length).toBeGreaterThan(1);
    expect(flows.length).toBeGreaterThan(0);
    const cases: Array<[string, { build: (db: CollectionMap, key: never) => unknown; reads: (db: CollectionMap) => readonly unknown[] }, string[]]> = [
      ['connections', connectionsAnswer, accounts],
      ['flow rules', flowRulesAnswer, accounts.flatMap((account) => flows.map((flow) => `${account}\u0000${flow}`))],
      ['card scheme definitions', cardSchemesAnswer, ['']],
    ];
    for (const [what, spec, keys] of cases) {
      const seen = recording(db);
      for (const key of keys) spec.build(seen.db, key as never);
      expect(seen.touched.size, what).toBeGreaterThan(0);
      const declared = namesOf(db, spec.reads(db));
      for (const name of seen.touched) expect(declared, `${what} reads ${name}`).toContain(name);
    }
  });
});
