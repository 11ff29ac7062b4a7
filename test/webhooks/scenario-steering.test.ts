// Scenarios steering deliveries (their `webhooks` field), so that a handler's idempotency and
// ordering can be tested on the requests a scenario matches only: duplicates of one event id, a
// delay on the namespace clock, newest first; other requests, other merchant accounts and other
// namespaces are untouched. Definitions at run time, scenario files (YAML) and the header all work.
import { rmSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { activate, define, scenarioDir } from '../scenarios/helpers.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { Receiver, resetFrozen, settle, useSandboxWithReceiver } from './receiver.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const T0 = '2030-01-15T10:00:00.000Z';
const ANNOUNCING = [
  'createApiKeyPair',
  'createReport',
  'deleteAntiFraudService',
  'deleteApplePayCertificate',
  'deleteCheckoutSession',
  'deleteWebhookSubscription',
  'updateBuyer',
];

describe('scenarios steering deliveries', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  useSandboxWithReceiver((started) => ({ sb, receiver } = started));
  beforeEach(async () => {
    await resetFrozen(sb, T0, receiver);
    const subscription = (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: receiver.url }).expect(201)).body;
    receiver.trust(subscription.secret);
  });

  const putBuyer = (displayName: string, scenario?: string, ns = '') => {
    const req = sb.http.put(`${ns}/buyers/${BUYER}`).set('authorization', sb.auth);
    if (scenario) req.set('x-sandbox-scenario', scenario);
    return req.send({ display_name: displayName }).expect(200);
  };
  const deliveries = async (ns = '') => (await sb.http.get(`${ns}/_sandbox/webhooks/deliveries`).expect(200)).body.items;
  const advance = (ms: number, ns = '') => sb.http.post(`${ns}/_sandbox/clock/advance`).send({ ms }).expect(200);
  const names = () => receiver.of('buyer.updated').map((n) => n.event.target.display_name);

  it('duplicates the notification of a buyer PUT it matches: two deliveries, one event id; a PUT it does not match gets one', async () => {
    const defined = await define(sb, {
      name: 'buyer-hooks-twice',
      description: 'Every buyer update notified twice.',
      operations: ['updateBuyer'],
      webhooks: { duplicate: true },
    });
    expect(defined).toMatchObject({ operations: ['updateBuyer'], steps: [{ pass: true, times: 1 }], webhooks: { copies: 2 } });
    const res = await putBuyer('Twice', 'buyer-hooks-twice');
    expect(res.headers['x-sandbox-scenario']).toBe('buyer-hooks-twice');
    const both = await receiver.waitFor(2, 'buyer.updated');
    expect(both[0].event.id).toBe(both[1].event.id);
    expect(both[0].body).toBe(both[1].body);
    expect(both[0].event.target.display_name).toBe('Twice');
    const steered = await deliveries();
    expect(steered).toHaveLength(2);
    expect(steered[0].id).not.toBe(steered[1].id);
    for (const d of steered) expect(d).toMatchObject({ event_id: both[0].event.id, scenario: 'buyer-hooks-twice' });
    expect(steered[0]).not.toHaveProperty('reorder');

    // Another request, without the scenario: one delivery, not marked.
    await putBuyer('Once');
    await receiver.waitFor(3, 'buyer.updated');
    await settle(150);
    expect(names()).toEqual(['Twice', 'Twice', 'Once']);
    const [plain] = await deliveries();
    expect(plain.event.target.display_name).toBe('Once');
    expect(plain).not.toHaveProperty('scenario');
    // The scenario counts the calls it steered.
    const shown = (await sb.http.get('/_sandbox/scenarios/buyer-hooks-twice').expect(200)).body;
    expect(shown.counters).toMatchObject({ matched: 1, answered: 1 });
  });

  it('delays the deliveries of the requests it matches until the namespace clock gets there; without operations it takes those that announce events', async () => {
    const defined = await define(sb, {
      name: 'hooks-a-minute-late',
      description: 'Notifications a minute late.',
      webhooks: { delay_ms: 60_000, duplicate: 3 },
    });
    expect(defined.operations).toEqual(ANNOUNCING);
    expect(defined.webhooks).toEqual({ delay_ms: 60_000, copies: 3 });
    await activate(sb, ['hooks-a-minute-late'], 'default');
    await putBuyer('Late');
    // A read is not one of its operations: not steered, not counted.
    const read = await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).expect(200);
    expect(read.headers['x-sandbox-scenario']).toBeUndefined();
    const pending = await deliveries();
    expect(pending.map((d: { status: string; next_attempt_at: string; scenario: string }) => [d.status, d.next_attempt_at, d.scenario])).toEqual(
      Array(3).fill(['pending', '2030-01-15T10:01:00.000Z', 'hooks-a-minute-late']),
    );
    await advance(59_999);
    await settle(150);
    expect(receiver.received).toEqual([]);
    await advance(1);
    const arrived = await receiver.waitFor(3, 'buyer.updated');
    expect(new Set(arrived.map((n) => n.event.id)).size).toBe(1);
    expect(arrived[0].event.created_at).toBe(T0); // the event happened at the PUT; only its delivery waited

    // Active for merchant-two only: a PUT of the default account is not steered.
    await activate(sb, [], 'default');
    await activate(sb, ['hooks-a-minute-late'], 'merchant-two');
    await putBuyer('On Time');
    await receiver.waitFor(4, 'buyer.updated');
    expect(names()[3]).toBe('On Time');
  });

  it('reorders: its deliveries that fall due together go out newest first, one at a time; the others are not held', async () => {
    await define(sb, {
      name: 'hooks-backwards',
      description: 'Buyer notifications newest first.',
      operations: ['PUT /buyers/{buyer_id}'],
      webhooks: { delay_ms: 1000, reorder: true },
    });
    await putBuyer('First', 'hooks-backwards');
    await putBuyer('Second', 'hooks-backwards');
    await putBuyer('Third', 'hooks-backwards');
    await putBuyer('Unsteered');
    await receiver.waitFor(1, 'buyer.updated');
    await settle(150);
    expect(names()).toEqual(['Unsteered']);
    const held = (await deliveries()).filter((d: { scenario?: string }) => d.scenario === 'hooks-backwards');
    expect(held.map((d: { reorder: boolean; status: string }) => [d.reorder, d.status])).toEqual(Array(3).fill([true, 'pending']));
    await advance(1000);
    await receiver.waitFor(4, 'buyer.updated');
    expect(names()).toEqual(['Unsteered', 'Third', 'Second', 'First']);
  });

  it('keeps to its namespace, and its pending deliveries travel with the namespace state', async () => {
    for (const ns of ['/ns/steer-sa', '/ns/steer-sb']) {
      await sb.http.put(`${ns}/_sandbox/clock`).send({ now: T0, frozen: true }).expect(200);
      receiver.trust((await sb.http.post(`${ns}/_sandbox/records/webhook_subscriptions`).send({ url: receiver.url }).expect(201)).body.secret);
    }
    await define(sb, { name: 'ns-hooks', description: 'Late and reordered, in one namespace.', webhooks: { delay_ms: 5000, reorder: true } }, 'steer-sa');
    await activate(sb, ['ns-hooks'], null, 'steer-sa');
    // The other namespace knows no such scenario, and its deliveries go at once.
    const unknown = await sb.http
      .put(`/ns/steer-sb/buyers/${BUYER}`)
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'ns-hooks')
      .send({ display_name: 'X' });
    expect(unknown.status).toBe(400);
    expectErrorBody(unknown.body, 400, 'bad_request');
    await putBuyer('In B', undefined, '/ns/steer-sb');
    await receiver.waitFor(1, 'buyer.updated');
    await putBuyer('In A', undefined, '/ns/steer-sa');
    await settle(150);
    expect(names()).toEqual(['In B']);
    expect((await deliveries('/ns/steer-sb'))[0]).not.toHaveProperty('scenario');

    // Namespace A's state, taken by a third namespace, holds the steered delivery, which goes out there in time.
    const state = (await sb.http.get('/ns/steer-sa/_sandbox/state').expect(200)).body;
    expect(state.records.collections.webhook_deliveries).toEqual([
      expect.objectContaining({ status: 'pending', scenario: 'ns-hooks', reorder: true, next_attempt_at: '2030-01-15T10:00:05.000Z' }),
    ]);
    await sb.http.put('/ns/steer-sc/_sandbox/state').send(state).expect(200);
    await advance(5000, '/ns/steer-sc');
    await receiver.waitFor(2, 'buyer.updated');
    expect(names()).toEqual(['In B', 'In A']);
  });

  it('refuses a webhooks field it cannot follow, pointing at it', async () => {
    for (const [webhooks, pointer, type, message] of [
      [{}, '/webhooks', 'minProperties', "Body field 'webhooks' must NOT have fewer than 1 properties."],
      [{ duplicate: 11 }, '/webhooks/duplicate', 'less_than_equal', "Body field 'webhooks/duplicate' must be at most 10."],
      [{ duplicate: 0 }, '/webhooks/duplicate', 'greater_than_equal', "Body field 'webhooks/duplicate' must be at least 1."],
      [{ delay_ms: -1 }, '/webhooks/delay_ms', 'greater_than_equal', "Body field 'webhooks/delay_ms' must be at least 0."],
      [{ delay_ms: 86_400_001 }, '/webhooks/delay_ms', 'less_than_equal', "Body field 'webhooks/delay_ms' must be at most 86400000."],
      [{ shuffle: true }, '/webhooks/shuffle', 'extra_forbidden', "Body field 'webhooks/shuffle' is not allowed; remove it."],
    ] as const) {
      const res = await sb.http.post('/_sandbox/scenarios').send({ name: 'bad-hooks', description: 'Refused.', webhooks });
      expect(res.status, JSON.stringify(webhooks)).toBe(400);
      expect(res.body).toEqual({
        type: 'error',
        code: 'bad_request',
        status: 400,
        message: `Request is invalid: ${message}`,
        details: [{ location: 'body', pointer, type, message }],
      });
    }
    expect((await sb.http.get('/_sandbox/scenarios/bad-hooks')).status).toBe(404);
  });
});

