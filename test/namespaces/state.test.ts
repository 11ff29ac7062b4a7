// GET/PUT /_sandbox/state: a whole namespace (records, clock, journal, scenario state and counters,
// report schedules) exported and imported into another namespace, which carries on exactly where
// the first stood; a bad state is refused whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectUnprocessable } from '../api/support.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const FROZEN_AT = '2031-05-04T03:02:01.000Z';

describe('the whole namespace out and back in', () => {
  let sb: TestSandbox;
  let exported: any;
  beforeAll(async () => {
    sb = await startTestSandbox();
    const api = (method: 'get' | 'put' | 'post', path: string) => sb.http[method](`/ns/alpha${path}`).set('authorization', sb.auth);
    await sb.http.put('/ns/alpha/_sandbox/clock').send({ now: FROZEN_AT, frozen: true }).expect(200);
    await api('put', `/buyers/${BUYER}`).send({ display_name: 'Moved Buyer' }).expect(200);
    await sb.http
      .put('/ns/alpha/_sandbox/scenarios/active')
      .send({ scenarios: ['rate-limited'], merchant_account_id: 'default' })
      .expect(200);
    await api('get', '/gift-cards?limit=1').expect(429); // rate-limited: the first of two 429s is taken
    const state = await sb.http.get('/ns/alpha/_sandbox/state').expect(200);
    exported = state.body;
  });
  afterAll(() => sb.server.close());

  it('exports records, clock and every part used', () => {
    expect(Object.keys(exported).sort()).toEqual(['clock', 'namespace', 'parts', 'records']);
    expect(exported.namespace).toBe('alpha');
    expect(exported.clock).toEqual({ mode: 'frozen', frozenAt: Date.parse(FROZEN_AT), offsetMs: 0 });
    expect(exported.records.schema_version).toBe(1);
    expect(exported.records.collections.buyers.find((b: { id: string }) => b.id === BUYER).display_name).toBe('Moved Buyer');
    expect(Object.keys(exported.parts).sort()).toEqual(['journal', 'reports', 'scenarios', 'webhooks']);
    expect(exported.parts.webhooks).toEqual({ behaviour: { delay_ms: 0, duplicate: false, reorder: false }, dropped: 0 });
    expect(exported.parts.scenarios.active).toEqual([{ merchant_account_id: 'default', scenarios: ['rate-limited'] }]);
    expect(exported.parts.scenarios.cursors).toEqual([
      { merchant_account_id: 'default', scenario: 'rate-limited', step: 0, used_in_step: 1, requests: 1, answered: 1, random_state: expect.any(Number) },
    ]);
    expect(exported.parts.scenarios.defined).toEqual([]);
    expect(exported.parts.journal.last_id).toBe(2);
    expect(exported.parts.journal.entries.map((e: { method: string; path: string; status: number }) => [e.method, e.path, e.status])).toEqual([
      ['PUT', `/buyers/${BUYER}`, 200],
      ['GET', '/gift-cards', 429],
    ]);
    expect(exported.parts.reports).toEqual({ floor_ms: expect.any(Number), started_ms: expect.any(Number) });
  });

  it('imports into another namespace, which carries on where the first stood', async () => {
    const put = await sb.http.put('/ns/beta/_sandbox/state').send(exported).expect(200);
    expect(put.body).toEqual({ namespace: 'beta', record_counts: expect.objectContaining({ buyers: exported.records.collections.buyers.length }) });
    const buyer = await sb.http.get(`/ns/beta/_sandbox/records/buyers/${BUYER}`).expect(200);
    expect(buyer.body.display_name).toBe('Moved Buyer');
    const clock = await sb.http.get('/ns/beta/_sandbox/clock').expect(200);
    expect(clock.body).toMatchObject({ now: FROZEN_AT, frozen: true });
    // The scenario's second 429, then normal answers: its counter came along.
    const list = () => sb.http.get('/ns/beta/gift-cards?limit=1').set('authorization', sb.auth);
    expect((await list()).status).toBe(429);
    expect((await list()).status).toBe(200);
    const journal = await sb.http.get('/ns/beta/_sandbox/requests').expect(200);
    expect(journal.body.items.map((e: { id: number; status: number }) => [e.id, e.status])).toEqual([
      [4, 200],
      [3, 429],
      [2, 429],
      [1, 200],
    ]);
    expect(journal.body.items[3]).toMatchObject({ namespace: 'alpha', body: { display_name: 'Moved Buyer' }, headers: { authorization: '[redacted]' } });
    // The first namespace is untouched by the second's calls.
    expect((await sb.http.get('/ns/alpha/_sandbox/requests/count').expect(200)).body).toEqual({ count: 2 });
  });

  it('starts a part the state does not name afresh', async () => {
    await sb.http.get('/ns/gamma/gift-cards?limit=1').set('authorization', sb.auth).expect(200);
    const { journal: _journal, ...withoutJournal } = exported.parts;
    await sb.http
      .put('/ns/gamma/_sandbox/state')
      .send({ ...exported, parts: withoutJournal })
      .expect(200);
    expect((await sb.http.get('/ns/gamma/_sandbox/requests').expect(200)).body.items).toEqual([]);
  });

  it.each([
    ['a frozen clock without its instant', { clock: { mode: 'frozen', frozenAt: null } }, '/clock'],
    ['an unknown part', { parts: { telepathy: {} } }, '/parts'],
    ['a journal that is not one', { parts: { journal: { last_id: 'many', dropped: 0, entries: [] } } }, '/parts/journal'],
    [
      'scenario counters that are not counts',
      { parts: { scenarios: { active: [], cursors: [{ merchant_account_id: 'default', scenario: 'x', step: -1 }] } } },
      '/parts/scenarios',
    ],
  ])('refuses %s with a 400 naming where, and changes nothing', async (_what, change, pointer) => {
    await sb.http.put(`/ns/delta/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'Before Import' }).expect(200);
    const res = await sb.http.put('/ns/delta/_sandbox/state').send({ ...exported, ...change });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.details).toEqual([expect.objectContaining({ location: 'body', pointer, type: 'value_error' })]);
    expect(res.body.message).toMatch(/^The namespace state cannot be imported: /);
    const buyer = await sb.http.get(`/ns/delta/_sandbox/records/buyers/${BUYER}`).expect(200);
    expect(buyer.body.display_name).toBe('Before Import');
  });

  it('refuses a record of the wrong shape with a pointer into the records', async () => {
    const records = structuredClone(exported.records);
    records.collections.buyers[0].display_name = 42;
    const res = await sb.http.put('/ns/delta/_sandbox/state').send({ ...exported, records });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.details[0]).toMatchObject({ location: 'body', pointer: '/records/collections/buyers/0/display_name' });
  });

  it('refuses a record naming one the state does not hold with a 422 naming it, and changes nothing', async () => {
    await sb.http.put('/ns/epsilon/_sandbox/state').send(exported).expect(200);
    const before = (await sb.http.get('/ns/epsilon/_sandbox/state').expect(200)).body.records;
    const records = structuredClone(exported.records);
    const missing = '0a0a0a0a-0000-4000-8000-000000000001';
    const card = records.collections.gift_cards[1];
    card.buyer_id = missing;
    const res = await sb.http.put('/ns/epsilon/_sandbox/state').send({ ...exported, records });
    expectUnprocessable(res, [{ loc: ['body', 'records', 'collections', 'gift_cards', '1', 'buyer_id'], input: missing }]);
    expect(res.body.detail[0]).toEqual({
      loc: ['body', 'records', 'collections', 'gift_cards', '1', 'buyer_id'],
      msg: `gift_cards[1] (id "${card.id}"): buyer_id names buyers record "${missing}", which is not there in this import.`,
      type: 'value_error',
      input: missing,
      ctx: { collection: 'buyers' },
    });
    // A snapshot import is checked the same way.
    const snapshot = await sb.http.put('/ns/epsilon/_sandbox/snapshot').send(records);
    expectUnprocessable(snapshot, [{ loc: ['body', 'collections', 'gift_cards', '1', 'buyer_id'], input: missing }]);
    expect((await sb.http.get('/ns/epsilon/_sandbox/state').expect(200)).body.records).toEqual(before);
  });
});
