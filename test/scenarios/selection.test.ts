// How requests select scenarios: x-sandbox-scenario, Prefer: code=, and the control API.
import { beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { activate } from './helpers.js';

const KNOWN =
  'bad-gateway, dropped-connection, duplicate-record, empty-lists, flaky, gateway-timeout, rate-limited, report-execution-fails, report-execution-stays-pending, server-error, slow, too-early';

describe('scenario selection', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));
  beforeEach(async () => {
    await sb.http.delete('/_sandbox/scenarios/active');
  });
  const giftCards = (headers: Record<string, string> = {}) => sb.http.get('/gift-cards?limit=1').set('authorization', sb.auth).set(headers);

  describe('x-sandbox-scenario', () => {
    it('uses the first listed scenario that applies to the operation', async () => {
      // empty-lists applies to GET /gift-cards, so it answers even though server-error is listed too.
      const list = await giftCards({ 'x-sandbox-scenario': 'empty-lists, server-error' });
      expect(list.status).toBe(200);
      expect(list.body.items).toEqual([]);
      // empty-lists does not apply to POST /api-key-pairs: server-error answers.
      const create = await sb.http.post('/api-key-pairs').set('authorization', sb.auth).set('x-sandbox-scenario', 'empty-lists,server-error').send({});
      expect(create.status).toBe(500);
      expect(create.headers['x-sandbox-scenario']).toBe('server-error');
    });

    it('refuses unknown names with a 400 listing the known ones, before anything else', async () => {
      const res = await sb.http.get('/connections').set('x-sandbox-scenario', 'rate-limited, no-such-thing');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: 'error',
        code: 'bad_request',
        status: 400,
        message: `Unknown scenario 'no-such-thing'; known scenarios: ${KNOWN}.`,
        details: [{ location: 'header', pointer: '/x-sandbox-scenario', type: 'unknown_scenario', message: `Use one of: ${KNOWN}.` }],
      });
    });

    it('replaces the active scenarios for that request; an empty value selects none', async () => {
      await activate(sb, ['server-error']);
      expect((await giftCards()).status).toBe(500);
      expect((await giftCards({ 'x-sandbox-scenario': 'too-early' })).status).toBe(425);
      const none = await giftCards({ 'x-sandbox-scenario': '' });
      expect(none.status).toBe(200);
      expect(none.headers['x-sandbox-scenario']).toBeUndefined();
    });
  });

  describe('Prefer: code=', () => {
    it('answers any error status the operation declares', async () => {
      const limited = await giftCards({ prefer: 'code=429' });
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('1');
      expect(limited.body).toEqual({
        type: 'error',
        code: 'too_many_requests',
        status: 429,
        details: [],
        message: 'Too many requests; retry after the Retry-After delay (answered by Prefer: code=429).',
      });
      const missing = await sb.http.get('/connections').set('authorization', sb.auth).set('prefer', 'code=403');
      expect(missing.status).toBe(403);
      expectErrorBody(missing.body, 403, 'forbidden');
    });

    it('gives a 409 the id of a real record and a 422 the validation body', async () => {
      const dup = await sb.http.post('/reports').set('authorization', sb.auth).set('prefer', 'code=409').send({});
      expect(dup.status).toBe(409);
      expect(dup.body.resource_id).toBe(WELL_KNOWN.reports.daily.id);
      const unprocessable = await giftCards({ prefer: 'code=422' });
      expect(unprocessable.status).toBe(422);
      expect(unprocessable.body).toEqual({
        detail: [
          {
            loc: ['body'],
            msg: 'The request could not be processed (answered by Prefer: code=422).',
            type: 'value_error',
            input: null,
            ctx: { scenario: 'Prefer: code=422' },
          },
        ],
      });
    });

    it('runs normally for the success code and ignores example= and dynamic= tokens', async () => {
      const ok = await giftCards({ prefer: 'code=200, example=first; dynamic=true' });
      expect(ok.status).toBe(200);
      expect(ok.body.items).toHaveLength(1);
      const minimal = await giftCards({ prefer: 'return=minimal' });
      expect(minimal.status).toBe(200);
    });

    it('takes precedence over scenarios', async () => {
      await activate(sb, ['server-error']);
      expect((await giftCards({ prefer: 'code=504', 'x-sandbox-scenario': 'too-early' })).status).toBe(504);
    });

    it('answers 429 and 5xx on any operation, marked outside the contract when the operation does not declare them', async () => {
      const declared = (id: string) => sb.deps.api.spec.byId.get(id)!.declaredStatuses;
      expect(declared('listConnections')).not.toContain(429);
      const res = await sb.http.get('/connections').set('authorization', sb.auth).set('prefer', 'code=429');
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['x-sandbox-scenario']).toBe('prefer:code=429; outside-contract');
      expect(res.body).toEqual({
        type: 'error',
        code: 'too_many_requests',
        status: 429,
        details: [],
        message: 'Too many requests; retry after the Retry-After delay (answered by Prefer: code=429).',
      });
      const unavailable = await sb.http.get('/connections').set('authorization', sb.auth).set('prefer', 'code=503');
      expect(unavailable.status).toBe(503);
      expect(unavailable.body).toEqual({
        type: 'error',
        code: 'service_unavailable',
        status: 503,
        details: [],
        message: 'Service unavailable; retry after the Retry-After delay (answered by Prefer: code=503).',
      });
      const journal = await sb.http.get('/_sandbox/requests?limit=2');
      expect(journal.body.items.map((e: any) => [e.status, e.scenario, e.outside_contract])).toEqual([
        [503, 'prefer:code=503', true],
        [429, 'prefer:code=429', true],
      ]);
      // A declared status is not marked.
      const declaredOne = await giftCards({ prefer: 'code=500' });
      expect(declaredOne.status).toBe(500);
      expect(declaredOne.headers['x-sandbox-scenario']).toBe('prefer:code=500');
      expect((await sb.http.get('/_sandbox/requests?limit=1')).body.items[0].outside_contract).toBeUndefined();
    });

    it('refuses another code the operation does not declare, naming the ones it does', async () => {
      const declared = (id: string) => sb.deps.api.spec.byId.get(id)!.declaredStatuses.join(', ');
      expect(declared('listConnections')).not.toContain('409');
      const res = await sb.http.get('/connections').set('authorization', sb.auth).set('prefer', 'code=409');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: 'error',
        code: 'bad_request',
        status: 400,
        message: `Prefer: code=409 cannot be answered: operation listConnections declares ${declared('listConnections')} (and 429 or any 5xx may be asked for on any operation).`,
        details: [
          { location: 'header', pointer: '/prefer', type: 'undeclared_status', message: `Ask for one of ${declared('listConnections')}, 429 or a 5xx.` },
        ],
      });
      const success = await giftCards({ prefer: 'code=201' });
      expect(success.status).toBe(400);
      expect(success.body.message).toBe(
        `Prefer: code=201 cannot be answered: operation listGiftCards declares ${declared('listGiftCards')} (and 429 or any 5xx may be asked for on any operation).`,
      );
    });

    it('refuses a code that is not a status and leaves unknown paths to the 404', async () => {
      const bad = await giftCards({ prefer: 'code=abc' });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Prefer: code=abc is not an HTTP status code; write e.g. Prefer: code=429.');
      expect(bad.body.details).toEqual([{ location: 'header', pointer: '/prefer', type: 'prefer_code', message: 'code= takes a three-digit HTTP status.' }]);
      const unknown = await sb.http.get('/nowhere').set('authorization', sb.auth).set('prefer', 'code=429');
      expect(unknown.status).toBe(404);
    });
  });

  describe('control API', () => {
    it('lists every scenario with its description and operations', async () => {
      const res = await sb.http.get('/_sandbox/scenarios');
      expect(res.status).toBe(200);
      expect(res.body.items.map((s: any) => s.name).join(', ')).toBe(KNOWN);
      const limited = res.body.items.find((s: any) => s.name === 'rate-limited');
      expect(limited.file).toBe('scenarios/rate-limited.yaml');
      expect(limited.description).toMatch(/^The first two requests per merchant account answer 429/);
      expect(limited.steps).toEqual([
        { respond: { status: 429, retry_after: 1 }, times: 2 },
        { pass: true, times: 1 },
      ]);
      // 429 may be answered on any operation, declared or not.
      expect(limited.operations).toEqual(sb.deps.api.spec.operations.map((o) => o.id).sort());
      expect(limited).toMatchObject({ source: 'built-in', replaces: null, match: null, report_execution: null });
      const early = res.body.items.find((s: any) => s.name === 'too-early');
      expect(early.operations).toEqual(
        sb.deps.api.spec.operations
          .filter((o) => o.declaredStatuses.includes(425))
          .map((o) => o.id)
          .sort(),
      );
      expect(early.operations).not.toContain('listConnections');
      const fails = res.body.items.find((s: any) => s.name === 'report-execution-fails');
      expect(fails.report_execution).toEqual({ path: ['pending', 'dispatched', 'processing', 'failed'], durations_ms: [5000, 5000, 20000] });
      expect(fails.operations).toEqual(['createReport', 'getReportExecution']); // the operations that make report executions
    });

    it('activates for one merchant account only', async () => {
      const body = await activate(sb, ['too-early'], 'merchant-two');
      expect(body).toEqual({ active: [{ merchant_account_id: 'merchant-two', scenarios: ['too-early'] }], counters: [] });
      expect((await giftCards({ 'x-service-merchant-account-id': 'merchant-two' })).status).toBe(425);
      expect((await giftCards()).status).toBe(200);
    });

    it('activates for everything, the account own scenarios first', async () => {
      await activate(sb, ['server-error']);
      await activate(sb, ['bad-gateway'], 'merchant-two');
      expect((await giftCards()).status).toBe(500);
      expect((await giftCards({ 'x-service-merchant-account-id': 'merchant-two' })).status).toBe(502);
      const active = await sb.http.get('/_sandbox/scenarios/active');
      expect(active.body).toEqual({
        active: [
          { merchant_account_id: null, scenarios: ['server-error'] },
          { merchant_account_id: 'merchant-two', scenarios: ['bad-gateway'] },
        ],
        counters: [
          { merchant_account_id: 'default', scenario: 'server-error', step: 0, requests: 1 },
          { merchant_account_id: 'merchant-two', scenario: 'bad-gateway', step: 0, requests: 1 },
        ],
      });
    });

    it('re-activating restarts the sequence; DELETE clears scenarios and counters', async () => {
      await activate(sb, ['rate-limited'], 'default');
      expect((await giftCards()).status).toBe(429);
      expect((await giftCards()).status).toBe(429);
      expect((await giftCards()).status).toBe(200);
      await activate(sb, ['rate-limited'], 'default');
      expect((await giftCards()).status).toBe(429);
      expect((await sb.http.delete('/_sandbox/scenarios/active')).status).toBe(204);
      expect((await sb.http.get('/_sandbox/scenarios/active')).body).toEqual({ active: [], counters: [] });
      expect((await giftCards()).status).toBe(200);
      expect((await giftCards({ 'x-sandbox-scenario': 'rate-limited' })).status).toBe(429); // counter restarted
    });

    it('an empty list deactivates the scope', async () => {
      await activate(sb, ['server-error'], 'default');
      const body = await activate(sb, [], 'default');
      expect(body.active).toEqual([]);
      expect((await giftCards()).status).toBe(200);
    });

    it('refuses unknown scenarios and merchant accounts and bad bodies', async () => {
      const unknown = await sb.http.put('/_sandbox/scenarios/active').send({ scenarios: ['nope'], merchant_account_id: null });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toBe(`Unknown scenario 'nope'; known scenarios: ${KNOWN}.`);
      expect(unknown.body.details[0].pointer).toBe('/scenarios');
      const merchant = await sb.http.put('/_sandbox/scenarios/active').send({ scenarios: ['slow'], merchant_account_id: 'ghost' });
      expect(merchant.status).toBe(400);
      expect(merchant.body.message).toBe(
        "Merchant account 'ghost' does not exist in namespace 'default'; known: default, merchant-two. Use null for every merchant account.",
      );
      const shape = await sb.http.put('/_sandbox/scenarios/active').send({ scenario: 'slow' });
      expect(shape.status).toBe(400);
      expectErrorBody(shape.body, 400, 'bad_request');
      expect((await sb.http.get('/_sandbox/scenarios/active')).body.active).toEqual([]);
    });

    it('keeps activation and counters per namespace', async () => {
      await activate(sb, ['server-error'], null, 'ns-a');
      const inA = await sb.http.get('/gift-cards').set('authorization', sb.auth).set('x-sandbox-namespace', 'ns-a');
      expect(inA.status).toBe(500);
      expect((await giftCards()).status).toBe(200);
      expect((await sb.http.get('/_sandbox/scenarios/active')).body.active).toEqual([]);
      const reset = await sb.http.post('/_sandbox/reset').set('x-sandbox-namespace', 'ns-a').send({});
      expect(reset.status).toBeLessThan(300);
      const afterReset = await sb.http.get('/_sandbox/scenarios/active').set('x-sandbox-namespace', 'ns-a');
      expect(afterReset.body).toEqual({ active: [], counters: [] });
    });
  });
});