describe('steering that could never act', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started), { resetBeforeEach: true });
  const announcers = `events are announced by ${ANNOUNCING.join(', ')}`;
  const refused = async (definition: Record<string, unknown>, pointer: string, message: string) => {
    const res = await sb.http.post('/_sandbox/scenarios').send({ name: 'never-steers', description: 'Refused.', ...definition });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.details).toEqual([{ location: 'body', pointer, type: 'scenario_invalid', message }]);
    expect((await sb.http.get('/_sandbox/scenarios/never-steers')).status).toBe(404);
  };

  it('refuses webhooks beside steps that only fail: a failed request announces no event', async () => {
    const message =
      'every step answers an error or drops the connection: a failed request announces no event, so there is no delivery to steer; let a step pass, or leave webhooks out';
    await refused({ operations: ['updateBuyer'], respond: { status: 500 }, webhooks: { delay_ms: 10 } }, '/webhooks', message);
    await refused({ operations: ['updateBuyer'], steps: [{ respond: { status: 503 } }, { drop: true }], webhooks: { duplicate: 2 } }, '/webhooks', message);
    // One step that lets the request run is enough: its deliveries are steered.
    const mixed = await define(sb, {
      name: 'fail-then-steer',
      description: 'x',
      operations: ['updateBuyer'],
      steps: [{ respond: { status: 500 } }, { pass: true }],
      webhooks: { duplicate: 2 },
    });
    expect(mixed.operations).toEqual(['updateBuyer']);
  });

  it('refuses webhooks on operations none of which announces an event, naming those that do', async () => {
    await refused(
      { webhooks: { duplicate: 2 }, match: { method: 'GET' } },
      '/webhooks',
      `none of the operations it applies to (getReportExecution, listBuyerPaymentMethods, listCardSchemeDefinitions, listConnections, listFlowRules and 3 more) announces an event, so there is no delivery to steer; ${announcers}`,
    );
    await refused(
      { operations: ['listGiftCards'], respond: { status: 500 }, calls: [2], webhooks: { delay_ms: 5 } },
      '/webhooks',
      `none of the operations it applies to (listGiftCards) announces an event, so there is no delivery to steer; ${announcers}`,
    );
    // Webhooks alone naming an operation that announces nothing: it would pass those requests and do nothing.
    await refused(
      { operations: ['updateBuyer', 'listGiftCards'], webhooks: { duplicate: 2 } },
      '/operations',
      `listGiftCards announces no event: with webhooks alone the scenario only steers deliveries, so it would do nothing there; ${announcers}`,
    );
  });

  it('narrows webhooks alone to the operations that announce events, and does not count the others', async () => {
    const narrowed = await define(sb, { name: 'deletes', description: 'x', match: { method: 'DELETE' }, webhooks: { duplicate: 2 } });
    expect(narrowed.operations).toEqual(ANNOUNCING.filter((id) => id.startsWith('delete')));
    // Steps of its own keep every operation they name: the steering acts where events are announced.
    const withSteps = await define(sb, {
      name: 'slow-all',
      description: 'x',
      operations: ['updateBuyer', 'listGiftCards'],
      delay_ms: 1,
      webhooks: { duplicate: 2 },
    });
    expect(withSteps.operations).toEqual(['listGiftCards', 'updateBuyer']);
    const everyPut = await define(sb, { name: 'puts', description: 'x', match: { method: ['GET', 'PUT'] }, webhooks: { duplicate: 2 } });
    expect(everyPut.operations).toEqual(['updateBuyer']);
    await activate(sb, ['puts']);
    expect((await sb.http.get('/connections').set('authorization', sb.auth)).status).toBe(200);
    await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'x' }).expect(200);
    expect((await sb.http.get('/_sandbox/scenarios/puts').expect(200)).body.counters).toMatchObject({ matched: 1, answered: 1 });
  });
});

