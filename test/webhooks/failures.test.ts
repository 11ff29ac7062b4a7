// Every way an attempt fails (a timeout, a redirect, a refused connection, a 5xx) is recorded with
// what happened and retried on the advanced namespace clock; after the 8th failed attempt the
// delivery is failed, and a manual retry sends it once more.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { eventually, Receiver, resetFrozen, settle, verifyNotification } from './receiver.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const T0 = '2030-01-15T10:00:00.000Z';
const MINUTE = 60_000;

describe('failed attempts', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  let redirectTarget: Receiver;
  beforeAll(async () => {
    sb = await startTestSandbox({ webhookTimeoutMs: 300 });
    receiver = await Receiver.start();
    redirectTarget = await Receiver.start('/moved');
  });
  afterAll(async () => {
    await receiver.close();
    await redirectTarget.close();
    sb.server.close();
  });
  beforeEach(async () => {
    await resetFrozen(sb, T0, receiver, redirectTarget);
  });

  /** A subscription to `url`; its secret given to the receiver, where every subscription of these tests ends up sending. */
  async function subscribe(url: string) {
    const subscription = (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url }).expect(201)).body as { id: string; secret: string };
    receiver.trust(subscription.secret);
    return subscription;
  }
  const putBuyer = (displayName: string) => sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: displayName }).expect(200);
  const onlyDelivery = async () => {
    const body = (await sb.http.get('/_sandbox/webhooks/deliveries').query({ event_name: 'buyer.updated' }).expect(200)).body;
    expect(body.total).toBe(1);
    return body.items[0];
  };
  const attemptsReach = (n: number) =>
    eventually(
      () => onlyDelivery(),
      (d) => d.attempts.length >= n,
    );
  const advance = (ms: number) => sb.http.post('/_sandbox/clock/advance').send({ ms }).expect(200);

  it('a receiver that does not answer within the timeout fails the attempt; the retry succeeds', async () => {
    receiver.answers = ['hang', { status: 200, body: 'late but fine' }];
    const subscription = await subscribe(receiver.url);
    await putBuyer('Slow Receiver');
    const first = await attemptsReach(1);
    expect(first).toMatchObject({ status: 'pending', next_attempt_at: new Date(Date.parse(T0) + MINUTE).toISOString() });
    expect(first.attempts[0]).toMatchObject({ status_code: null, error: 'no answer within 300 ms (--webhook-timeout-ms)', response_excerpt: null });
    await advance(MINUTE);
    const done = await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'succeeded',
    );
    expect(done.attempts.map((a: { status_code: number | null }) => a.status_code)).toEqual([null, 200]);
    expect(done.attempts[1].response_excerpt).toBe('late but fine');
    expect(receiver.received).toHaveLength(2);
    for (const n of receiver.received) expect(verifyNotification(subscription.secret, n.body, n.headers)).toBe(true);
  });

  it('on a running clock, the namespace timer sends a retry when it falls due, with nobody moving the clock', async () => {
    receiver.answers = [{ status: 500 }, { status: 200 }];
    await subscribe(receiver.url);
    await putBuyer('Retried By The Timer');
    await attemptsReach(1);
    // Running again, 200 ms before the retry is due.
    await sb.http
      .put('/_sandbox/clock')
      .send({ now: new Date(Date.parse(T0) + MINUTE - 200).toISOString(), frozen: false })
      .expect(200);
    const done = await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'succeeded',
    );
    expect(done.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);
  });

  it('does not follow a redirect: a 3xx is a failed attempt and the Location never hears of it', async () => {
    receiver.answers = [{ status: 302, location: redirectTarget.url }, { status: 200 }];
    await subscribe(receiver.url);
    await putBuyer('Redirected');
    const first = await attemptsReach(1);
    expect(first.attempts[0]).toMatchObject({ status_code: 302, error: `answered 302 (Location: ${redirectTarget.url}): redirects are not followed` });
    await advance(MINUTE);
    await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'succeeded',
    );
    expect(redirectTarget.received).toEqual([]);
  });

  it('a refused connection is a failed attempt, retried when the receiver is back', async () => {
    const gone = await Receiver.start();
    const url = gone.url;
    await gone.close();
    const subscription = await subscribe(url);
    await putBuyer('Nobody Home');
    const first = await attemptsReach(1);
    expect(first.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/ECONNREFUSED/) });
    await advance(MINUTE);
    const second = await attemptsReach(2);
    expect(second.attempts[1].error).toMatch(/ECONNREFUSED/);
    expect(second.next_attempt_at).toBe(new Date(Date.parse(T0) + MINUTE + 5 * MINUTE).toISOString());
    // The receiver comes back at another address: the subscription follows it (the next attempt uses the URL of now).
    await sb.http.patch(`/_sandbox/records/webhook_subscriptions/${subscription.id}`).send({ url: receiver.url }).expect(200);
    await advance(5 * MINUTE);
    const done = await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'succeeded',
    );
    expect(done.attempts.map((a: { url: string }) => a.url)).toEqual([url, url, receiver.url]);
    expect(done.url).toBe(receiver.url);
  });

  it('gives up after 8 attempts on the documented backoff, then a manual retry sends it once more', async () => {
    receiver.answers = [{ status: 500, body: 'always broken' }];
    await subscribe(receiver.url);
    await putBuyer('Never Delivered');
    const backoff = [1, 5, 30, 120, 300, 600, 1440].map((minutes) => minutes * MINUTE);
    await attemptsReach(1);
    let due = Date.parse(T0);
    for (const [i, wait] of backoff.entries()) {
      due += wait;
      const pending = await onlyDelivery();
      expect(pending).toMatchObject({ status: 'pending', next_attempt_at: new Date(due).toISOString() });
      await advance(wait);
      await attemptsReach(i + 2);
    }
    const failed = await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'failed',
    );
    expect(failed).toMatchObject({ next_attempt_at: null, error: 'answered 500: not a 2xx' });
    expect(failed.attempts).toHaveLength(8);
    await advance(7 * 86_400_000);
    await settle(150);
    expect(receiver.of('buyer.updated')).toHaveLength(8); // the days' report runs are notified too

    receiver.answers = [{ status: 202 }];
    const retried = await sb.http.post(`/_sandbox/webhooks/deliveries/${failed.id}/retry`).expect(202);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'pending', error: null });
    const done = await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'succeeded',
    );
    expect(done.attempts).toHaveLength(9);
    expect(done.attempts[8]).toMatchObject({ number: 9, status_code: 202, manual: true });
    expect(new Set(receiver.of('buyer.updated').map((n) => n.event.id)).size).toBe(1);
  });

  it('a manual retry that fails leaves the delivery failed, with no automatic retry after it', async () => {
    // Answers set by phase, not by arrival order: report runs that fall due after the previous test
    // may be notified beside the buyer update, and deliveries have no guaranteed order.
    receiver.answers = [{ status: 200 }];
    await subscribe(receiver.url);
    await putBuyer('Delivered Then Retried');
    const delivered = await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'succeeded',
    );
    receiver.answers = [{ status: 500 }];
    await sb.http.post(`/_sandbox/webhooks/deliveries/${delivered.id}/retry`).expect(202);
    const failed = await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'failed',
    );
    expect(failed.attempts.map((a: { manual: boolean; status_code: number }) => [a.manual, a.status_code])).toEqual([
      [false, 200],
      [true, 500],
    ]);
    await advance(86_400_000);
    await settle(150);
    expect(receiver.of('buyer.updated')).toHaveLength(2);
  });

  it('refuses to retry a delivery whose subscription is gone (400), or that does not exist (404)', async () => {
    const subscription = await subscribe(receiver.url);
    await putBuyer('Then Unsubscribed');
    const delivered = await eventually(
      () => onlyDelivery(),
      (d) => d.status === 'succeeded',
    );
    await sb.http.delete(`/webhook-subscriptions/${subscription.id}`).set('authorization', sb.auth).expect(204);
    const conflict = await sb.http.post(`/_sandbox/webhooks/deliveries/${delivered.id}/retry`);
    expect(conflict.status).toBe(400);
    expect(conflict.body.message).toContain('was deleted or is inactive');
    expect(conflict.body.details).toEqual([expect.objectContaining({ location: 'path', pointer: '/delivery_id', type: 'subscription_gone' })]);
    const missing = await sb.http.post('/_sandbox/webhooks/deliveries/00000000-0000-4000-8000-000000000000/retry');
    expect(missing.status).toBe(404);
  });

  it('never resolves the reserved names of the seeded subscriptions', async () => {
    const seeded = WELL_KNOWN.webhookSubscriptions.default.id;
    await sb.http.patch(`/_sandbox/records/webhook_subscriptions/${seeded}`).send({ active: true }).expect(200);
    await putBuyer('To A Reserved Name');
    const first = await attemptsReach(1);
    expect(first.attempts[0]).toMatchObject({
      status_code: null,
      duration_ms: 0,
      error: expect.stringMatching(/merchant\.example is a reserved name \(RFC 2606\) that never resolves/),
    });
  });
});

