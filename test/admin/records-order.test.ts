// GET /_sandbox/records/{collection}?order=<field>:<asc|desc>: the newest record in one call,
// sorting by any declared field of the stored shape, and a 400 naming the parameter otherwise.
import { beforeEach, describe, expect, it } from 'vitest';
import { REPORT_BODY } from '../scenarios/helpers.js';
import { expectErrorBody, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';

describe('records API order', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));
  beforeEach(async () => {
    await sb.http.post('/_sandbox/reset').expect(200);
  });
  const db = () => sb.deps.namespaces.get('default').store.collections;
  const ids = (body: { items: Array<{ id: string }> }) => body.items.map((r) => r.id);
  const list = async (query: string) => {
    const res = await sb.http.get(`/_sandbox/records/${query}`);
    expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body as { items: Array<Record<string, any> & { id: string }>; total: number; limit: number; offset: number };
  };

  it('gives the newest report execution with order=created_at:desc&limit=1, the last made of two at one instant', async () => {
    await sb.http.put('/_sandbox/clock').send({ now: '2031-05-01T10:00:00.000Z', frozen: true }).expect(200);
    const first = await sb.http.post('/reports').set('authorization', sb.auth).send(REPORT_BODY);
    const second = await sb.http.post('/reports').set('authorization', sb.auth).send(REPORT_BODY);
    expect([first.status, second.status]).toEqual([201, 201]);
    const newest = await list('report_executions?order=created_at:desc&limit=1');
    expect(newest.total).toBe(db().report_executions.size);
    expect(newest.limit).toBe(1);
    expect(ids(newest)).toEqual([second.body.latest_execution.id]);
    expect(newest.items[0]).toMatchObject({ type: 'report-execution', created_at: '2031-05-01T10:00:00.000Z', status: 'pending' });
    // Moving the clock two years ran the scheduled fixture reports hundreds of times: the last page ascending.
    const oldestFirst = await list(`report_executions?order=created_at:asc&offset=${newest.total - 2}`);
    expect(ids(oldestFirst)).toEqual([first.body.latest_execution.id, second.body.latest_execution.id]);
  });

  it('sorts every gift card by created_at both ways: desc is asc backwards, ties included; filter first, then order, then offset and limit', async () => {
    const stored = db()
      .gift_cards.all()
      .filter((g) => g.merchant_account_id === 'default');
    const asc = await list('gift_cards?merchant_account_id=default&order=created_at:asc&limit=1000');
    const desc = await list('gift_cards?merchant_account_id=default&order=created_at:desc&limit=1000');
    expect(asc.total).toBe(stored.length);
    const expected = stored
      .map((g, i) => ({ id: g.id, at: g.created_at, i }))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.i - b.i))
      .map((g) => g.id);
    expect(ids(asc)).toEqual(expected);
    expect(ids(desc)).toEqual([...expected].reverse());
    // The fixtures have created_at ties, so the tie rule is exercised.
    expect(new Set(stored.map((g) => g.created_at)).size).toBeLessThan(stored.length);
    const page = await list('gift_cards?merchant_account_id=default&order=created_at:desc&offset=10&limit=5');
    expect(ids(page)).toEqual(expected.reverse().slice(10, 15));
    expect(page.total).toBe(stored.length);
  });

  it('sorts by a stored-shape field, numbers by value, with null and missing values last both ways', async () => {
    const unnamed = await sb.http.post('/_sandbox/records/buyers').send({}).expect(201);
    expect(unnamed.body.display_name).toBeNull();
    const names = (body: { items: Array<Record<string, any>> }) => body.items.map((b) => b.display_name);
    const asc = names(await list('buyers?order=display_name:asc&limit=1000'));
    const desc = names(await list('buyers?order=display_name:desc&limit=1000'));
    expect(asc.at(-1)).toBeNull();
    expect(desc.at(-1)).toBeNull();
    const named = asc.filter((n): n is string => n !== null);
    expect(named).toEqual([...named].sort());
    expect(desc.filter((n) => n !== null)).toEqual([...named].reverse());

    await sb.http.patch(`/_sandbox/records/gift_cards/${WELL_KNOWN.giftCards.default.id}`).send({ usage_count: 1000 }).expect(200);
    const byUse = await list('gift_cards?order=usage_count:desc&limit=3&shape=stored');
    expect(byUse.items[0]).toMatchObject({ id: WELL_KNOWN.giftCards.default.id, usage_count: 1000 });
    const counts = (await list('gift_cards?order=usage_count:asc&limit=1000&shape=stored')).items.map((g) => g.usage_count as number);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)).toBe(1000);

    const byBuyer = await list('gift_cards?order=buyer_id:asc&limit=1000&shape=stored');
    const buyerIds = byBuyer.items.map((g) => g.buyer_id as string);
    expect(buyerIds).toEqual([...buyerIds].sort());
  });

  it.each([
    ['created_at', 'string_pattern_mismatch'],
    ['created_at:up', 'string_pattern_mismatch'],
    ['Created_At:asc', 'string_pattern_mismatch'],
    [':desc', 'string_pattern_mismatch'],
  ])('answers order=%s with a 400 naming the parameter', async (order, type) => {
    const res = await sb.http.get(`/_sandbox/records/report_executions?order=${encodeURIComponent(order)}`);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.details).toHaveLength(1);
    expect(res.body.details[0]).toMatchObject({ location: 'query', pointer: '/order', type });
    expect(res.body.details[0].message).toContain("'order'");
  });

  it('answers a field the stored shape does not declare with a 400 listing the fields', async () => {
    const res = await sb.http.get('/_sandbox/records/report_executions?order=colour:asc');
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.message).toBe("Query parameter 'order' names no field of report_executions records: 'colour'.");
    expect(res.body.details).toEqual([
      {
        location: 'query',
        pointer: '/order',
        type: 'value_error',
        message:
          "Query parameter 'order' must name a field of report_executions records (context, created_at, id, lifecycle, merchant_account_id, report_id, status, type, updated_at), then :asc or :desc.",
      },
    ]);
    // Card scheme definitions have no timestamps: created_at is not one of their fields.
    const noTimestamps = await sb.http.get('/_sandbox/records/card_scheme_definitions?order=created_at:desc');
    expect(noTimestamps.status).toBe(400);
    expect(noTimestamps.body.details[0]).toMatchObject({ pointer: '/order', type: 'value_error' });
    expect(noTimestamps.body.details[0].message).not.toContain('created_at');
  });
});
