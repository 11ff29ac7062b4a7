// Which events the sandbox sends by itself, and their bodies: report executions as the clock moves
// (and, on a running clock, by the namespace's own timer, with nobody polling), the other changes
// of the API, events on demand (POST /_sandbox/events), and the self-check of every body against
// openapi.json's webhooks section.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import pino from 'pino';
import supertest from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { buildSandbox } from '../../src/sandbox.js';
import { loadSpec } from '../../src/spec/load-spec.js';
import { scenarioDir } from '../scenarios/helpers.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { eventually, Receiver, resetFrozen, subscribeReceiver, useSandboxWithReceiver, verifyNotification } from './receiver.js';

const T0 = '2030-01-15T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const ONCE_REPORT = { name: 'Webhook report', schedule: 'once', schedule_enabled: true, spec: { model: 'transactions', params: {} } };

describe('events the sandbox sends', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  let secret: string;
  useSandboxWithReceiver((started) => ({ sb, receiver } = started));
  beforeEach(async () => {
    await resetFrozen(sb, T0, receiver);
    secret = (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: receiver.url }).expect(201)).body.secret;
    receiver.trust(secret);
  });
  const api = (method: 'post' | 'delete' | 'get', path: string) => sb.http[method](path).set('authorization', sb.auth);

  it('tells a report execution created, then each status it enters as the clock moves, with nobody reading it', async () => {
    const report = await api('post', '/reports').send(ONCE_REPORT).expect(201);
    const executionId = report.body.latest_execution.id;
    const [created] = await receiver.waitFor(1, 'report.created');
    expect(created.event.target).toMatchObject({ id: report.body.id, latest_execution: null });
    const [execution] = await receiver.waitFor(1, 'report-execution.created');
    expect(execution.event).toMatchObject({ created_at: T0, target: { id: executionId, status: 'pending', updated_at: T0 } });

    await sb.http.post('/_sandbox/clock/advance').send({ duration: '1h' }).expect(200);
    await receiver.waitFor(5);
    const byName = (name: string) => receiver.of(name)[0]?.event;
    for (const [name, since] of [
      ['report-execution.dispatched', 5_000],
      ['report-execution.processing', 10_000],
      ['report-execution.succeeded', 30_000],
    ] as const) {
      const event = byName(name);
      expect(event, name).toMatchObject({ created_at: at(since), merchant_account_id: 'default' });
      // The target is the execution as the API showed it then.
      expect(event.target).toEqual({
        type: 'report-execution',
        id: executionId,
        created_at: T0,
        updated_at: at(since),
        status: name.split('.')[1],
        context: { reference_timestamp: T0, reference_timezone: 'Etc/UTC' },
        report: expect.objectContaining({ id: report.body.id, name: 'Webhook report' }),
      });
    }
    for (const n of receiver.received) expect(verifyNotification(secret, n.body, n.headers)).toBe(true);
    // Sent in the order they happened.
    const list = (await sb.http.get('/_sandbox/webhooks/deliveries').query({ limit: 10 }).expect(200)).body.items.reverse();
    expect(list.map((d: { event_name: string }) => d.event_name)).toEqual([
      'report.created',
      'report-execution.created',
      'report-execution.dispatched',
      'report-execution.processing',
      'report-execution.succeeded',
    ]);
  });

  it('tells report-execution.failed when the report-execution-fails scenario makes the execution fail, and never succeeded', async () => {
    const report = await api('post', '/reports').set('x-sandbox-scenario', 'report-execution-fails').send(ONCE_REPORT).expect(201);
    const executionId = report.body.latest_execution.id;
    await receiver.waitFor(1, 'report-execution.created');
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '29s' }).expect(200);
    await receiver.waitFor(1, 'report-execution.processing');
    expect(receiver.of('report-execution.failed')).toEqual([]);
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '1s' }).expect(200);
    const [failed] = await receiver.waitFor(1, 'report-execution.failed');
    expect(failed.event).toEqual({
      type: 'event',
      id: expect.any(String),
      name: 'report-execution.failed',
      created_at: at(30_000),
      merchant_account_id: 'default',
      target: {
        type: 'report-execution',
        id: executionId,
        created_at: T0,
        updated_at: at(30_000),
        status: 'failed',
        context: { reference_timestamp: T0, reference_timezone: 'Etc/UTC' },
        report: expect.objectContaining({ id: report.body.id, name: 'Webhook report' }),
      },
    });
    // The API shows the execution as the event did.
    const shown = await api('get', `/report-executions/${executionId}`).expect(200);
    expect(shown.body).toEqual(failed.event.target);
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '1h' }).expect(200);
    const deliveries = await eventually(
      async () => (await sb.http.get('/_sandbox/webhooks/deliveries').query({ limit: 10 }).expect(200)).body,
      (b) => b.pending === 0,
    );
    expect(deliveries.items.map((d: { event_name: string }) => d.event_name).reverse()).toEqual([
      'report.created',
      'report-execution.created',
      'report-execution.dispatched',
      'report-execution.processing',
      'report-execution.failed',
    ]);
    expect(receiver.of('report-execution.succeeded')).toEqual([]);
  });

  it('announces the other changes of the API, with the target as the API shows it', async () => {
    const pair = await api('post', '/api-key-pairs')
      .send({ display_name: 'Hooked pair', role_ids: [WELL_KNOWN.roles.readOnly.id] })
      .expect(201);
    expect(pair.body.private_key).toMatch(/BEGIN PRIVATE KEY/);
    await api('delete', `/checkout/sessions/${WELL_KNOWN.checkoutSessions.default.id}`).expect(204);
    await api('delete', `/anti-fraud-services/${WELL_KNOWN.antiFraudServices.default.id}`).expect(204);
    await api('delete', `/apple-pay-certificates/${WELL_KNOWN.applePayCertificates.default.id}`).expect(204);
    const [created] = await receiver.waitFor(1, 'api-key-pair.created');
    expect(created.event.target).toEqual({ ...pair.body, private_key: null }); // never the private key
    expect(created.body).not.toContain('PRIVATE KEY');
    const [session] = await receiver.waitFor(1, 'checkout-session.deleted');
    expect(session.event.target).toMatchObject({ type: 'checkout-session', id: WELL_KNOWN.checkoutSessions.default.id });
    const [service] = await receiver.waitFor(1, 'anti-fraud-service.deleted');
    expect(service.event.target).toMatchObject({ type: 'anti-fraud-service', id: WELL_KNOWN.antiFraudServices.default.id });
    const [certificate] = await receiver.waitFor(1, 'apple-pay-certificate.deleted');
    expect(certificate.event.target).toMatchObject({ type: 'apple-pay-certificate', id: WELL_KNOWN.applePayCertificates.default.id });
    // A refused call changes nothing and tells nothing.
    await api('delete', `/apple-pay-certificates/${WELL_KNOWN.applePayCertificates.default.id}`).expect(404);
    await eventually(
      async () => (await sb.http.get('/_sandbox/webhooks/deliveries').expect(200)).body,
      (b) => b.pending === 0,
    );
    expect((await sb.http.get('/_sandbox/webhooks/deliveries').expect(200)).body.total).toBe(4);
  });

  it('emits any named event on demand for an existing record (POST /_sandbox/events)', async () => {
    const transaction = WELL_KNOWN.transactions.default.id;
    const res = await sb.http.post('/_sandbox/events').send({ name: 'transaction.captured', merchant_account_id: 'default', target_id: transaction });
    expect(res.status).toBe(201);
    const stored = (await sb.http.get(`/_sandbox/records/transactions/${transaction}`).expect(200)).body;
    expect(res.body.event).toEqual({
      type: 'event',
      id: expect.any(String),
      name: 'transaction.captured',
      created_at: T0,
      merchant_account_id: 'default',
      target: stored,
    });
    expect(res.body.deliveries).toEqual([expect.objectContaining({ event_id: res.body.event.id, status: 'pending', url: receiver.url, attempts: [] })]);
    const [notification] = await receiver.waitFor(1, 'transaction.captured');
    expect(notification.event).toEqual(res.body.event);

    // Without target_id: the first record of the kind in the merchant account.
    const first = await sb.http.post('/_sandbox/events').send({ name: 'buyer.created' }).expect(201);
    expect(first.body.event.target).toMatchObject({ type: 'buyer', merchant_account_id: 'default' });
    // A webhook subscription as a target never shows its secret.
    const sub = await sb.http.post('/_sandbox/events').send({ name: 'webhook-subscription.updated' }).expect(201);
    expect(sub.body.event.target).not.toHaveProperty('secret');
  });

  it('refuses an unknown event name (400 listing the names of its type), a missing target or account (404)', async () => {
    const unknown = await sb.http.post('/_sandbox/events').send({ name: 'transaction.teleported' });
    expect(unknown.status).toBe(400);
    expectErrorBody(unknown.body, 400, 'bad_request');
    expect(unknown.body.message).toContain('events of transaction: transaction.authorized, transaction.captured, transaction.created');
    expect(unknown.body.details).toEqual([expect.objectContaining({ location: 'body', pointer: '/name', type: 'unknown_event' })]);
    const noType = await sb.http.post('/_sandbox/events').send({ name: 'spaceship.launched' });
    expect(noType.status).toBe(400);
    expect(noType.body.message).toMatch(/known resource types: .*buyer.*report-execution/);
    const foreign = await sb.http.post('/_sandbox/events').send({ name: 'buyer.updated', target_id: WELL_KNOWN.buyers.merchantTwo.id });
    expect(foreign.status).toBe(404);
    expectErrorBody(foreign.body, 404, 'not_found');
    const account = await sb.http.post('/_sandbox/events').send({ name: 'buyer.updated', merchant_account_id: 'nobody' });
    expect(account.status).toBe(404);
    const extra = await sb.http.post('/_sandbox/events').send({ name: 'buyer.updated', colour: 'red' });
    expect(extra.status).toBe(400);
    expect((await sb.http.get('/_sandbox/webhooks/deliveries').expect(200)).body.total).toBe(0);
  });

  it('documents every event it sends by itself in openapi.json, with the collection of its target', () => {
    const doc = loadSpec() as unknown as { webhooks: Record<string, { post: { 'x-sandbox-collection': string; 'x-sandbox-emitted-by': string | null } }> };
    const announced = new Set<string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else for (const m of readFileSync(path, 'utf8').matchAll(/announce\(\{\s*name: '([a-z-]+\.[a-z-]+)'/g)) announced.add(m[1]);
      }
    };
    walk(join(import.meta.dirname, '../../src/resources'));
    for (const status of ['pending', 'dispatched', 'processing', 'succeeded', 'failed']) announced.add(`report-execution.${status}`);
    expect(announced.size).toBeGreaterThanOrEqual(13);
    for (const name of announced) expect(doc.webhooks[name], name).toBeDefined();
    const emitted = Object.entries(doc.webhooks)
      .filter(([, item]) => item.post['x-sandbox-emitted-by'] !== null)
      .map(([name]) => name)
      .sort();
    expect(emitted).toEqual([...announced].sort());
  });

  it('describes each event as /docs shows it: "Sent when" its x-sandbox-emitted-by, an HTTP method keeping its capitals', () => {
    const doc = loadSpec() as unknown as { webhooks: Record<string, { post: { description: string; 'x-sandbox-emitted-by': string | null } }> };
    const onDemand = 'Sent on demand only (POST /_sandbox/events, or `payments-sandbox trigger NAME`): the sandbox makes no such change by itself.';
    for (const [name, { post }] of Object.entries(doc.webhooks)) {
      const by = post['x-sandbox-emitted-by'];
      // "PUT /buyers/..." stays as written; "A report runs" becomes "a report runs".
      const clause = by === null ? null : /^[A-Z]+ \//.test(by) ? by : by[0].toLowerCase() + by.slice(1);
      expect(post.description, name).toBe(clause === null ? onDemand : `Sent when ${clause} Also on demand (POST /_sandbox/events).`);
      expect(post.description.match(/\b[a-z][A-Z]{2,}\b/g), name).toBeNull(); // no "pUT", "dELETE"
    }
    expect(doc.webhooks['buyer.updated'].post.description).toBe('Sent when PUT /buyers/{buyer_id} changes a buyer. Also on demand (POST /_sandbox/events).');
  });
});

