// Bad input to the webhook control routes gets the reference's 400 (declared in openapi.admin.json,
// so the self-check mode every test sandbox runs in lets it through instead of answering 500), with
// a message naming what to fix, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, useTestSandbox } from '../support/sandbox.js';

const bad = (location: string, pointer: string, type: string, message: string, summary = `Request is invalid: ${message}`) => ({
  type: 'error',
  code: 'bad_request',
  status: 400,
  message: summary,
  details: [{ location, pointer, type, message }],
});

describe('bad input to the webhook control routes', () => {
  let sb: TestSandbox;
  let subscription: { id: string; secret: string };
  beforeAll(async () => {
    sb = await startTestSandbox();
    subscription = (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: 'http://127.0.0.1:9/hooks', active: false }).expect(201)).body;
  });
  afterAll(() => sb.server.close());

  it.each([
    ['outcome=bogus', bad('query', '/outcome', 'enum', `Query parameter 'outcome' must be one of: "pending", "succeeded", "failed", "cancelled".`)],
    ['limit=0', bad('query', '/limit', 'greater_than_equal', "Query parameter 'limit' must be at least 1.")],
    ['limit=abc', bad('query', '/limit', 'int_type', "Query parameter 'limit' must be of type integer.")],
    ['limit=1001', bad('query', '/limit', 'less_than_equal', "Query parameter 'limit' must be at most 1000.")],
    ['offset=-1', bad('query', '/offset', 'greater_than_equal', "Query parameter 'offset' must be at least 0.")],
    [`event_name=${'e'.repeat(101)}`, bad('query', '/event_name', 'string_too_long', "Query parameter 'event_name' must have at most 100 characters.")],
  ])('GET /_sandbox/webhooks/deliveries?%s answers 400 naming the parameter', async (query, body) => {
    const res = await sb.http.get(`/_sandbox/webhooks/deliveries?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(body);
  });

  it('takes status= as the outcome filter (named like the record field), refusing a bad one or one that contradicts outcome', async () => {
    const ns = '/ns/status-alias';
    await sb.http.post(`${ns}/_sandbox/records/webhook_subscriptions`).send({ url: 'http://127.0.0.1:9/hooks' }).expect(201);
    const emitted = await sb.http.post(`${ns}/_sandbox/events`).send({ name: 'buyer.updated' }).expect(201);
    const id = emitted.body.deliveries[0].id;
    const list = async (query: string) => (await sb.http.get(`${ns}/_sandbox/webhooks/deliveries?${query}`).expect(200)).body;
    const pending = await list('status=pending');
    expect(pending.total).toBe(1);
    expect(pending.items.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([[id, 'pending']]);
    expect((await list('status=succeeded')).total).toBe(0);
    expect((await list('outcome=succeeded')).total).toBe(0);
    expect((await list('outcome=pending&status=pending')).total).toBe(1);
    const both = await sb.http.get(`${ns}/_sandbox/webhooks/deliveries?outcome=pending&status=failed`);
    expect(both.status).toBe(400);
    expect(both.body).toEqual(
      bad(
        'query',
        '/status',
        'conflicting_filter',
        'Give outcome or status, not two different statuses.',
        'Query parameters outcome (pending) and status (failed) are the same filter: give one of them.',
      ),
    );
    const wrong = await sb.http.get(`${ns}/_sandbox/webhooks/deliveries?status=ok`);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual(bad('query', '/status', 'enum', `Query parameter 'status' must be one of: "pending", "succeeded", "failed", "cancelled".`));
  });

  it.each([
    ['{"keep_previous_seconds":-1}', bad('body', '/keep_previous_seconds', 'greater_than_equal', "Body field 'keep_previous_seconds' must be at least 0.")],
    ['{"keep_previous_seconds":1.5}', bad('body', '/keep_previous_seconds', 'int_type', "Body field 'keep_previous_seconds' must be of type integer.")],
    ['{"secret":"short"}', bad('body', '/secret', 'string_too_short', "Body field 'secret' must have at least 16 characters.")],
    ['{"colour":"red"}', bad('body', '/colour', 'extra_forbidden', "Body field 'colour' is not allowed; remove it.")],
    ['[1]', bad('body', '', 'dict_type', 'The body must be of type object.')],
    [
      'not json',
      bad(
        'body',
        '',
        'json_invalid',
        `Invalid JSON: Unexpected token 'o', "not json" is not valid JSON.`,
        `The request body is not valid JSON: Unexpected token 'o', "not json" is not valid JSON.`,
      ),
    ],
  ])('POST .../rotate-secret with %s answers 400 and keeps the secret', async (text, body) => {
    const res = await sb.http.post(`/_sandbox/webhooks/subscriptions/${subscription.id}/rotate-secret`).set('content-type', 'application/json').send(text);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(body);
    const stored = (await sb.http.get(`/_sandbox/records/webhook_subscriptions/${subscription.id}`).expect(200)).body;
    expect(stored.secret).toBe(subscription.secret);
    expect(stored.previous_secret).toBeUndefined();
  });

  it('answers 400 for path ids no record can have (delivery, scenario)', async () => {
    const delivery = await sb.http.get(`/_sandbox/webhooks/deliveries/${'d'.repeat(201)}`);
    expect(delivery.status).toBe(400);
    expect(delivery.body).toEqual(bad('path', '/delivery_id', 'string_too_long', "Path parameter 'delivery_id' must have at most 200 characters."));
    const scenario = await sb.http.get(`/_sandbox/scenarios/${'s'.repeat(65)}`);
    expect(scenario.status).toBe(400);
    expect(scenario.body).toEqual(bad('path', '/name', 'string_too_long', "Path parameter 'name' must have at most 64 characters."));
    // Within the limits, an unknown one is still a 404.
    expect((await sb.http.get(`/_sandbox/webhooks/deliveries/${'d'.repeat(200)}`)).status).toBe(404);
    expect((await sb.http.get(`/_sandbox/scenarios/${'s'.repeat(64)}`)).status).toBe(404);
  });
});

describe('subscription URLs the sandbox could not send to', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  const urlError = (problem: string) => bad('body', '/url', 'url_parsing', `Body field 'url': ${problem}.`);

  it.each([
    ['http://', "'http://' is not a URL: it names no host after the scheme"],
    ['https://:443/hooks', "'https://:443/hooks' is not a URL: it names no host after the scheme"],
    ['http://[::1]:99999/', "'http://[::1]:99999/' is not a URL: the port 99999 is out of range (at most 65535)"],
    ['http://127.0.0.1:hooks/', "'http://127.0.0.1:hooks/' is not a URL: the port 'hooks' is not a number"],
    ['http://256.1.1.1/hooks', "'http://256.1.1.1/hooks' is not a URL: the host '256.1.1.1' is not a valid name or IP address"],
    ['http://127.0.0.1:0/h', "'http://127.0.0.1:0/h' has port 0, where nothing can listen: give the port the receiver listens on (1 to 65535)"],
    [
      'http://u:p@127.0.0.1:8080/ui',
      "'http://***@127.0.0.1:8080/ui' holds credentials (user:password@): deliveries send none (no Authorization header), so a receiver would never see them; leave them out and check x-service-signature in the receiver",
    ],
    ['http://bücher.de/h', "'http://bücher.de/h' has a host that is not ASCII: write it in its xn-- (IDNA) form, http://xn--bcher-kva.de/h"],
  ])('refuses to create one to %s (400 at /url saying what is wrong), creating nothing', async (url, problem) => {
    const before = (await sb.http.get('/_sandbox/records/webhook_subscriptions').expect(200)).body.total;
    const res = await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url, merchant_account_id: 'default' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(urlError(problem));
    expect((await sb.http.get('/_sandbox/records/webhook_subscriptions').expect(200)).body.total).toBe(before);
  });

  it('refuses to change one to such a URL, keeping the record; a good URL (IPv6 and port included) is taken', async () => {
    const made = await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: 'http://[::1]:8080/hooks' });
    expect(made.status).toBe(201);
    expect(made.body.url).toBe('http://[::1]:8080/hooks');
    const res = await sb.http.patch(`/_sandbox/records/webhook_subscriptions/${made.body.id}`).send({ url: 'http://' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(urlError("'http://' is not a URL: it names no host after the scheme"));
    expect((await sb.http.get(`/_sandbox/records/webhook_subscriptions/${made.body.id}`).expect(200)).body).toEqual(made.body);
    const portZero = await sb.http.patch(`/_sandbox/records/webhook_subscriptions/${made.body.id}`).send({ url: 'http://[::1]:0/hooks' });
    expect(portZero.status).toBe(400);
    expect(portZero.body).toEqual(urlError("'http://[::1]:0/hooks' has port 0, where nothing can listen: give the port the receiver listens on (1 to 65535)"));
    expect((await sb.http.get(`/_sandbox/records/webhook_subscriptions/${made.body.id}`).expect(200)).body).toEqual(made.body);
    const moved = await sb.http.patch(`/_sandbox/records/webhook_subscriptions/${made.body.id}`).send({ url: 'https://hooks.internal:8443/in' });
    expect(moved.status).toBe(200);
    expect(moved.body.url).toBe('https://hooks.internal:8443/in');
  });

  it('refuses a snapshot holding one, pointing at the record', async () => {
    const snapshot = (await sb.http.get('/ns/bad-url/_sandbox/snapshot').expect(200)).body;
    const [first] = snapshot.collections.webhook_subscriptions;
    snapshot.collections.webhook_subscriptions[0] = { ...first, url: 'http://' };
    const res = await sb.http.put('/ns/bad-url/_sandbox/snapshot').send(snapshot);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      {
        location: 'body',
        pointer: '/collections/webhook_subscriptions/0/url',
        type: 'url_parsing',
        message: "Body field 'url': 'http://' is not a URL: it names no host after the scheme (at /collections/webhook_subscriptions/0/url).",
      },
    ]);
    snapshot.collections.webhook_subscriptions[0] = { ...first, url: 'https://a:b@hooks.example/in' };
    const withCredentials = await sb.http.put('/ns/bad-url/_sandbox/snapshot').send(snapshot);
    expect(withCredentials.status).toBe(400);
    expect(withCredentials.body.details).toEqual([
      {
        location: 'body',
        pointer: '/collections/webhook_subscriptions/0/url',
        type: 'url_parsing',
        message:
          "Body field 'url': 'https://***@hooks.example/in' holds credentials (user:password@): deliveries send none (no Authorization header), so a receiver would never see them; leave them out and check x-service-signature in the receiver (at /collections/webhook_subscriptions/0/url).",
      },
    ]);
  });
});
