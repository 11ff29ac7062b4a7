// Scenario files written by testers: sequences and their counters, every step kind, concurrency.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { REPORT_BODY, scenarioDir, tally } from './helpers.js';

const FILES = {
  'burst.yaml': `
name: burst
description: 10 x 500, 15 x 429, then normal
operations: [listGiftCards]
steps:
  - respond: { status: 500 }
    times: 10
  - respond: { status: 429, retry_after: 30 }
    times: 15
  - pass: true
`,
  'then-fail.yaml': `
name: then-fail
description: two normal answers, then 502 for ever
operations: ["GET /gift-cards"]
steps:
  - pass: true
    times: 2
  - respond: { status: 502 }
`,
  'custom-error.json': JSON.stringify({
    name: 'custom-error',
    description: 'every field of an error step',
    operations: ['createApiKeyPair', 'updateBuyer'],
    steps: [
      {
        respond: {
          status: 409,
          code: 'duplicate_record',
          message: 'Key already registered.',
          resource_id: 'a0000000-0000-4000-8000-000000000004',
          details: [{ location: 'body', type: 'duplicate', pointer: '/public_key', message: 'This public key is registered.' }],
          headers: { 'x-upstream': 'vault' },
        },
        times: 1,
      },
      { respond: { status: 409, resource_id: { collection: 'buyers', merchant_account: true } } },
    ],
  }),
  'rewrite.yaml': `
name: rewrite
description: override then merge
operations: [listCardSchemeDefinitions, createReport, updateBuyer]
steps:
  - override: { items: [{ type: card-scheme-definition, id: made-up, icon_url: "https://x.example/i.svg", display_name: Made up }] }
  - merge: { spec: { params: { injected: true } }, name: Renamed }
`,
  'empty-page.yaml': `
name: empty-page
description: a merge that empties the list and sets next_cursor itself, then an override with cursors
operations: [listGiftCards]
steps:
  - merge: { items: [], next_cursor: made-up-cursor }
  - override: { items: [], limit: 5, next_cursor: written, previous_cursor: as-is }
`,
  'pause.yaml': `
name: pause
description: waits 60 ms, then runs normally
operations: "*"
steps:
  - delay_ms: 60
`,
  'always.yaml': `
name: always
description: share 1 always hits, then share 0 never does
operations: [listGiftCards]
steps:
  - random: { share: 1, respond: { status: 504 } }
    times: 3
  - random: { share: 0, respond: { status: 504 } }
`,
  'drop-second.yaml': `
name: drop-second
description: answers once, then drops
operations: [listGiftCards]
steps:
  - pass: true
  - drop: true
`,
};

