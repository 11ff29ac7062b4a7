// Steering deliveries to test a receiver: secret rotation (two signatures for a while), duplicates,
// delays and reordering; and pending deliveries carried by snapshots and namespace state like any
// record.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { eventually, Receiver, resetFrozen, settle, subscribeReceiver, useSandboxWithReceiver, verifyNotification } from './receiver.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const T0 = '2030-01-15T10:00:00.000Z';

describe('steering deliveries', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  let subscription: { id: string; secret: string };
  useSandboxWithReceiver((started) => ({ sb, receiver } = started));
  beforeEach(async () => {
    await resetFrozen(sb, T0, receiver);
    subscription = (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: receiver.url }).expect(201)).body;
    receiver.trust(subscription.secret);
  });
  const putBuyer = (displayName: string, ns = '') =>
    sb.http.put(`${ns}/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: displayName }).expect(200);
  const advance = (ms: number, ns = '') => sb.http.post(`${ns}/_sandbox/clock/advance`).send({ ms }).expect(200);
  const names = (from = receiver.of('buyer.updated')) => from.map((n) => n.event.target.display_name);

  it('signs with both secrets, comma-separated, while the previous one lasts after a rotation', async () => {
    const rotated = await sb.http.post(`/_sandbox/webhooks/subscriptions/${subscription.id}/rotate-secret`).send({ keep_previous_seconds: 3600 }).expect(200);
    expect(rotated.body).toMatchObject({
      id: subscription.id,
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      previous_secret: subscription.secret,
      previous_secret_expires_at: '2030-01-15T11:00:00.000Z',
    });
    const fresh = rotated.body.secret as string;
    receiver.trust(fresh);
    expect(fresh).not.toBe(subscription.secret);
    await putBuyer('During Rotation');
    const [during] = await receiver.waitFor(1);
    expect(String(during.headers['x-service-signature'])).toMatch(/^[0-9a-f]{64},[0-9a-f]{64}$/);
    expect(verifyNotification(fresh, during.body, during.headers)).toBe(true);
    expect(verifyNotification(subscription.secret, during.body, during.headers)).toBe(true);

    await advance(3_600_000); // the previous secret has expired
    await putBuyer('After Rotation');
    const after = (await receiver.waitFor(2, 'buyer.updated'))[1];
    expect(String(after.headers['x-service-signature'])).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyNotification(fresh, after.body, after.headers)).toBe(true);
    expect(verifyNotification(subscription.secret, after.body, after.headers)).toBe(false);

    const given = await sb.http
      .post(`/_sandbox/webhooks/subscriptions/${subscription.id}/rotate-secret`)
      .send({ secret: 'my-own-secret-0123456789', keep_previous_seconds: 0 });
    expect(given.body).toMatchObject({ secret: 'my-own-secret-0123456789', previous_secret: null, previous_secret_expires_at: null });
    const missing = await sb.http.post('/_sandbox/webhooks/subscriptions/00000000-0000-4000-8000-000000000000/rotate-secret').send({});
    expect(missing.status).toBe(404);
    expectErrorBody(missing.body, 404, 'not_found');
  });

  it('duplicates every event: two deliveries, one event id', async () => {
    const set = await sb.http.put('/_sandbox/webhooks/behaviour').send({ duplicate: true }).expect(200);
    expect(set.body).toEqual({ delay_ms: 0, duplicate: true, reorder: false });
    await putBuyer('Twice');
    const both = await receiver.waitFor(2, 'buyer.updated');
    expect(both[0].body).toBe(both[1].body);
    const deliveries = (await sb.http.get('/_sandbox/webhooks/deliveries').expect(200)).body.items;
    expect(deliveries).toHaveLength(2);
    expect(deliveries[0].id).not.toBe(deliveries[1].id);
    expect(deliveries[0].event_id).toBe(deliveries[1].event_id);
  });

  it('delays deliveries on the namespace clock, and reorders what falls due together', async () => {
    await sb.http.put('/_sandbox/webhooks/behaviour').send({ delay_ms: 60_000, reorder: true }).expect(200);
    await putBuyer('First');
    await putBuyer('Second');
    await putBuyer('Third');
    const pending = (await sb.http.get('/_sandbox/webhooks/deliveries').expect(200)).body;
    expect(pending.items.map((d: { status: string; next_attempt_at: string }) => [d.status, d.next_attempt_at])).toEqual(
      Array(3).fill(['pending', '2030-01-15T10:01:00.000Z']),
    );
    await advance(59_999);
    await settle(150);
    expect(receiver.received).toEqual([]);
    await advance(1);
    await receiver.waitFor(3, 'buyer.updated');
    expect(names()).toEqual(['Third', 'Second', 'First']);

    // Back to plain delivery: at once, in order.
    const reset = await sb.http.delete('/_sandbox/webhooks/behaviour').expect(200);
    expect(reset.body).toEqual({ delay_ms: 0, duplicate: false, reorder: false });
    await putBuyer('Fourth');
    await receiver.waitFor(4, 'buyer.updated');
    expect(names()[3]).toBe('Fourth');
    const bad = await sb.http.put('/_sandbox/webhooks/behaviour').send({ delay_ms: -1, shuffle: true });
    expect(bad.status).toBe(400);
  });

  it('keeps behaviour and pending deliveries per namespace, in its state, and resets them', async () => {
    // The clock first: moved by years with a subscription, it would notify every scheduled report run it passes.
    await sb.http.put('/ns/steer-a/_sandbox/clock').send({ now: T0, frozen: true }).expect(200);
    await sb.http.put('/ns/steer-a/_sandbox/webhooks/behaviour').send({ delay_ms: 1000 }).expect(200);
    expect((await sb.http.get('/_sandbox/webhooks/behaviour').expect(200)).body.delay_ms).toBe(0);
    await subscribeReceiver(sb, receiver, '/ns/steer-a');
    await putBuyer('Carried Along', '/ns/steer-a');
    const state = (await sb.http.get('/ns/steer-a/_sandbox/state').expect(200)).body;
    expect(state.parts.webhooks).toEqual({ behaviour: { delay_ms: 1000, duplicate: false, reorder: false }, dropped: 0 });
    expect(state.records.collections.webhook_deliveries).toEqual([expect.objectContaining({ status: 'pending', next_attempt_at: '2030-01-15T10:00:01.000Z' })]);

    // Another namespace takes the state and delivers what was pending there, when its clock gets there.
    await sb.http.put('/ns/steer-b/_sandbox/state').send(state).expect(200);
    expect((await sb.http.get('/ns/steer-b/_sandbox/webhooks').expect(200)).body).toMatchObject({ pending: 1, behaviour: { delay_ms: 1000 } });
    await advance(1000, '/ns/steer-b');
    const [notification] = await receiver.waitFor(1, 'buyer.updated');
    expect(notification.event.target.display_name).toBe('Carried Along');
    const inB = (await sb.http.get('/ns/steer-b/_sandbox/webhooks/deliveries').expect(200)).body.items[0];
    await eventually(
      async () => (await sb.http.get(`/ns/steer-b/_sandbox/webhooks/deliveries/${inB.id}`).expect(200)).body,
      (d) => d.status === 'succeeded',
    );
    // A snapshot too: the records, pending deliveries included.
    const snapshot = (await sb.http.get('/ns/steer-a/_sandbox/snapshot').expect(200)).body;
    await sb.http.put('/ns/steer-c/_sandbox/snapshot').send(snapshot).expect(200);
    expect((await sb.http.get('/ns/steer-c/_sandbox/webhooks').expect(200)).body.pending).toBe(1);

    await sb.http.post('/ns/steer-a/_sandbox/reset').expect(200);
    expect((await sb.http.get('/ns/steer-a/_sandbox/webhooks').expect(200)).body).toMatchObject({
      pending: 0,
      dropped: 0,
      behaviour: { delay_ms: 0, duplicate: false, reorder: false },
    });
  });

  it('bounds the queue: past 1,000 waiting, a new delivery is recorded failed (queue_full) and never sent', async () => {
    await sb.http.put('/_sandbox/webhooks/behaviour').send({ delay_ms: 3_600_000 }).expect(200);
    // Three years at once: every scheduled report run passed is an execution, each one an event.
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '1095d' }).expect(200);
    const overview = (await sb.http.get('/_sandbox/webhooks').expect(200)).body;
    expect(overview.pending).toBe(1000);
    expect(overview.dropped).toBeGreaterThan(0);
    const refused = (await sb.http.get('/_sandbox/webhooks/deliveries').query({ outcome: 'failed', limit: 1 }).expect(200)).body;
    expect(refused.total).toBeGreaterThan(0);
    expect(refused.total).toBeLessThanOrEqual(Math.min(overview.dropped, 1000)); // the oldest finished beyond 1,000 are not kept
    expect(refused.items[0]).toMatchObject({
      attempts: [],
      next_attempt_at: null,
      error: expect.stringMatching(/^queue_full: 1000 deliveries are already waiting/),
    });
    expect((await sb.http.get('/_sandbox/records/webhook_deliveries').query({ limit: 1 }).expect(200)).body.total).toBeLessThanOrEqual(2000);
    expect(receiver.received).toEqual([]);
  });

  it('shows an overview, and lists deliveries in the records API read-only', async () => {
    await putBuyer('Listed');
    await receiver.waitFor(1);
    const overview = (await sb.http.get('/_sandbox/webhooks').expect(200)).body;
    expect(overview).toMatchObject({
      forward: null,
      behaviour: { delay_ms: 0, duplicate: false, reorder: false },
      limits: { concurrency: 64, pipelining: 16, max_pending: 1000, max_finished_kept: 1000, max_attempts: 8, timeout_ms: 10_000 },
    });
    expect(overview.events).toContain('report-execution.succeeded');
    const stored = (await sb.http.get('/_sandbox/records/webhook_deliveries').expect(200)).body;
    expect(stored.items).toEqual([expect.objectContaining({ type: 'webhook-delivery', body: expect.stringContaining('"name":"buyer.updated"') })]);
    const create = await sb.http.post('/_sandbox/records/webhook_deliveries').send({ subscription_id: subscription.id });
    expect(create.status).toBe(400);
    expect(create.body.details).toEqual([expect.objectContaining({ location: 'path', pointer: '/collection', type: 'read_only_collection' })]);
    await sb.http.delete(`/_sandbox/records/webhook_deliveries/${stored.items[0].id}`).expect(204);
    expect((await sb.http.get('/_sandbox/webhooks/deliveries').expect(200)).body.total).toBe(0);
  });
});

describe('a subscription from a fixtures file', () => {
  it('gets a secret and is active unless it says otherwise, then receives like any other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-webhook-fixtures-'));
    const receiver = await Receiver.start();
    const id = '0e300000-0000-4000-8000-0000000000f1';
    writeFileSync(
      join(dir, 'webhook_subscriptions.json'),
      JSON.stringify([
        { id, type: 'webhook-subscription', merchant_account_id: 'default', url: receiver.url, created_at: T0, updated_at: T0 },
        {
          id: '0e300000-0000-4000-8000-0000000000f2',
          type: 'webhook-subscription',
          merchant_account_id: 'default',
          url: receiver.url,
          active: false,
          created_at: T0,
          updated_at: T0,
        },
      ]),
    );
    const sb = await startTestSandbox({ fixturesDir: dir });
    try {
      const record = (await sb.http.get(`/_sandbox/records/webhook_subscriptions/${id}`).expect(200)).body;
      expect(record).toMatchObject({ active: true, secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
      receiver.trust(record.secret);
      await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'From Fixtures' }).expect(200);
      const [notification] = await receiver.waitFor(1, 'buyer.updated');
      expect(verifyNotification(record.secret, notification.body, notification.headers)).toBe(true);
      await settle(150);
      expect(receiver.of('buyer.updated')).toHaveLength(1); // the inactive one received nothing
    } finally {
      await receiver.close();
      sb.server.close();
      await sb.deps.webhooks.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
