// Webhook delivery against a real receiver: a subscription made through the records API receives
// every buyer update, signed so that the official client's verification (written independently in
// receiver.ts) accepts it; a failing receiver is retried on the backoff of the namespace clock with
// the same event id; deleting the subscription stops delivery at once; namespaces and resets keep
// deliveries apart.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { eventually, Receiver, resetFrozen, settle, verifyNotification } from './receiver.js';

const BUYER = WELL_KNOWN.buyers.default.id;
// Not a midnight: no scheduled fixture report runs at T0 (a day later they do: their events are filtered out below).
const T0 = '2030-01-15T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('webhook delivery', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  let other: Receiver;
  beforeAll(async () => {
    sb = await startTestSandbox();
    receiver = await Receiver.start();
    other = await Receiver.start('/other');
  });
  afterAll(async () => {
    await receiver.close();
    await other.close();
    sb.server.close();
  });
  beforeEach(async () => {
    await resetFrozen(sb, T0, receiver, other);
  });

  const prefix = (ns?: string) => (ns ? `/ns/${ns}` : '');
  async function subscribe(url: string, ns?: string, merchantAccountId = 'default') {
    const res = await sb.http.post(`${prefix(ns)}/_sandbox/records/webhook_subscriptions`).send({ url, merchant_account_id: merchantAccountId });
    expect(res.status).toBe(201);
    for (const r of [receiver, other]) if (url.startsWith(r.url)) r.trust(res.body.secret);
    return res.body as { id: string; secret: string; url: string };
  }
  const putBuyer = (displayName: string, ns?: string) =>
    sb.http
      .put(`${prefix(ns)}/buyers/${BUYER}`)
      .set('authorization', sb.auth)
      .send({ display_name: displayName })
      .expect(200);
  const deliveries = async (query: Record<string, string> = {}, ns?: string) =>
    (
      await sb.http
        .get(`${prefix(ns)}/_sandbox/webhooks/deliveries`)
        .query(query)
        .expect(200)
    ).body;
  const advance = (ms: number, ns?: string) =>
    sb.http
      .post(`${prefix(ns)}/_sandbox/clock/advance`)
      .send({ ms })
      .expect(200);

  it('subscribing through the records API answers 201 with the record and its secret', async () => {
    const res = await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: receiver.url, merchant_account_id: 'merchant-two' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      type: 'webhook-subscription',
      id: expect.stringMatching(UUID),
      merchant_account_id: 'merchant-two',
      url: receiver.url,
      active: true,
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      created_at: T0,
      updated_at: T0,
    });
    expect((await sb.http.get(`/_sandbox/records/webhook_subscriptions/${res.body.id}`).expect(200)).body).toEqual(res.body);
    const bad = await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: 'ftp://files.example/hook' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ location: 'body', pointer: '/url' });
  });

  it('the test receiver fails the test on a notification no secret it was given verifies', async () => {
    const untrusted = (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: receiver.url }).expect(201)).body;
    await putBuyer('Unverified');
    await expect(receiver.waitFor(1, 'buyer.updated')).rejects.toThrow(
      `${receiver.url} received 1 notification(s) no secret it was given verifies: buyer.updated signed`,
    );
    expect(() => receiver.of()).toThrow(/no secret it was given verifies/);
    const [unverified] = receiver.takeUnverified();
    expect(unverified).toMatchObject({ verified: false, event: { name: 'buyer.updated' } });
    expect(() => receiver.checkVerified()).not.toThrow(); // taken: this test expected it
    // Given the secret, the same notification verifies.
    expect(verifyNotification(untrusted.secret, unverified.body, unverified.headers, 300)).toBe(true);
    receiver.trust(untrusted.secret);
    await putBuyer('Verified');
    const [, verified] = await receiver.waitFor(2, 'buyer.updated');
    expect(verified).toMatchObject({ verified: true, event: { target: { display_name: 'Verified' } } });
  });

  it('delivers a buyer update, signed, with the buyer exactly as the API answered', async () => {
    const subscription = await subscribe(receiver.url);
    const put = await putBuyer('Ada Lovelace');
    const [notification] = await receiver.waitFor(1);
    expect(notification.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(notification.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(300); // the wall clock, not the frozen 2030
    expect(notification.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    // Every sandbox refuses a request carrying it (a delivery aimed back at a sandbox: test/cluster/webhook-loop.test.ts).
    expect(notification.headers['x-sandbox-webhook-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(notification.event).sort()).toEqual(['created_at', 'id', 'merchant_account_id', 'name', 'target', 'type']);
    expect(notification.event).toEqual({
      type: 'event',
      id: expect.stringMatching(UUID),
      name: 'buyer.updated',
      created_at: T0,
      merchant_account_id: 'default',
      target: put.body,
    });
    // The receiver's own verification: accepted, with a tolerance too; refused for one byte changed or another secret.
    expect(verifyNotification(subscription.secret, notification.body, notification.headers)).toBe(true);
    expect(verifyNotification(subscription.secret, notification.body, notification.headers, 300)).toBe(true);
    const changed = notification.body.replace('Ada Lovelace', 'Ada Lovelacf');
    expect(changed.length).toBe(notification.body.length);
    expect(verifyNotification(subscription.secret, changed, notification.headers)).toBe(false);
    expect(verifyNotification('f'.repeat(64), notification.body, notification.headers)).toBe(false);

    const list = await eventually(
      () => deliveries(),
      (b) => b.items[0]?.status === 'succeeded',
    );
    expect(list).toMatchObject({ total: 1, limit: 100, offset: 0, pending: 0, dropped: 0 });
    expect(list.items[0]).toEqual({
      type: 'webhook-delivery',
      id: expect.stringMatching(UUID),
      merchant_account_id: 'default',
      subscription_id: subscription.id,
      event_id: notification.event.id,
      event_name: 'buyer.updated',
      event: notification.event,
      url: receiver.url,
      status: 'succeeded',
      attempts: [
        {
          number: 1,
          at: T0,
          wall_clock_at: expect.any(String),
          url: receiver.url,
          status_code: 200,
          duration_ms: expect.any(Number),
          error: null,
          response_excerpt: 'ok',
          manual: false,
        },
      ],
      next_attempt_at: null,
      error: null,
      created_at: T0,
      updated_at: T0,
    });
    expect(Date.parse(list.items[0].attempts[0].wall_clock_at) / 1000).toBeCloseTo(Number(notification.headers['x-service-timestamp']), -1);
  });

  it('answers the API call without waiting for the receiver', async () => {
    receiver.answers = ['hang'];
    await subscribe(receiver.url);
    await putBuyer('While The Receiver Hangs');
    // The call is answered while the notification is still unanswered: the delivery has no attempt yet.
    await receiver.waitFor(1);
    const list = await deliveries();
    expect(list.items[0]).toMatchObject({ status: 'pending', attempts: [] });
    expect(list.pending).toBe(1);
  });

  it('retries a failing receiver on the backoff of the namespace clock, with the same event and body', async () => {
    receiver.answers = [{ status: 500, body: 'boom' }, { status: 503 }, { status: 204 }];
    const subscription = await subscribe(receiver.url);
    await putBuyer('Retried Buyer');
    await receiver.waitFor(1);
    const afterFirst = await eventually(
      () => deliveries(),
      (b) => b.items[0].attempts.length === 1,
    );
    expect(afterFirst.items[0]).toMatchObject({
      status: 'pending',
      next_attempt_at: at(60_000),
      error: 'answered 500: not a 2xx',
      attempts: [{ number: 1, at: T0, status_code: 500, error: 'answered 500: not a 2xx', response_excerpt: 'boom' }],
    });

    await advance(59_000); // not due yet
    await settle(150);
    expect(receiver.received).toHaveLength(1);
    expect((await deliveries()).items[0]).toMatchObject({ status: 'pending', next_attempt_at: at(60_000) });

    await advance(1_000); // 1 min after the first attempt
    await receiver.waitFor(2);
    const afterSecond = await eventually(
      () => deliveries(),
      (b) => b.items[0].attempts.length === 2,
    );
    expect(afterSecond.items[0]).toMatchObject({ status: 'pending', next_attempt_at: at(60_000 + 300_000) });
    expect(afterSecond.items[0].attempts[1]).toMatchObject({ number: 2, at: at(60_000), status_code: 503 });

    await advance(300_000); // 5 min after the second
    await receiver.waitFor(3);
    const done = await eventually(
      () => deliveries(),
      (b) => b.items[0].status === 'succeeded',
    );
    expect(done.items[0]).toMatchObject({ next_attempt_at: null, error: null });
    expect(done.items[0].attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 204]);
    const ids = receiver.received.map((n) => n.event.id);
    expect(new Set(ids).size).toBe(1);
    expect(new Set(receiver.received.map((n) => n.body)).size).toBe(1);
    for (const n of receiver.received) expect(verifyNotification(subscription.secret, n.body, n.headers)).toBe(true);
  });

  it('stops delivery at once when the subscription is deleted, pending retries included', async () => {
    receiver.answers = [{ status: 500 }];
    const failing = await subscribe(receiver.url);
    const healthy = await subscribe(other.url);
    await putBuyer('Before Deletion');
    await receiver.waitFor(1);
    await other.waitFor(1, 'buyer.updated');
    await eventually(
      () => deliveries({ subscription_id: failing.id }),
      (b) => b.items[0]?.attempts.length === 1,
    );

    await sb.http.delete(`/webhook-subscriptions/${failing.id}`).set('authorization', sb.auth).expect(204);
    const cancelled = (await deliveries({ subscription_id: failing.id })).items;
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({ status: 'cancelled', next_attempt_at: null, url: null, error: expect.stringMatching(/^cancelled: /) });

    // The other subscription hears of the deletion, without the secret.
    const [deleted] = await other.waitFor(1, 'webhook-subscription.deleted');
    expect(deleted.event.target).toEqual({
      type: 'webhook-subscription',
      id: failing.id,
      merchant_account_id: 'default',
      url: receiver.url,
      active: true,
      created_at: T0,
      updated_at: T0,
    });
    expect(deleted.body).not.toContain(failing.secret);

    // A day later, and after another change, the deleted subscription has received nothing more.
    await advance(86_400_000);
    await putBuyer('After Deletion');
    await other.waitFor(2, 'buyer.updated');
    await eventually(
      () => deliveries({ subscription_id: healthy.id, outcome: 'succeeded', event_name: 'buyer.updated' }),
      (b) => b.total === 2,
    );
    expect((await deliveries({ subscription_id: failing.id })).total).toBe(1);
    expect(receiver.received).toHaveLength(1);
    for (const n of other.received) expect(verifyNotification(healthy.secret, n.body, n.headers)).toBe(true);
  });

  it('stops delivery when the records API deletes the subscription or makes it inactive', async () => {
    receiver.answers = [{ status: 500 }];
    const viaDelete = await subscribe(receiver.url);
    const viaPatch = await subscribe(`${receiver.url}?second`);
    await putBuyer('Two Failing');
    await receiver.waitFor(2);
    await eventually(
      () => deliveries(),
      (b) => b.items.every((d: { attempts: unknown[] }) => d.attempts.length === 1),
    );
    await sb.http.delete(`/_sandbox/records/webhook_subscriptions/${viaDelete.id}`).expect(204);
    await sb.http.patch(`/_sandbox/records/webhook_subscriptions/${viaPatch.id}`).send({ active: false }).expect(200);
    const list = await deliveries();
    expect(list.items.map((d: { status: string }) => d.status)).toEqual(['cancelled', 'cancelled']);
    expect(list.pending).toBe(0);
    await advance(86_400_000);
    await putBuyer('Nobody Listens');
    expect((await deliveries()).total).toBe(2); // the day's report runs and this update: no delivery
    await settle(150);
    expect(receiver.received).toHaveLength(2);
  });

  it('keeps namespaces apart: subscriptions, deliveries and their lists', async () => {
    const inA = await subscribe(receiver.url, 'wh-a');
    await putBuyer('In Default');
    await putBuyer('In B', 'wh-b');
    await putBuyer('In A', 'wh-a');
    const [notification] = await receiver.waitFor(1);
    expect(notification.event.target.display_name).toBe('In A');
    expect(verifyNotification(inA.secret, notification.body, notification.headers)).toBe(true);
    expect((await deliveries({}, 'wh-a')).total).toBe(1);
    expect((await deliveries({}, 'wh-b')).total).toBe(0);
    expect((await deliveries()).total).toBe(0);
    await settle(150);
    expect(receiver.received).toHaveLength(1);
  });

  it('reset clears deliveries and pending retries: the fixtures have none', async () => {
    receiver.answers = [{ status: 500 }];
    await subscribe(receiver.url);
    await putBuyer('Before Reset');
    await eventually(
      () => deliveries(),
      (b) => b.items[0]?.attempts.length === 1,
    );
    await sb.http.post('/_sandbox/reset').expect(200);
    await sb.http.put('/_sandbox/clock').send({ now: T0, frozen: true }).expect(200);
    expect(await deliveries()).toMatchObject({ items: [], total: 0, pending: 0 });
    expect((await sb.http.get('/_sandbox/records/webhook_deliveries').expect(200)).body.total).toBe(0);
    await advance(86_400_000);
    await settle(150);
    expect(receiver.received).toHaveLength(1);
  });

  it('sends nothing for the seeded subscriptions, which are inactive', async () => {
    const seeded = (await sb.http.get('/_sandbox/records/webhook_subscriptions?limit=1000').expect(200)).body.items;
    expect(seeded.length).toBeGreaterThan(0);
    for (const s of seeded) expect(s).toMatchObject({ active: false, secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
    await putBuyer('Nobody Subscribed');
    expect(await deliveries()).toMatchObject({ total: 0, pending: 0 });
  });
});
