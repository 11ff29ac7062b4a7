// Built-in error scenarios through HTTP, selected with the x-sandbox-scenario header.
import { describe, expect, it } from 'vitest';
import { expectErrorBody, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { REPORT_BODY } from './helpers.js';

const NEW_PAIR = { display_name: 'Scenario key', role_ids: [WELL_KNOWN.roles.admin.id] };

describe('built-in error scenarios', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));
  const db = () => sb.deps.namespaces.get('default').store.collections;

  it('duplicate-record answers 409 with the id of a real key pair and creates nothing', async () => {
    const before = db().api_key_pairs.size;
    const res = await sb.http.post('/api-key-pairs').set('authorization', sb.auth).set('x-sandbox-scenario', 'duplicate-record').send(NEW_PAIR);
    expect(res.status).toBe(409);
    expectErrorBody(res.body, 409, 'duplicate_record');
    expect(res.body).toEqual({
      type: 'error',
      code: 'duplicate_record',
      status: 409,
      details: [],
      message: 'A duplicate record exists (answered by scenario duplicate-record).',
      resource_id: WELL_KNOWN.keyPairs.admin.id,
    });
    expect(db().api_key_pairs.get(res.body.resource_id)).toBeDefined();
    expect(res.headers['x-sandbox-scenario']).toBe('duplicate-record');
    expect(db().api_key_pairs.size).toBe(before);
  });

  it('duplicate-record on POST /reports names a report of the request merchant account', async () => {
    const res = await sb.http
      .post('/reports')
      .set('authorization', sb.auth)
      .set('x-service-merchant-account-id', 'merchant-two')
      .set('x-sandbox-scenario', 'duplicate-record')
      .send(REPORT_BODY);
    expect(res.status).toBe(409);
    expectErrorBody(res.body, 409, 'duplicate_record');
    const report = db().reports.get(res.body.resource_id);
    expect(report?.merchant_account_id).toBe('merchant-two');
  });

  it('duplicate-record named on an operation that does not declare 409 is a 400 naming the operations it applies to', async () => {
    const applies = (await sb.http.get('/_sandbox/scenarios/duplicate-record')).body.operations as string[];
    expect(applies).not.toContain('listConnections');
    expect(applies).toContain('createApiKeyPair');
    const res = await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-scenario', 'duplicate-record');
    expect(res.status).toBe(400);
    expect(res.headers['x-sandbox-scenario']).toBeUndefined();
    expect(res.body).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: `Scenario 'duplicate-record' does not apply to operation listConnections (GET /connections): 'duplicate-record' applies to ${applies.join(', ')}.`,
      details: [
        {
          location: 'header',
          pointer: '/x-sandbox-scenario',
          type: 'scenario_not_applicable',
          message: 'Name a scenario that applies to listConnections, or send this request without x-sandbox-scenario.',
        },
      ],
    });
    const journal = await sb.http.get('/_sandbox/requests?limit=1');
    expect(journal.body.items[0]).toMatchObject({ path: '/connections', status: 400, scenario: null });
  });

  const fixed: Array<[string, number, string, string]> = [
    ['too-early', 425, 'too_early', 'The request came too early; retry it later (answered by scenario too-early).'],
    ['server-error', 500, 'server_error', 'The server failed (answered by scenario server-error).'],
    ['bad-gateway', 502, 'bad_gateway', 'Bad gateway: an upstream service failed (answered by scenario bad-gateway).'],
    ['gateway-timeout', 504, 'gateway_timeout', 'Gateway timeout: an upstream service did not answer in time (answered by scenario gateway-timeout).'],
  ];
  for (const [name, status, code, message] of fixed) {
    it(`${name} answers ${status} ${code} on every request`, async () => {
      for (let i = 0; i < 3; i++) {
        const res = await sb.http.get('/gift-cards').set('authorization', sb.auth).set('x-sandbox-scenario', name);
        expect(res.status).toBe(status);
        expect(res.headers['content-type']).toBe('application/json');
        expect(res.headers['retry-after']).toBeUndefined();
        expect(res.body).toEqual({ type: 'error', code, status, message, details: [] });
      }
    });
  }

  it('an error scenario answers before validation and leaves the store alone', async () => {
    const buyer = db().buyers.get(WELL_KNOWN.buyers.default.id)!;
    const name = buyer.display_name;
    const res = await sb.http
      .put(`/buyers/${WELL_KNOWN.buyers.default.id}`)
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'server-error')
      .send({ display_name: 'Changed by a failed request' });
    expect(res.status).toBe(500);
    expect(db().buyers.get(WELL_KNOWN.buyers.default.id)!.display_name).toBe(name);
    const invalid = await sb.http
      .put(`/buyers/${WELL_KNOWN.buyers.default.id}`)
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'too-early')
      .send({ display_name: 42 });
    expect(invalid.status).toBe(425);
  });

  it('authentication still comes first: no token is 401 whatever the scenario', async () => {
    const res = await sb.http.get('/gift-cards').set('x-sandbox-scenario', 'server-error');
    expect(res.status).toBe(401);
    expectErrorBody(res.body, 401, 'unauthorized');
  });

  it('rate-limited answers 429 with Retry-After twice, then recovers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await sb.http
        .get('/buyers/payment-methods')
        .set('authorization', sb.auth)
        .set('x-service-merchant-account-id', 'merchant-two')
        .set('x-sandbox-scenario', 'rate-limited');
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers['retry-after']).toBe('1');
        expect(res.body).toEqual({
          type: 'error',
          code: 'too_many_requests',
          status: 429,
          details: [],
          message: 'Too many requests; retry after the Retry-After delay (answered by scenario rate-limited).',
        });
      } else {
        expect(res.headers['retry-after']).toBeUndefined();
        expect(Array.isArray(res.body.items)).toBe(true);
      }
    }
    expect(statuses).toEqual([429, 429, 200, 200]);
  });

  it('empty-lists merges items [] into list answers, keeps the limit, and leaves one page: both cursors null', async () => {
    // A middle page: normally it has a page before and a page after it.
    const first = await sb.http.get('/gift-cards?limit=2').set('authorization', sb.auth);
    const middle = `/gift-cards?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`;
    const normal = await sb.http.get(middle).set('authorization', sb.auth);
    expect(normal.body.items).toHaveLength(2);
    expect(typeof normal.body.next_cursor).toBe('string');
    expect(typeof normal.body.previous_cursor).toBe('string');
    for (const path of ['/gift-cards?limit=2', middle]) {
      const res = await sb.http.get(path).set('authorization', sb.auth).set('x-sandbox-scenario', 'empty-lists');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.headers['x-sandbox-scenario']).toBe('empty-lists');
      expect(res.body).toEqual({ items: [], limit: 2, next_cursor: null, previous_cursor: null });
    }
    // A list without cursors gets none added.
    const connections = await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-scenario', 'empty-lists');
    expect(connections.status).toBe(200);
    expect(connections.body).toEqual({ items: [] });
    // The journal keeps the answer the client got.
    const journal = await sb.http.get('/_sandbox/requests?operation_id=listGiftCards&limit=1');
    expect(journal.body.items[0]).toMatchObject({ scenario: 'empty-lists', response_body: { items: [], limit: 2, next_cursor: null, previous_cursor: null } });
  });
});