describe('attempts in flight, with a receiver that never answers', () => {
  let sb: TestSandbox;
  let hanging: Receiver;
  let healthy: Receiver;
  beforeAll(async () => {
    // A long timeout: the attempts stay in flight until the test ends them. Without pipelining, so
    // that each attempt has a connection of its own and the 64 connections are the bound.
    sb = await startTestSandbox({ webhookTimeoutMs: 60_000, webhookPipelining: 1 });
    hanging = await Receiver.start('/hang');
    healthy = await Receiver.start('/healthy');
  });
  afterAll(async () => {
    await hanging.close();
    await healthy.close();
    sb.server.close();
    await sb.deps.webhooks.close();
  });
  beforeEach(async () => {
    await resetFrozen(sb, T0, hanging, healthy);
    hanging.answers = ['hang'];
  });
  const subscribe = async (receiver: Receiver, ns = '') => {
    const subscription = (await sb.http.post(`${ns}/_sandbox/records/webhook_subscriptions`).send({ url: receiver.url }).expect(201)).body;
    receiver.trust(subscription.secret);
    return subscription as { id: string; secret: string };
  };
  const deliveries = async (query: Record<string, string | number> = {}, ns = '') =>
    (
      await sb.http
        .get(`${ns}/_sandbox/webhooks/deliveries`)
        .query({ limit: 1000, ...query })
        .expect(200)
    ).body;

  it('opens at most 64 connections to a receiver per namespace; the others wait their turn, and another namespace is not held up', async () => {
    await subscribe(hanging);
    for (let i = 0; i < 70; i++) await sb.http.post('/_sandbox/events').send({ name: 'buyer.updated' }).expect(201);
    await hanging.waitFor(64);
    await settle(300);
    expect(hanging.received).toHaveLength(64); // the 65th waits for one of them to end
    expect(hanging.hangingNow).toBe(64);
    const waiting = await deliveries();
    expect(waiting).toMatchObject({ total: 70, pending: 70 });
    expect(waiting.items.every((d: { attempts: unknown[] }) => d.attempts.length === 0)).toBe(true); // none has ended an attempt

    // Another namespace delivers at once meanwhile, to the same receiver: it has connections of its own.
    hanging.answers = [{ status: 200, body: 'ok' }]; // for new requests; the 64 keep hanging
    await sb.http.put('/ns/inflight-b/_sandbox/clock').send({ now: T0, frozen: true }).expect(200);
    await subscribe(hanging, '/ns/inflight-b');
    await sb.http.put(`/ns/inflight-b/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'Not Held Up' }).expect(200);
    const arrived = await hanging.waitFor(65);
    expect(arrived.filter((n) => n.event.target.display_name === 'Not Held Up')).toHaveLength(1);
    expect(hanging.hangingNow).toBe(64);
    const [otherDelivery] = (await deliveries({}, '/ns/inflight-b')).items;
    expect(otherDelivery).toMatchObject({ status: 'succeeded', attempts: [{ status_code: 200, error: null }] });

    // The receiver drops the 64 connections before answering: each of those attempts is sent once
    // more on a new connection (the receiver may never have read it), now answered 200, and the 6
    // waiting go out too. Every delivery succeeds at its first attempt; the repeats carry their event id.
    hanging.releaseHanging();
    await hanging.waitFor(135);
    const done = await eventually(
      () => deliveries(),
      (b) => b.pending === 0,
    );
    expect(done.items).toHaveLength(70);
    for (const delivery of done.items) {
      expect(delivery).toMatchObject({ status: 'succeeded', error: null, attempts: [{ number: 1, status_code: 200, error: null }] });
    }
    const ours = hanging.received.filter((n) => n.event.target.display_name !== 'Not Held Up');
    expect(ours).toHaveLength(134);
    expect(new Set(ours.map((n) => n.event.id)).size).toBe(70);
    await settle(200);
    expect(hanging.received).toHaveLength(135);
  });

  it('deleting the subscription aborts the attempt in flight at once and sends nothing more', async () => {
    const subscription = await subscribe(hanging);
    await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'Hanging' }).expect(200);
    await hanging.waitFor(1, 'buyer.updated');
    expect(hanging.hangingNow).toBe(1);
    await sb.http.delete(`/webhook-subscriptions/${subscription.id}`).set('authorization', sb.auth).expect(204);
    // Cancelled in the answer's wake, and the connection closed by the sandbox, long before the 60 s timeout.
    const [cancelled] = (await deliveries({ event_name: 'buyer.updated' })).items;
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      attempts: [],
      next_attempt_at: null,
      error: 'cancelled: the subscription was deleted or made inactive',
    });
    await eventually(
      async () => hanging.hangingNow,
      (open) => open === 0,
    );
    await sb.http.post('/_sandbox/clock/advance').send({ ms: 86_400_000 }).expect(200);
    await settle(300);
    expect(hanging.received).toHaveLength(1);
    expect((await deliveries({ event_name: 'buyer.updated' })).items).toEqual([
      expect.objectContaining({ id: cancelled.id, status: 'cancelled', attempts: [] }),
    ]);
  });
});
