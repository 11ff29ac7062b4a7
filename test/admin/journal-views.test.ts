// The journal as the console reads it: response headers, the merchant account, the filters by
// scenario and merchant account, summaries without headers and bodies, and the HAR 1.2 export
// (checked against the HAR 1.2 JSON schemas of har-schema, and field by field).
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { expectErrorBody, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const require = createRequire(import.meta.url);

// ajv-formats is CommonJS: under NodeNext its default import is the module, the function its `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

/** The HAR 1.2 validator: har-schema's JSON schemas (draft-06; `min` is theirs, not JSON Schema's). */
function harValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  const schemas = require('har-schema') as Record<string, object>;
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv.getSchema('har.json#')!;
}

describe('journal views and export', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  const buyer = WELL_KNOWN.buyers.default.id;
  const journal = (ns: string, query = '') => sb.http.get(`/ns/${ns}/_sandbox/requests${query}`);

  /** Three calls in namespace `ns`: a PUT, a 429 from the rate-limited scenario for merchant-two, and an unknown path. */
  async function threeCalls(ns: string) {
    await sb.http.put(`/ns/${ns}/buyers/${buyer}`).set('authorization', sb.auth).set('x-request-id', `${ns}-put`).send({ display_name: 'Har' }).expect(200);
    const limited = await sb.http
      .get(`/ns/${ns}/gift-cards?limit=2`)
      .set('authorization', sb.auth)
      .set('x-service-merchant-account-id', 'merchant-two')
      .set('x-sandbox-scenario', 'rate-limited');
    expect(limited.status).toBe(429);
    await sb.http.get(`/ns/${ns}/no-such-path`).set('authorization', sb.auth).expect(404);
  }

  it('keeps the headers of each answer and the merchant account of each request', async () => {
    await threeCalls('v1');
    const { items } = (await journal('v1')).body;
    expect(items.map((e: any) => [e.path, e.status, e.merchant_account_id, e.scenario])).toEqual([
      ['/no-such-path', 404, null, null],
      ['/gift-cards', 429, 'merchant-two', 'rate-limited'],
      [`/buyers/${buyer}`, 200, 'default', null],
    ]);
    expect(items[1].response_headers).toEqual({
      'content-type': 'application/json',
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'x-sandbox-scenario': 'rate-limited',
      'retry-after': '1',
    });
    expect(items[2].response_headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'v1-put' });
    expect(items[0].response_headers).toEqual({ 'content-type': 'application/json', 'x-request-id': expect.any(String) });
  });

  it('filters by scenario and merchant account, in the list and the count', async () => {
    await threeCalls('v2');
    const byScenario = await journal('v2', '?scenario=rate-limited');
    expect(byScenario.body.items.map((e: any) => e.path)).toEqual(['/gift-cards']);
    expect(byScenario.body.total).toBe(1);
    const byAccount = await journal('v2', '?merchant_account_id=default');
    expect(byAccount.body.items.map((e: any) => e.path)).toEqual([`/buyers/${buyer}`]);
    expect((await sb.http.get('/ns/v2/_sandbox/requests/count?merchant_account_id=merchant-two')).body).toEqual({ count: 1 });
    expect((await sb.http.get('/ns/v2/_sandbox/requests/count?scenario=slow')).body).toEqual({ count: 0 });
    const both = await journal('v2', '?scenario=rate-limited&merchant_account_id=default');
    expect(both.body).toEqual({ items: [], total: 0, limit: 100, offset: 0 });
    const tooLong = await journal('v2', `?scenario=${'s'.repeat(101)}`);
    expect(tooLong.status).toBe(400);
    expectErrorBody(tooLong.body, 400, 'bad_request');
    expect(tooLong.body.details[0]).toMatchObject({ location: 'query', pointer: '/scenario' });
  });

  it('lists summaries without headers and bodies with view=summary', async () => {
    await threeCalls('v3');
    const full = (await journal('v3')).body.items;
    const summary = await journal('v3', '?view=summary&status=4xx');
    expect(summary.status).toBe(200);
    expect(summary.body.total).toBe(2);
    for (const [i, item] of summary.body.items.entries()) {
      const { headers, body, response_headers, response_body, ...rest } = full[i];
      expect([headers, body, response_headers, response_body].every((part) => part !== undefined)).toBe(true);
      expect(item).toEqual(rest);
    }
    expect(Object.keys(summary.body.items[0]).sort()).toEqual(
      [
        'duration_ms',
        'id',
        'merchant_account_id',
        'method',
        'namespace',
        'operation_id',
        'path',
        'query',
        'request_id',
        'scenario',
        'status',
        'timestamp',
        'url',
      ].sort(),
    );
    const bad = await journal('v3', '?view=short');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ location: 'query', pointer: '/view' });
  });

  it('exports the filtered requests as HAR 1.2, oldest first, with a download name', async () => {
    await threeCalls('v4');
    await sb.http
      .post('/ns/v4/api-key-pairs')
      .set('authorization', sb.auth)
      .send({ display_name: 'Exported', role_ids: [WELL_KNOWN.roles.readOnly.id] })
      .expect(201);
    const res = await journal('v4', '?format=har');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="sandbox-requests-v4-\d{4}-\d\d-\d\dT\d{6}Z\.har"$/);
    const har = res.body;
    const validate = harValidator();
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
    // The validator does refuse what HAR 1.2 forbids.
    const { timings: _timings, ...withoutTimings } = har.log.entries[0];
    expect(validate({ log: { ...har.log, entries: [withoutTimings] } })).toBe(false);
    expect(validate({ log: { ...har.log, creator: { name: 'x' } } })).toBe(false);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator).toEqual({ name: 'payments-sandbox', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(har.log.entries.map((e: any) => [e.request.method, new URL(e.request.url).pathname, e.response.status])).toEqual([
      ['PUT', `/ns/v4/buyers/${buyer}`, 200],
      ['GET', '/ns/v4/gift-cards', 429],
      ['GET', '/ns/v4/no-such-path', 404],
      ['POST', '/ns/v4/api-key-pairs', 201],
    ]);
    const [put, limited, , created] = har.log.entries;
    expect(put.startedDateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(put.time).toBeGreaterThanOrEqual(0);
    expect(put.timings).toEqual({ send: 0, wait: put.time, receive: 0 });
    expect(put.cache).toEqual({});
    expect(put.request.httpVersion).toBe('HTTP/1.1');
    expect(put.request.headers).toContainEqual({ name: 'authorization', value: '[redacted]' });
    expect(put.request.postData).toEqual({ mimeType: 'application/json', text: '{"display_name":"Har"}' });
    expect(put.request.bodySize).toBe(22);
    expect(put.response.statusText).toBe('OK');
    expect(put.response.headers).toEqual([
      { name: 'content-type', value: 'application/json' },
      { name: 'x-request-id', value: 'v4-put' },
    ]);
    expect(put.response.content.mimeType).toBe('application/json');
    expect(JSON.parse(put.response.content.text)).toMatchObject({ id: buyer, display_name: 'Har' });
    expect(put.response.content.size).toBe(Buffer.byteLength(put.response.content.text));
    expect(put).toMatchObject({ _namespace: 'v4', _operationId: 'updateBuyer', _merchantAccountId: 'default', _scenario: null, _requestId: 'v4-put' });
    expect(limited.request.queryString).toEqual([{ name: 'limit', value: '2' }]);
    expect(limited.request.postData).toBeUndefined();
    expect(limited.request.bodySize).toBe(0);
    expect(limited.response.statusText).toBe('Too Many Requests');
    expect(limited.response.headers).toContainEqual({ name: 'retry-after', value: '1' });
    expect(limited._scenario).toBe('rate-limited');
    // Secrets stay redacted, as in the journal.
    expect(JSON.parse(created.response.content.text).private_key).toBe('[redacted]');
    expect(res.text).not.toContain('PRIVATE KEY');
    expect(res.text).not.toContain(sb.auth.slice(7));
  });

  it('exports with the same filters, limit and offset as the list, and an empty archive when nothing matches', async () => {
    await threeCalls('v5');
    const filtered = (await journal('v5', '?format=har&status=4xx&limit=1')).body;
    expect(filtered.log.entries.map((e: any) => e.response.status)).toEqual([404]);
    const empty = await journal('v5', '?format=har&operation_id=getBuyer');
    expect(harValidator()(empty.body)).toBe(true);
    expect(empty.body.log.entries).toEqual([]);
    const all = await sb.http.get('/_sandbox/requests?format=har&namespace=*&limit=10000');
    expect(all.headers['content-disposition']).toMatch(/filename="sandbox-requests-all-/);
    expect(all.body.log.entries.some((e: any) => e._namespace === 'v5')).toBe(true);
    const bad = await journal('v5', '?format=xml');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ location: 'query', pointer: '/format' });
    const scoped = await journal('v5', '?format=har&namespace=*');
    expect(scoped.status).toBe(403);
  });
});