describe('scenario sequences', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ scenariosDir: scenarioDir(FILES) });
  });
  afterAll(() => sb.server.close());
  beforeEach(async () => {
    await sb.http.delete('/_sandbox/scenarios/active');
  });
  const giftCards = (scenario: string, merchant = 'default') =>
    sb.http.get('/gift-cards?limit=1').set('authorization', sb.auth).set('x-service-merchant-account-id', merchant).set('x-sandbox-scenario', scenario);

  it('adds the folder given to the built-in scenarios', async () => {
    const res = await sb.http.get('/_sandbox/scenarios');
    const files = res.body.items.filter((s: any) => s.source === 'file').map((s: any) => s.name);
    expect(files).toEqual(['always', 'burst', 'custom-error', 'drop-second', 'empty-page', 'pause', 'rewrite', 'then-fail']);
    const builtIn = res.body.items.filter((s: any) => s.source === 'built-in').map((s: any) => s.name);
    expect(builtIn.join(', ')).toBe(
      'bad-gateway, dropped-connection, duplicate-record, empty-lists, flaky, gateway-timeout, rate-limited, report-execution-fails, report-execution-stays-pending, server-error, slow, too-early',
    );
    expect((await giftCards('rate-limited')).status).toBe(429);
  });

  it('50 concurrent requests get exactly the specified count of each answer', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => giftCards('burst')));
    expect(tally(responses.map((r) => r.status))).toEqual(
      new Map([
        [500, 10],
        [429, 15],
        [200, 25],
      ]),
    );
    for (const r of responses.filter((x) => x.status === 429)) expect(r.headers['retry-after']).toBe('30');
    expect((await giftCards('burst')).status).toBe(200);
    const active = await sb.http.get('/_sandbox/scenarios/active');
    expect(active.body.counters).toEqual([{ merchant_account_id: 'default', scenario: 'burst', step: 2, requests: 51 }]);
  });

  it('never shares a sequence across merchant accounts, even concurrently', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => giftCards('burst', i % 2 ? 'merchant-two' : 'default').then((r) => [i % 2, r.status] as const)),
    );
    for (const account of [0, 1]) {
      expect(tally(responses.filter(([a]) => a === account).map(([, s]) => s))).toEqual(
        new Map([
          [500, 10],
          [429, 15],
        ]),
      );
    }
  });

  it('a merge that empties a list nulls the cursors it does not set; an override is sent as written', async () => {
    const merged = await sb.http.get('/gift-cards?limit=3').set('authorization', sb.auth).set('x-sandbox-scenario', 'empty-page');
    expect(merged.status).toBe(200);
    expect(merged.body).toEqual({ items: [], limit: 3, next_cursor: 'made-up-cursor', previous_cursor: null });
    const overridden = await sb.http.get('/gift-cards?limit=3').set('authorization', sb.auth).set('x-sandbox-scenario', 'empty-page');
    expect(overridden.body).toEqual({ items: [], limit: 5, next_cursor: 'written', previous_cursor: 'as-is' });
  });

  it('repeats the last step for ever', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await giftCards('then-fail')).status);
    expect(statuses).toEqual([200, 200, 502, 502, 502]);
  });

  it('answers with every field an error step gives', async () => {
    const first = await sb.http.post('/api-key-pairs').set('authorization', sb.auth).set('x-sandbox-scenario', 'custom-error').send({});
    expect(first.status).toBe(409);
    expect(first.headers['x-upstream']).toBe('vault');
    expect(first.body).toEqual({
      type: 'error',
      code: 'duplicate_record',
      status: 409,
      message: 'Key already registered.',
      resource_id: WELL_KNOWN.keyPairs.rsa.id,
      details: [{ location: 'body', type: 'duplicate', pointer: '/public_key', message: 'This public key is registered.' }],
    });
    // The sequence is per scenario (not per operation) and per merchant account.
    const buyerPut = (id: string, merchant: string) =>
      sb.http
        .put(`/buyers/${id}`)
        .set('authorization', sb.auth)
        .set('x-service-merchant-account-id', merchant)
        .set('x-sandbox-scenario', 'custom-error')
        .send({});
    const second = await buyerPut(WELL_KNOWN.buyers.default.id, 'default');
    expect(second.status).toBe(409);
    expect(second.body.message).toBe('A duplicate record exists (answered by scenario custom-error).');
    const buyer = sb.deps.namespaces.get('default').store.collections.buyers.get(second.body.resource_id);
    expect(buyer?.merchant_account_id).toBe('default');
    expect(second.headers['x-upstream']).toBeUndefined();
    const otherAccount = await buyerPut(WELL_KNOWN.buyers.merchantTwo.id, 'merchant-two');
    expect(otherAccount.body.message).toBe('Key already registered.');
  });

  it('override replaces the body; merge deep-merges into it; the store is untouched', async () => {
    const replaced = await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).set('x-sandbox-scenario', 'rewrite');
    expect(replaced.status).toBe(200);
    expect(replaced.headers['content-type']).toBe('application/json');
    expect(replaced.body).toEqual({ items: [{ type: 'card-scheme-definition', id: 'made-up', icon_url: 'https://x.example/i.svg', display_name: 'Made up' }] });
    const merged = await sb.http
      .post('/reports')
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'rewrite')
      .send({ ...REPORT_BODY, schedule_enabled: false });
    expect(merged.status).toBe(201);
    expect(merged.body.name).toBe('Renamed');
    expect(merged.body.spec).toEqual({ model: 'transactions', params: { injected: true } });
    expect(merged.body.type).toBe('report');
    const stored = sb.deps.namespaces.get('default').store.collections.reports.get(merged.body.id)!;
    expect(stored.name).toBe('Scenario report');
    expect(stored.spec.params).toEqual({});
  });

  it('leaves error answers alone in a merge step', async () => {
    await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).set('x-sandbox-scenario', 'rewrite'); // takes step 0 (override)
    const res = await sb.http
      .put(`/buyers/${WELL_KNOWN.buyers.default.id}`)
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'rewrite')
      .send({ display_name: 7 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bad_request');
    expect(res.body.name).toBeUndefined();
  });

  it('a delay-only step waits, then runs normally', async () => {
    const started = performance.now();
    const res = await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-scenario', 'pause');
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(res.status).toBe(200);
    expect(res.headers['x-sandbox-scenario']).toBe('pause');
    expect(res.body.items.length).toBeGreaterThan(0);
  });

  it('random share 1 always hits and share 0 never does', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await giftCards('always')).status);
    expect(statuses).toEqual([504, 504, 504, 200, 200, 200]);
  });

  it('a drop step closes the connection when its turn comes', async () => {
    expect((await giftCards('drop-second')).status).toBe(200);
    await expect(giftCards('drop-second')).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