describe('report events on a running clock', () => {
  /**
   * A fresh sandbox whose fast-reports scenario finishes an execution in 300 ms, its receiver
   * subscribed; `before` runs ahead of the report (with nobody polling or moving the clock after).
   */
  async function reportStatusesArrive(before: (sb: TestSandbox, receiver: Receiver) => Promise<void>): Promise<void> {
    const fast = scenarioDir({
      'fast.yaml':
        'name: fast-reports\ndescription: executions finish in 300 ms\nreport_execution:\n  path: [pending, dispatched, succeeded]\n  durations: [150ms, 150ms]\n',
    });
    const sb = await startTestSandbox({ scenariosDir: fast });
    const receiver = await Receiver.start();
    try {
      await subscribeReceiver(sb, receiver);
      await before(sb, receiver);
      await sb.http.post('/reports').set('authorization', sb.auth).set('x-sandbox-scenario', 'fast-reports').send(ONCE_REPORT).expect(201);
      const [succeeded] = await receiver.waitFor(1, 'report-execution.succeeded');
      expect(succeeded.event.target.status).toBe('succeeded');
      // Its delivery may arrive after succeeded's (sent in parallel): waited for, then counted.
      expect(await receiver.waitFor(1, 'report-execution.dispatched')).toHaveLength(1);
    } finally {
      await receiver.close();
      sb.server.close();
      await sb.deps.webhooks.close();
    }
  }

  it('arrive by the namespace timer, with nobody polling or moving the clock', () => reportStatusesArrive(async () => {}));

  it('arrive by the timer the new report re-arms, not one a subscription change happened to arm', () =>
    reportStatusesArrive(async (sb, receiver) => {
      // An event first: the hub indexes the subscription (and arms its timer) now, with no report due.
      await sb.http.put(`/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).send({ display_name: 'Indexed' }).expect(200);
      await receiver.waitFor(1, 'buyer.updated');
    }));
});

describe('self-check of notification bodies', () => {
  it('logs a body that breaks openapi.json as an error and records the delivery failed, unsent', async () => {
    const lines: any[] = [];
    const out = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = pino({ level: 'debug' }, out);
    const deps = await buildSandbox({ validateResponses: true, logLevel: 'debug' }, { logger });
    const http = supertest.agent(getRequestListener(createApp(deps).fetch));
    const receiver = await Receiver.start();
    try {
      const sub = (await http.post('/_sandbox/records/webhook_subscriptions').send({ url: receiver.url }).expect(201)).body;
      receiver.trust(sub.secret);
      // A drift planted below the API: a stored buyer the contract does not allow.
      deps.namespaces.get().store.collections.buyers.update(WELL_KNOWN.buyers.default.id, { display_name: 42 as unknown as string });
      const res = await http.post('/_sandbox/events').send({ name: 'buyer.updated' }).expect(201);
      expect(res.body.deliveries).toEqual([
        expect.objectContaining({ status: 'failed', attempts: [], error: expect.stringMatching(/^self-check: .*display_name/) }),
      ]);
      const drift = lines.find((l) => l.event === 'webhook-self-check');
      expect(drift).toMatchObject({ level: 50, event_name: 'buyer.updated', event_id: res.body.event.id, problem: expect.stringContaining('display_name') });
      // A good body goes out; no line holds the secret.
      await http.post('/_sandbox/events').send({ name: 'transaction.updated' }).expect(201);
      await receiver.waitFor(1, 'transaction.updated');
      await eventually(
        async () => lines,
        (l) => l.some((x) => x.event === 'webhook-attempt'),
      );
      expect(JSON.stringify(lines)).not.toContain(sub.secret);
      expect(receiver.of('buyer.updated')).toEqual([]);
    } finally {
      await receiver.close();
      await deps.webhooks.close();
    }
  });
});
