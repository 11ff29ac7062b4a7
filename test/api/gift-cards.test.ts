// GET /gift-cards: the gift card shape, cursor pagination walked end to end in both directions,
// refused cursors, limits and the buyer filters.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CursorCodec } from '../../src/resources/gift-cards/cursor.js';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectJson, ISO, MERCHANT_HEADER, store, UUID } from './support.js';

const JANE = WELL_KNOWN.buyers.default;

describe('GET /gift-cards', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  beforeEach(() => sb.deps.namespaces.reset('default'));
  afterAll(() => sb?.server.close());

  const list = (query = '', merchant?: string) => {
    const req = sb.http.get(`/gift-cards${query}`).set('authorization', sb.auth);
    return merchant ? req.set(MERCHANT_HEADER, merchant) : req;
  };
  /** Ids of the merchant account's cards in the documented order: created_at desc, then id desc. */
  const expectedOrder = (merchant = 'default', keep: (c: any) => boolean = () => true) =>
    store(sb)
      .gift_cards.where((c) => c.merchant_account_id === merchant && keep(c))
      .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
      .map((c) => c.id);

  /** The records API of a namespace. */
  const records = (path: string, ns = 'default') => `/ns/${ns}/_sandbox/records/${path}`;

  /** Follows next_cursor from the first page to the last, checking each page's cursors. */
  async function walk(limit: number | null, extra = '', merchant?: string) {
    const pages: any[] = [];
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams(extra);
      if (limit !== null) params.set('limit', String(limit));
      if (cursor) params.set('cursor', cursor);
      const res = await list(`?${params}`, merchant);
      expectJson(res, 200);
      expect(Object.keys(res.body).sort()).toEqual(['items', 'limit', 'next_cursor', 'previous_cursor']);
      expect(res.body.limit).toBe(limit ?? 20);
      pages.push(res.body);
      cursor = res.body.next_cursor;
    } while (cursor);
    return pages;
  }

  it('serializes every field of a well-known gift card', async () => {
    const { body } = await list(`?buyer_id=${JANE.id}&limit=100`);
    const card = body.items.find((c: any) => c.id === WELL_KNOWN.giftCards.default.id);
    const rec = store(sb).gift_cards.get(WELL_KNOWN.giftCards.default.id)!;
    const buyer = store(sb).buyers.get(JANE.id)!;
    expect(card).toEqual({
      type: 'gift-card',
      id: WELL_KNOWN.giftCards.default.id,
      merchant_account_id: 'default',
      gift_card_service: {
        type: 'gift-card-service',
        id: WELL_KNOWN.giftCardServices.default.id,
        gift_card_service_definition_id: 'qwikcilver-gift-card',
        display_name: 'Qwikcilver',
      },
      bin: rec.bin,
      sub_bin: rec.sub_bin,
      last4: rec.last4,
      created_at: '2026-05-05T11:00:00.000Z',
      updated_at: rec.updated_at,
      usage_count: rec.usage_count,
      cit_usage_count: rec.cit_usage_count,
      expiration_date: rec.expiration_date,
      last_used_at: rec.last_used_at,
      cit_last_used_at: rec.cit_last_used_at,
      buyer: {
        type: 'buyer',
        id: JANE.id,
        merchant_account_id: 'default',
        created_at: '2025-06-01T10:00:00.000Z',
        updated_at: '2026-09-15T12:30:00.000Z',
        display_name: 'Jane Doe',
        external_identifier: JANE.externalIdentifier,
        account_number: 'ACC-0001',
        billing_details: buyer.billing_details,
        reconciliation_id: buyer.reconciliation_id,
      },
    });
    expect(card.bin).toMatch(/^6\d{7}$/);
    expect(card.sub_bin).toMatch(/^\d{4}$/);
    expect(card.last4).toMatch(/^\d{4}$/);
    for (const f of ['updated_at', 'expiration_date', 'last_used_at', 'cit_last_used_at']) expect(card[f]).toMatch(ISO);
    expect(Number.isInteger(card.usage_count) && card.cit_usage_count <= card.usage_count).toBe(true);
  });

  it('walks every card of default exactly once with limit 7, newest first, ties broken by id', async () => {
    const pages = await walk(7);
    const expected = expectedOrder();
    expect(expected.length).toBeGreaterThan(100); // the fixtures hold several pages of every size
    expect(expected.length % 7).not.toBe(0); // so the last page is a partial one
    const times = expected.map((id) => store(sb).gift_cards.get(id)!.created_at);
    expect(new Set(times).size).toBeLessThan(times.length); // ties on created_at, broken by id
    expect(pages.flatMap((p) => p.items.map((c: any) => c.id))).toEqual(expected);
    expect(pages).toHaveLength(Math.ceil(expected.length / 7));
    pages.forEach((p, i) => {
      expect(p.items).toHaveLength(i === pages.length - 1 ? expected.length % 7 : 7);
      expect(p.previous_cursor === null).toBe(i === 0);
      expect(p.next_cursor === null).toBe(i === pages.length - 1);
      for (const c of p.items) expect(c.merchant_account_id).toBe('default');
    });
  });

  it('leads back with previous_cursor to exactly the previous page, cursors included', async () => {
    const pages = await walk(7);
    for (let i = pages.length - 1; i > 0; i--) {
      const back = await list(`?limit=7&cursor=${encodeURIComponent(pages[i].previous_cursor)}`);
      expectJson(back, 200);
      expect(back.body.items.map((c: any) => c.id)).toEqual(pages[i - 1].items.map((c: any) => c.id));
      expect(back.body.previous_cursor === null).toBe(i - 1 === 0);
      expect(back.body.next_cursor).not.toBeNull();
      const forward = await list(`?limit=7&cursor=${encodeURIComponent(back.body.next_cursor)}`);
      expect(forward.body.items.map((c: any) => c.id)).toEqual(pages[i].items.map((c: any) => c.id));
    }
  });

  it('pages by 20 by default and by 100 at most', async () => {
    const total = expectedOrder().length;
    const sizes = (limit: number) => Array.from({ length: Math.ceil(total / limit) }, (_, i) => Math.min(limit, total - i * limit));
    const twenty = await walk(null);
    expect(twenty.map((p) => p.items.length)).toEqual(sizes(20));
    expect(twenty.flatMap((p) => p.items.map((c: any) => c.id))).toEqual(expectedOrder());
    const hundred = await walk(100);
    expect(hundred.map((p) => p.items.length)).toEqual(sizes(100));
    expect(hundred).toHaveLength(2);
    expect(hundred.flatMap((p) => p.items.map((c: any) => c.id))).toEqual(expectedOrder());
  });

  it('never skips or repeats cards that share a created_at, even one card per page', async () => {
    const pages = await walk(1);
    expect(pages.map((p) => p.items[0].id)).toEqual(expectedOrder());
  });

  it('keeps pages stable when a newer card is added between requests (keyset cursors)', async () => {
    const first = await list('?limit=7');
    const rec = store(sb).gift_cards.get(WELL_KNOWN.giftCards.default.id)!;
    store(sb).gift_cards.insert({ ...rec, id: 'f1000000-0000-4000-8000-0000000000aa', created_at: '2026-11-20T00:00:00.000Z' });
    const second = await list(`?limit=7&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items.map((c: any) => c.id)).toEqual(expectedOrder().slice(8, 15));
    expect((await list('?limit=1')).body.items[0].id).toBe('f1000000-0000-4000-8000-0000000000aa');
  });

  it('lists only the cards of the merchant account in the header', async () => {
    const pages = await walk(5, '', 'merchant-two');
    const ids = pages.flatMap((p) => p.items.map((c: any) => c.id));
    expect(ids).toEqual(expectedOrder('merchant-two'));
    expect(ids.length).toBeGreaterThan(5);
    expect(ids).toContain(WELL_KNOWN.giftCards.merchantTwo.id);
  });

  it('serves the page a cursor names whether its position hint holds, is wrong or is absent; refuses a malformed hint', async () => {
    // The sandbox's own codec (its secret comes from the seed): cursors signed as the sandbox signs them.
    const codec = new CursorCodec(`payments-sandbox-cursor-${sb.deps.config.seed}`);
    const first = (await list('?limit=10')).body;
    const second = (await list(`?limit=10&cursor=${encodeURIComponent(first.next_cursor)}`)).body;
    const last = first.items[9];
    const key = { direction: 'next' as const, created_at: last.created_at, id: last.id, merchant_account_id: 'default' };
    for (const cursor of [codec.encode(key), codec.encode({ ...key, at: 0 }), codec.encode({ ...key, at: 999_999 }), codec.encode({ ...key, at: 9 })]) {
      const page = await list(`?limit=10&cursor=${encodeURIComponent(cursor)}`);
      expectJson(page, 200);
      expect(page.body.items).toEqual(second.items);
    }
    // The previous page from the second page's first card, hint or none.
    const back = { direction: 'previous' as const, created_at: second.items[0].created_at, id: second.items[0].id, merchant_account_id: 'default' };
    for (const cursor of [codec.encode(back), codec.encode({ ...back, at: 3 })]) {
      expect((await list(`?limit=10&cursor=${encodeURIComponent(cursor)}`)).body.items).toEqual(first.items);
    }
    // A payload signed as the sandbox signs (HMAC-SHA256 of the payload, base64url, 22 characters).
    const signed = (fields: unknown[]) => {
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `${payload}.${createHmac('sha256', `payments-sandbox-cursor-${sb.deps.config.seed}`).update(payload).digest('base64url').slice(0, 22)}`;
    };
    expect(signed(['n', last.created_at, last.id, 'default', 9])).toBe(codec.encode({ ...key, at: 9 }));
    for (const hint of [-1, 1.5, '3', null]) {
      expectBadRequest(await list(`?limit=10&cursor=${encodeURIComponent(signed(['n', last.created_at, last.id, 'default', hint]))}`), [
        { location: 'query', pointer: '/cursor', type: 'cursor_invalid' },
      ]);
    }
  });

  it('answers an empty list as one page: items [] and both cursors null', async () => {
    const onePage = (limit = 20) => ({ items: [], limit, next_cursor: null, previous_cursor: null });
    // A filter matching no card.
    const none = await list('?buyer_id=b0000000-0000-4000-8000-0000000000ff');
    expectJson(none, 200);
    expect(none.body).toEqual(onePage());
    expect((await list('?buyer_external_identifier=nobody&limit=5')).body).toEqual(onePage(5));
    // A merchant account without cards.
    const ns = 'empty-gift-cards';
    expect((await sb.http.post(records('merchant_accounts', ns)).send({ id: 'no-cards', display_name: 'No cards' })).status).toBe(201);
    const empty = await sb.http.get(`/ns/${ns}/gift-cards`).set('authorization', sb.auth).set(MERCHANT_HEADER, 'no-cards');
    expectJson(empty, 200);
    expect(empty.body).toEqual(onePage());
    // A cursor past the last card: every card after the first page removed meanwhile.
    const first = await sb.http.get(`/ns/${ns}/gift-cards?limit=3`).set('authorization', sb.auth);
    expect(first.body.next_cursor).not.toBeNull();
    const order = store(sb).gift_cards.where((c) => c.merchant_account_id === 'default').length;
    expect(order).toBeGreaterThan(3);
    const rest = (await sb.http.get(`/ns/${ns}/gift-cards?limit=100&cursor=${encodeURIComponent(first.body.next_cursor)}`).set('authorization', sb.auth)).body;
    let removed = 0;
    for (let page = rest; ; ) {
      for (const card of page.items) {
        expect((await sb.http.delete(records(`gift_cards/${card.id}`, ns))).status).toBe(204);
        removed++;
      }
      if (!page.next_cursor) break;
      page = (await sb.http.get(`/ns/${ns}/gift-cards?limit=100&cursor=${encodeURIComponent(page.next_cursor)}`).set('authorization', sb.auth)).body;
    }
    expect(removed).toBe(order - 3);
    const past = await sb.http.get(`/ns/${ns}/gift-cards?limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`).set('authorization', sb.auth);
    expectJson(past, 200);
    expect(past.body).toEqual(onePage(3));
  });

  it('refuses tampered, foreign and malformed cursors with 400', async () => {
    const { body } = await list('?limit=7');
    const cursor: string = body.next_cursor;
    const [payload, sig] = cursor.split('.');
    const flipped = `${payload}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
    const forged = `${Buffer.from(JSON.stringify(['n', '2026-01-01T00:00:00.000Z', UUID.source, 'default'])).toString('base64url')}.${sig}`;
    const foreign = (await list('?limit=2', 'merchant-two')).body.next_cursor;
    const other = await startTestSandbox({ seed: 77 });
    const otherCursor = (await other.http.get('/gift-cards?limit=7').set('authorization', other.auth)).body.next_cursor;
    other.server.close();
    for (const bad of [flipped, forged, foreign, otherCursor, 'abc', `${cursor}.x`]) {
      expectBadRequest(await list(`?cursor=${encodeURIComponent(bad)}`), [{ location: 'query', pointer: '/cursor', type: 'cursor_invalid' }]);
    }
    expectBadRequest(await list('?cursor='), [{ location: 'query', pointer: '/cursor', type: 'string_too_short' }]);
    expectBadRequest(await list(`?cursor=${'a'.repeat(1001)}`), [{ location: 'query', pointer: '/cursor', type: 'string_too_long' }]);
  });

  it('refuses a limit outside 1-100 or not an integer', async () => {
    expect((await list('?limit=1')).body.items).toHaveLength(1);
    expectBadRequest(await list('?limit=0'), [{ location: 'query', pointer: '/limit', type: 'greater_than_equal' }]);
    expectBadRequest(await list('?limit=101'), [{ location: 'query', pointer: '/limit', type: 'less_than_equal' }]);
    expectBadRequest(await list('?limit=ten'), [{ location: 'query', pointer: '/limit', type: 'int_type' }]);
    expectBadRequest(await list('?limit=2.5&buyer_id=nope'), [
      { location: 'query', pointer: '/limit', type: 'int_type' },
      { location: 'query', pointer: '/buyer_id', type: 'uuid_parsing' },
    ]);
  });

  it('filters by buyer_id and by buyer_external_identifier, also across pages', async () => {
    const janes = expectedOrder('default', (c) => c.buyer_id === JANE.id);
    expect(janes.length).toBeGreaterThan(7);
    const byId = await walk(7, `buyer_id=${JANE.id}`);
    expect(byId.flatMap((p) => p.items.map((c: any) => c.id))).toEqual(janes);
    for (const p of byId) for (const c of p.items) expect(c.buyer.id).toBe(JANE.id);
    const byExt = await walk(7, `buyer_external_identifier=${JANE.externalIdentifier}`);
    expect(byExt.flatMap((p) => p.items.map((c: any) => c.id))).toEqual(janes);
    const both = await list(`?buyer_id=${JANE.id}&buyer_external_identifier=someone-else`);
    expect(both.body).toEqual({ items: [], limit: 20, next_cursor: null, previous_cursor: null });
    const foreignBuyer = await list(`?buyer_id=${WELL_KNOWN.buyers.merchantTwo.id}`);
    expect(foreignBuyer.body.items).toEqual([]);
  });

  it('keeps the buyer filters current: a second buyer sharing the external identifier, new and removed cards, a changed identifier', async () => {
    const ids = async (query: string) => (await walk(7, query)).flatMap((p) => p.items.map((c: any) => c.id));
    const OTHER = 'b1000000-0000-4000-8000-0000000000bb';
    const jane = (await sb.http.get(records(`buyers/${JANE.id}`))).body;
    expect((await sb.http.post(records('buyers')).send({ ...jane, id: OTHER, display_name: 'Jane Twin' })).status).toBe(201);
    const janeCard = (await sb.http.get(records(`gift_cards/${WELL_KNOWN.giftCards.default.id}?shape=stored`))).body;
    // Two cards of the twin: one ties on created_at with Jane's well-known card, one is older than every card.
    const twinCards = ['f2000000-0000-4000-8000-000000000001', 'f2000000-0000-4000-8000-000000000002'];
    for (const [i, id] of twinCards.entries()) {
      const created_at = i === 0 ? janeCard.created_at : '2001-01-01T00:00:00.000Z';
      expect((await sb.http.post(records('gift_cards')).send({ ...janeCard, id, buyer_id: OTHER, created_at, updated_at: created_at })).status).toBe(201);
    }
    const ofBuyers = (...buyers: string[]) => expectedOrder('default', (c) => buyers.includes(c.buyer_id));
    expect(ofBuyers(OTHER)).toEqual(twinCards); // newest first: the tie, then the old one
    expect(await ids(`buyer_external_identifier=${JANE.externalIdentifier}`)).toEqual(ofBuyers(JANE.id, OTHER));
    expect(await ids(`buyer_id=${OTHER}`)).toEqual(twinCards);
    expect(await ids(`buyer_id=${OTHER}&buyer_external_identifier=${JANE.externalIdentifier}`)).toEqual(twinCards);

    // The twin changes its external identifier: each filter follows at once.
    expect((await sb.http.put(`/buyers/${OTHER}`).set('authorization', sb.auth).send({ external_identifier: 'twin-moved' })).status).toBe(200);
    expect(await ids(`buyer_external_identifier=${JANE.externalIdentifier}`)).toEqual(ofBuyers(JANE.id));
    expect(await ids('buyer_external_identifier=twin-moved')).toEqual(twinCards);
    expect(await ids(`buyer_id=${OTHER}&buyer_external_identifier=${JANE.externalIdentifier}`)).toEqual([]);

    // A card removed, and one added, show on the next call.
    expect((await sb.http.delete(records(`gift_cards/${twinCards[0]}`))).status).toBe(204);
    expect(await ids(`buyer_id=${OTHER}`)).toEqual([twinCards[1]]);
    const added = 'f2000000-0000-4000-8000-000000000003';
    expect((await sb.http.post(records('gift_cards')).send({ ...janeCard, id: added, buyer_id: OTHER, created_at: '2026-11-01T00:00:00.000Z' })).status).toBe(
      201,
    );
    expect(await ids('buyer_external_identifier=twin-moved')).toEqual([added, twinCards[1]]);
    expect(await ids('buyer_external_identifier=nobody-has-this')).toEqual([]);
  });

  describe('cached card texts (each card is serialized once, until a collection it shows changes)', () => {
    const CARD = WELL_KNOWN.giftCards.default.id;
    const SERVICE = WELL_KNOWN.giftCardServices.default.id;
    const cardIn = async (ns = 'default') => {
      const res = await sb.http.get(`/ns/${ns}/gift-cards?buyer_id=${JANE.id}&limit=100`).set('authorization', sb.auth);
      expectJson(res, 200);
      return res.body.items.find((c: any) => c.id === CARD);
    };

    it('shows a change to the card, its buyer or its gift card service on the next call', async () => {
      const before = await cardIn();
      expect([before.usage_count, before.buyer.display_name, before.gift_card_service.display_name]).toEqual([before.usage_count, 'Jane Doe', 'Qwikcilver']);

      const renamed = await sb.http.put(`/buyers/${JANE.id}`).set('authorization', sb.auth).send({ display_name: 'Jane Renamed' });
      expect(renamed.status).toBe(200);
      const afterBuyer = await cardIn();
      expect(afterBuyer.buyer).toEqual({ ...renamed.body, reconciliation_id: before.buyer.reconciliation_id });
      expect(afterBuyer.buyer).toEqual({ ...before.buyer, display_name: 'Jane Renamed', updated_at: renamed.body.updated_at });

      expect((await sb.http.patch(records(`gift_cards/${CARD}`)).send({ usage_count: before.usage_count + 5, cit_usage_count: 0 })).status).toBe(200);
      const afterCard = await cardIn();
      expect([afterCard.usage_count, afterCard.cit_usage_count]).toEqual([before.usage_count + 5, 0]);

      expect((await sb.http.patch(records(`gift_card_services/${SERVICE}`)).send({ display_name: 'Renamed Service' })).status).toBe(200);
      expect((await cardIn()).gift_card_service).toEqual({ ...before.gift_card_service, display_name: 'Renamed Service' });

      // Everything else as the card was (the records API stamps updated_at).
      expect(await cardIn()).toEqual({
        ...before,
        updated_at: afterCard.updated_at,
        usage_count: before.usage_count + 5,
        cit_usage_count: 0,
        gift_card_service: { ...before.gift_card_service, display_name: 'Renamed Service' },
        buyer: afterBuyer.buyer,
      });
    });

    it('sends any character as UTF-8, with the byte length as Content-Length, on small and full pages', async () => {
      const name = 'Zoë Ødegård 漢字 🎁 "quoted" \\ back\u2028line';
      expect((await sb.http.put(`/ns/texts-utf8/buyers/${JANE.id}`).set('authorization', sb.auth).send({ display_name: name })).status).toBe(200);
      for (const limit of [1, 100]) {
        const res = await sb.http.get(`/ns/texts-utf8/gift-cards?buyer_id=${JANE.id}&limit=${limit}`).set('authorization', sb.auth);
        expectJson(res, 200);
        expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
        expect(res.body.items.length).toBeGreaterThan(0);
        for (const card of res.body.items) expect(card.buyer.display_name).toBe(name);
        expect(res.body.limit).toBe(limit);
      }
    });

    it("renews the JSON of a changed buyer's cards only", async () => {
      const keptOf = (id: string) => {
        const stored = store(sb).gift_cards.get(id) as object;
        const slot = Object.getOwnPropertySymbols(stored).find((s) => s.description === 'api json');
        return slot && (stored as Record<symbol, unknown>)[slot];
      };
      const cards = store(sb).gift_cards.where((g) => g.merchant_account_id === 'default');
      const janes = cards.filter((g) => g.buyer_id === JANE.id).map((g) => g.id);
      const others = cards.filter((g) => g.buyer_id !== JANE.id).map((g) => g.id);
      expect(janes.length && others.length).toBeTruthy();
      await walk(100);
      const before = new Map([...janes, ...others].map((id) => [id, keptOf(id)]));
      expect([...before.values()].every((k) => k !== undefined)).toBe(true);

      expect((await sb.http.put(`/buyers/${JANE.id}`).set('authorization', sb.auth).send({ display_name: 'Jane Again' })).status).toBe(200);
      expect((await cardIn()).buyer.display_name).toBe('Jane Again');
      await walk(100);
      for (const id of others) expect(keptOf(id), id).toBe(before.get(id)); // not serialized again
      for (const id of janes) expect(keptOf(id), id).not.toBe(before.get(id));

      // A service its cards still name cannot be removed (records.test.ts): the cards keep showing it.
      const shown = (await cardIn()).gift_card_service;
      expect((await sb.http.delete(records(`gift_card_services/${SERVICE}`))).status).toBe(422);
      expect((await cardIn()).gift_card_service).toEqual(shown);
    });

    it('serves the whole list from cached blocks of rows: the same cards as the per-card path, across block edges and after each change', async () => {
      // Unfiltered pages are copied from blocks of 128 rows; filtered ones card by card. Pages of 50
      // put an edge (row 128) inside the third page.
      const unfiltered = async () => (await walk(50)).flatMap((p) => p.items);
      const perCard = async () => {
        const cards = new Map<string, any>();
        const buyers = new Set(
          store(sb)
            .gift_cards.where((g) => g.merchant_account_id === 'default')
            .map((g) => g.buyer_id),
        );
        for (const buyer of buyers) for (const card of (await list(`?buyer_id=${buyer}&limit=100`)).body.items) cards.set(card.id, card);
        return cards;
      };
      const agree = async () => {
        const cards = await unfiltered();
        expect(cards.map((c) => c.id)).toEqual(expectedOrder());
        const each = await perCard();
        expect(each.size).toBe(cards.length);
        for (const card of cards) expect(card, card.id).toEqual(each.get(card.id));
        return cards;
      };
      const original = await agree();
      expect(original.length).toBeGreaterThan(128);
      const byId = (cards: any[]) => new Map(cards.map((c) => [c.id, c]));

      // A buyer's change reaches each of its cards in every block; other cards are as they were.
      expect((await sb.http.put(`/buyers/${JANE.id}`).set('authorization', sb.auth).send({ display_name: 'Jane Blocks' })).status).toBe(200);
      const renamed = byId(await agree());
      for (const card of original) {
        if (card.buyer.id === JANE.id) expect(renamed.get(card.id).buyer.display_name).toBe('Jane Blocks');
        else expect(renamed.get(card.id)).toEqual(card);
      }

      // A card in the second block changes; a card in the first is removed (the view is rebuilt).
      const changed = original[140];
      const removed = original[5];
      expect((await sb.http.patch(records(`gift_cards/${changed.id}`)).send({ usage_count: 4242, cit_usage_count: 1 })).status).toBe(200);
      expect(byId(await agree()).get(changed.id)).toMatchObject({ usage_count: 4242, cit_usage_count: 1 });
      expect((await sb.http.delete(records(`gift_cards/${removed.id}`))).status).toBe(204);
      const after = await agree();
      expect(after.map((c) => c.id)).toEqual(original.map((c) => c.id).filter((id) => id !== removed.id));
    });

    it('leaves no trace of a cached text in the stored record, its JSON or its copies', async () => {
      const stored = store(sb).gift_cards.get(CARD)!;
      const before = JSON.stringify(stored);
      await cardIn();
      expect(JSON.stringify(stored)).toBe(before);
      expect(Object.getOwnPropertySymbols({ ...stored })).toEqual([]);
      expect(Object.getOwnPropertySymbols(structuredClone(stored))).toEqual([]);
      const raw = await sb.http.get(`/_sandbox/records/gift_cards/${CARD}?shape=stored`);
      expect(raw.body).toEqual(JSON.parse(before));
    });

    it('shows the fixtures again after a reset, and keeps each namespace to its own records', async () => {
      const original = await cardIn();
      await cardIn('texts-b');
      expect((await sb.http.put(`/ns/texts-a/buyers/${JANE.id}`).set('authorization', sb.auth).send({ display_name: 'Only In A' })).status).toBe(200);
      expect((await cardIn('texts-a')).buyer.display_name).toBe('Only In A');
      expect(await cardIn('texts-b')).toEqual(original);
      expect(await cardIn()).toEqual(original);
      expect((await sb.http.post('/ns/texts-a/_sandbox/reset')).status).toBe(200);
      expect(await cardIn('texts-a')).toEqual(original);
    });
  });
});
