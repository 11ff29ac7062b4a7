// Cross-cutting request handling of every operation: unknown paths (404), other methods (405 with
// Allow), bodies that are not JSON, too deep or too large, and several problems in one request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectJson, expectMethodNotAllowed, expectNotFound, MERCHANT_HEADER, store } from './support.js';

/** One concrete URL per path of openapi.json. */
const EXAMPLE_PATHS: Record<string, string> = {
  '/api-key-pairs': '/api-key-pairs',
  '/buyers/{buyer_id}': `/buyers/${WELL_KNOWN.buyers.default.id}`,
  '/buyers/payment-methods': '/buyers/payment-methods',
  '/gift-cards': '/gift-cards',
  '/payment-methods/{payment_method_id}/payment-service-tokens': `/payment-methods/${WELL_KNOWN.paymentMethods.card.id}/payment-service-tokens`,
  '/payment-methods/{payment_method_id}/network-tokens/{network_token_id}/cryptogram': `/payment-methods/${WELL_KNOWN.paymentMethods.card.id}/network-tokens/${WELL_KNOWN.networkTokens.active.id}/cryptogram`,
  '/digital-wallets/google/session': '/digital-wallets/google/session',
  '/digital-wallets/click-to-pay/session': '/digital-wallets/click-to-pay/session',
  '/transactions/{transaction_id}/session': `/transactions/${WELL_KNOWN.transactions.default.id}/session`,
  '/checkout/sessions/{checkout_session_id}': `/checkout/sessions/${WELL_KNOWN.checkoutSessions.default.id}`,
  '/anti-fraud-services/{anti_fraud_service_id}': `/anti-fraud-services/${WELL_KNOWN.antiFraudServices.default.id}`,
  '/apple-pay-certificates/{apple_pay_certificate_id}': `/apple-pay-certificates/${WELL_KNOWN.applePayCertificates.default.id}`,
  '/connections': '/connections',
  '/flows/{flow}': '/flows/checkout',
  '/vault-forward/configs/{config_id}/authentications': `/vault-forward/configs/${WELL_KNOWN.vaultForwardConfigs.default.id}/authentications`,
  '/card-scheme-definitions': '/card-scheme-definitions',
  '/reports': '/reports',
  '/report-executions/{report_execution_id}': `/report-executions/${WELL_KNOWN.reportExecutions.pending.id}`,
  '/webhook-subscriptions/{subscription_id}': `/webhook-subscriptions/${WELL_KNOWN.webhookSubscriptions.default.id}`,
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

describe('request validation across operations', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb?.server.close());
  const BUYER = `/buyers/${WELL_KNOWN.buyers.default.id}`;

  it('has an example for every path of openapi.json', () => {
    expect(Object.keys(EXAMPLE_PATHS).sort()).toEqual(Object.keys(sb.deps.api.spec.doc.paths ?? {}).sort());
  });

  it('answers 405 with Allow for every path asked with another method, before authentication', async () => {
    const sizes = JSON.stringify(Object.fromEntries(Object.entries(store(sb)).map(([k, c]) => [k, c.size])));
    for (const [template, url] of Object.entries(EXAMPLE_PATHS)) {
      const item = (sb.deps.api.spec.doc.paths as any)[template];
      const allowed = METHODS.filter((m) => item[m]);
      for (const method of METHODS.filter((m) => !item[m])) {
        const res = await sb.http[method](url).set('authorization', sb.auth);
        expectMethodNotAllowed(res, allowed.map((m) => m.toUpperCase()).join(', '), method, template);
        expectMethodNotAllowed(await sb.http[method](url), allowed.map((m) => m.toUpperCase()).join(', '), method, template);
      }
    }
    expect(JSON.stringify(Object.fromEntries(Object.entries(store(sb)).map(([k, c]) => [k, c.size])))).toBe(sizes);
  });

  it('answers 404 for unknown paths, with or without credentials', async () => {
    for (const path of ['/', '/nope', '/buyers', '/buyers/a/b/c', '/gift-cards/extra', '/v1/gift-cards', '/payment-methods', '/flows', '/CONNECTIONS']) {
      expectNotFound(await sb.http.get(path).set('authorization', sb.auth));
      expectNotFound(await sb.http.post(path).send({}));
    }
  });

  it('answers 401 without credentials on every operation but Click to Pay', async () => {
    for (const op of sb.deps.api.spec.operations) {
      const url = EXAMPLE_PATHS[op.path];
      const res = await sb.http[op.method.toLowerCase() as 'get'](url).send({});
      if (op.id === 'createClickToPaySession') {
        expect(res.status).toBe(400);
        continue;
      }
      expectJson(res, 401);
      expectErrorBody(res.body, 401, 'unauthorized');
    }
  });

  it('accepts JSON content types with parameters or a +json suffix, refuses the others', async () => {
    const put = (type: string, text: string) => sb.http.put(BUYER).set('authorization', sb.auth).set('content-type', type).send(text);
    expectJson(await put('application/json; charset=utf-8', '{}'), 200);
    expectJson(await put('application/merge-patch+json', '{}'), 200);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
      expectBadRequest(await put(type, '{}'), [{ location: 'header', pointer: '/content-type', type: 'content_type' }]);
    }
  });

  it('refuses malformed JSON, JSON that is not an object, and too deep nesting', async () => {
    const put = (text: string) => sb.http.put(BUYER).set('authorization', sb.auth).set('content-type', 'application/json').send(text);
    for (const text of ['{', '{"display_name": "x",}', "{'display_name': 'x'}", 'display_name=x', '{"a":1}{"b":2}']) {
      expectBadRequest(await put(text), [{ location: 'body', pointer: '', type: 'json_invalid' }]);
    }
    for (const text of ['"text"', '42', 'true', 'null', '[]']) {
      expectBadRequest(await put(text), [{ location: 'body', pointer: '', type: 'dict_type' }]);
    }
    const deep = `{"billing_details":${'['.repeat(100)}${']'.repeat(100)}}`;
    expectBadRequest(await put(deep), [{ location: 'body', pointer: '', type: 'json_too_deep' }]);
    expectBadRequest(await put(`{"billing_details":${'['.repeat(10)}${']'.repeat(10)}}`), [
      { location: 'body', pointer: '/billing_details', type: 'dict_type' },
    ]);
  });

  it('refuses a JSON body that is not UTF-8, naming the byte offset, and stores nothing (API and control API)', async () => {
    // Sent as they are (superagent would send a Buffer as JSON of its fields); its types say a serializer makes text.
    const raw = ((bytes: Buffer) => bytes) as unknown as (obj: unknown) => string;
    const stored = async () => (await sb.http.get(`/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}`).expect(200)).body;
    const before = await stored();
    const body = Buffer.concat([Buffer.from('{"display_name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('A"}')]);
    const res = await sb.http.put(BUYER).set('authorization', sb.auth).set('content-type', 'application/json').serialize(raw).send(body);
    expectBadRequest(res, [{ location: 'body', pointer: '', type: 'json_invalid' }]);
    expect(res.body.message).toBe(
      'The request body is not valid UTF-8: the byte at offset 17 (0xff) is not the start of a well-formed UTF-8 character. Send JSON text encoded as UTF-8.',
    );
    expect(res.body.details[0].message).toBe('Invalid UTF-8: the byte at offset 17 (0xff) is not the start of a well-formed UTF-8 character.');
    expect(await stored()).toEqual(before);
    // A character cut short (the first of ë's two bytes, then a quote), in the control API.
    const cut = Buffer.concat([Buffer.from('{"display_name":"Zo'), Buffer.from([0xc3]), Buffer.from('"}')]);
    const control = await sb.http
      .patch(`/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}`)
      .set('content-type', 'application/json')
      .serialize(raw)
      .send(cut);
    expectBadRequest(control, [{ location: 'body', pointer: '', type: 'json_invalid' }]);
    expect(control.body.details[0].message).toBe('Invalid UTF-8: the byte at offset 19 (0xc3) is not the start of a well-formed UTF-8 character.');
    expect(await stored()).toEqual(before);
    // Well-formed multi-byte characters pass, as ever.
    const ok = await sb.http
      .put(BUYER)
      .set('authorization', sb.auth)
      .set('content-type', 'application/json')
      .serialize(raw)
      .send(Buffer.from('{"display_name":"Zoë 漢字 🎁"}'));
    expectJson(ok, 200);
    expect(ok.body.display_name).toBe('Zoë 漢字 🎁');
  });

  it('refuses a body over the size limit with 413', async () => {
    const res = await sb.http
      .put(BUYER)
      .set('authorization', sb.auth)
      .send({ display_name: 'x'.repeat(sb.deps.config.bodyLimitBytes) });
    expectJson(res, 413);
    expectErrorBody(res.body, 413, 'payload_too_large');
  });

  it('collects problems of path, query, header and body in one 400', async () => {
    // An empty ?token= is no longer a problem of shape (a wrong token is a 403): path, header and body here, query below.
    const res = await sb.http.post('/transactions/abc/session?token=').set('authorization', sb.auth).set(MERCHANT_HEADER, '').send({ payload: 'x' });
    expectBadRequest(res, [
      { location: 'path', pointer: '/transaction_id', type: 'uuid_parsing' },
      { location: 'header', pointer: `/${MERCHANT_HEADER}`, type: 'string_too_short' },
      { location: 'body', pointer: '/payload', type: 'dict_type' },
    ]);
    expect(res.body.message).toMatch(/^Request is invalid \(3 problems\)/);
    expectBadRequest(await sb.http.get('/gift-cards?limit=0&buyer_id=x').set('authorization', sb.auth).set(MERCHANT_HEADER, ''), [
      { location: 'query', pointer: '/limit', type: 'greater_than_equal' },
      { location: 'query', pointer: '/buyer_id', type: 'uuid_parsing' },
      { location: 'header', pointer: `/${MERCHANT_HEADER}`, type: 'string_too_short' },
    ]);
    expectBadRequest(await sb.http.put('/buyers/nope').set('authorization', sb.auth), [
      { location: 'path', pointer: '/buyer_id', type: 'uuid_parsing' },
      { location: 'body', pointer: '', type: 'missing' },
    ]);
    const malformed = await sb.http
      .post('/payment-methods/x/network-tokens/y/cryptogram')
      .set('authorization', sb.auth)
      .set('content-type', 'application/json')
      .send('{"merchant_initiated": tru');
    expectBadRequest(malformed, [
      { location: 'path', pointer: '/payment_method_id', type: 'uuid_parsing' },
      { location: 'path', pointer: '/network_token_id', type: 'uuid_parsing' },
      { location: 'body', pointer: '', type: 'json_invalid' },
    ]);
  });

  it('lets a static path win over a template for every method: PUT /buyers/payment-methods is 405', async () => {
    expectMethodNotAllowed(
      await sb.http.put('/buyers/payment-methods').set('authorization', sb.auth).send({ display_name: 'x' }),
      'GET',
      'PUT',
      '/buyers/payment-methods',
    );
    expectJson(await sb.http.get('/buyers/payment-methods').set('authorization', sb.auth), 200);
  });

  it('ignores unknown query parameters, an empty Cookie and unknown body fields where allowed', async () => {
    expectJson(await sb.http.get('/connections?foo=bar&limit=abc').set('authorization', sb.auth).set('cookie', ''), 200);
    const res = await sb.http.put(BUYER).set('authorization', sb.auth).send({ display_name: 'Jane Doe', nickname: 'JD' });
    expectJson(res, 200);
    expect(res.body).not.toHaveProperty('nickname');
    expect(store(sb).buyers.get(WELL_KNOWN.buyers.default.id)).not.toHaveProperty('nickname');
  });

  it('never lets prototype keys of a body reach a record or Object.prototype', async () => {
    const res = await sb.http
      .put(BUYER)
      .set('authorization', sb.auth)
      .set('content-type', 'application/json')
      .send('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"display_name":"Jane Doe"}');
    expectJson(res, 200);
    expect(({} as any).polluted).toBeUndefined();
    expect(Object.keys(store(sb).buyers.get(WELL_KNOWN.buyers.default.id)!).sort()).toEqual([
      'account_number',
      'billing_details',
      'created_at',
      'display_name',
      'external_identifier',
      'id',
      'merchant_account_id',
      'reconciliation_id',
      'type',
      'updated_at',
    ]);
  });

  it('decodes path parameters, and refuses malformed escapes as bad ids', async () => {
    expectJson(await sb.http.get('/flows/card%2Dtransaction').set('authorization', sb.auth), 200);
    expectBadRequest(await sb.http.put('/buyers/%ZZ').set('authorization', sb.auth).send({}), [
      { location: 'path', pointer: '/buyer_id', type: 'uuid_parsing' },
    ]);
  });
});