describe('a scenario file steering deliveries', () => {
  it('is read from YAML and steers the requests that name it', async () => {
    const dir = scenarioDir({
      'twice.yaml': 'name: api-key-hooks-twice\ndescription: A new key pair is notified twice\noperations: [createApiKeyPair]\nwebhooks:\n  duplicate: 2\n',
    });
    const sb = await startTestSandbox({ scenariosDir: dir });
    const receiver = await Receiver.start();
    try {
      const subscription = (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: receiver.url }).expect(201)).body;
      receiver.trust(subscription.secret);
      const listed = (await sb.http.get('/_sandbox/scenarios').expect(200)).body.items.find((s: { name: string }) => s.name === 'api-key-hooks-twice');
      expect(listed).toMatchObject({ source: 'file', file: `${dir}/twice.yaml`, operations: ['createApiKeyPair'], webhooks: { copies: 2 } });
      await sb.http
        .post('/api-key-pairs')
        .set('authorization', sb.auth)
        .set('x-sandbox-scenario', 'api-key-hooks-twice')
        .send({ display_name: 'Hooked twice', role_ids: [WELL_KNOWN.roles.readOnly.id] })
        .expect(201);
      const both = await receiver.waitFor(2, 'api-key-pair.created');
      expect(both[0].event.id).toBe(both[1].event.id);
    } finally {
      await receiver.close();
      sb.server.close();
      await sb.deps.webhooks.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
