// The webhook inbox (issue 37, part 1): a subscription to https://inbox.sandbox.invalid/ is delivered
// to the namespace's own inbox, with no network: the same delivery record, signing (checked here
// with the independent verification of receiver.ts), retries on the namespace clock, steering, and
// a control route that reads it (after an id, newest first) and empties it; bounded in count and
// bytes with the drops counted; emptied by a reset; refused by nothing the target rules refuse.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INBOX_MAX_BYTES, INBOX_MAX_NOTIFICATIONS, WebhookInbox } from '../../src/webhooks/inbox.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { eventually, resetFrozen, verifyNotification } from './receiver.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const T0 = '2030-01-15T10:00:00.000Z';
const INBOX = 'https://inbox.sandbox.invalid/';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the webhook inbox', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    // A target list that names no inbox: the inbox is never a network target, so it is not refused.
    sb = await startTestSandbox({ webhookTargets: ['hooks.internal'] });
  });
  afterAll(() => sb.server.close());
  beforeEach(() => resetFrozen(sb, T0));

  const subscribe = async (url = INBOX) => (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url }).expect(201)).body;
  const putBuyer = (displayName: string) => sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: displayName }).expect(200);
  const inbox = async (query: Record<string, string | number> = {}) => (await sb.http.get('/_sandbox/webhooks/inbox').query(query).expect(200)).body;
  const untilKept = (n: number) =>
    eventually(
      () => inbox(),
      (b) => b.kept >= n,
    );

  it('receives a notification as a receiver would: headers, signed body, its delivery and record', async () => {
    const subscription = await subscribe();
    expect((await sb.http.get('/_sandbox/webhooks').expect(200)).body.inbox_url).toBe(INBOX);
    await putBuyer('Inbox Buyer');
    const body = await untilKept(1);
    expect(body).toEqual({
      url: INBOX,
      notifications: [expect.any(Object)],
      kept: 1,
      bytes: expect.any(Number),
      dropped: 0,
      last_id: expect.any(Number),
      limits: { max_notifications: INBOX_MAX_NOTIFICATIONS, max_bytes: INBOX_MAX_BYTES },
    });
    const n = body.notifications[0];
    expect(body.last_id).toBe(n.id);
    expect(n).toEqual({
      id: n.id,
      received_at: T0,
      url: INBOX,
      delivery_id: expect.stringMatching(UUID),
      attempt: 1,
      subscription_id: subscription.id,
      event_id: expect.stringMatching(UUID),
      event_name: 'buyer.updated',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'payments-sandbox-webhooks',
        'x-service-timestamp': expect.stringMatching(/^\d+$/),
        'x-service-signature': expect.stringMatching(/^[0-9a-f]{64}$/),
        'x-sandbox-webhook-delivery': n.delivery_id, // what every sandbox refuses, so a subscription aimed at one cannot loop
      },
      body: expect.any(String),
      event: JSON.parse(n.body),
      status_code: 200,
      record: { collection: 'buyers', id: BUYER },
      signature: { valid: true, secret: 'current' },
    });
    expect(n.event).toMatchObject({ type: 'event', id: n.event_id, name: 'buyer.updated', merchant_account_id: 'default' });
    expect(n.event.target).toMatchObject({ type: 'buyer', id: BUYER, display_name: 'Inbox Buyer' });
    expect(body.bytes).toBeGreaterThan(Buffer.byteLength(n.body));
    // Checked as the official client checks it, not with the sandbox's own code.
    expect(verifyNotification(subscription.secret, n.body, n.headers, 60)).toBe(true);
    // The delivery record is a delivery like any other: succeeded, its attempt answered 200.
    const delivery = (await sb.http.get(`/_sandbox/webhooks/deliveries/${n.delivery_id}`).expect(200)).body;
    expect(delivery).toMatchObject({ status: 'succeeded', event_id: n.event_id, url: INBOX, error: null, next_attempt_at: null });
    expect(delivery.attempts).toEqual([
      {
        number: 1,
        at: T0,
        wall_clock_at: expect.any(String),
        url: INBOX,
        status_code: 200,
        duration_ms: 0,
        error: null,
        response_excerpt: '{"received":true,"status":200}',
        manual: false,
      },
    ]);
    expect(delivery.event).toEqual(n.event);
  });

  it('an inbox URL asking for a failure is retried on the backoff, each attempt received', async () => {
    await subscribe(`${INBOX}hooks?status=503`);
    await putBuyer('Failing');
    const first = await untilKept(1);
    expect(first.notifications[0]).toMatchObject({ attempt: 1, status_code: 503, url: `${INBOX}hooks?status=503` });
    const id = first.notifications[0].delivery_id;
    const pending = await eventually(
      async () => (await sb.http.get(`/_sandbox/webhooks/deliveries/${id}`).expect(200)).body,
      (d) => d.attempts.length === 1,
    );
    expect(pending).toMatchObject({
      status: 'pending',
      next_attempt_at: '2030-01-15T10:01:00.000Z',
      error: 'answered 503: not a 2xx (the inbox URL asks for it with ?status=503)',
    });
    await sb.http.post('/_sandbox/clock/advance').send({ ms: 60_000 }).expect(200);
    const second = await untilKept(2);
    expect(second.notifications.map((n: any) => [n.attempt, n.event_id, n.delivery_id])).toEqual([
      [2, first.notifications[0].event_id, id],
      [1, first.notifications[0].event_id, id],
    ]);
    expect(second.notifications[0].received_at).toBe('2030-01-15T10:01:00.000Z');
    expect(second.notifications[0].body).toBe(first.notifications[0].body); // the same bytes on every attempt
  });

  it('follows the delivery steering: a duplicated event arrives twice with one event id', async () => {
    await subscribe();
    await sb.http.put('/_sandbox/webhooks/behaviour').send({ duplicate: true }).expect(200);
    await putBuyer('Twice');
    const body = await untilKept(2);
    const [a, b] = body.notifications;
    expect(a.event_id).toBe(b.event_id);
    expect(a.delivery_id).not.toBe(b.delivery_id);
  });

  it('reads after an id oldest first, the newest first without one, and says when a signature no longer checks', async () => {
    const subscription = await subscribe();
    for (const name of ['One', 'Two', 'Three']) await putBuyer(name);
    const all = await untilKept(3);
    const ids = all.notifications.map((n: any) => n.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x)); // newest first
    const oldest = ids[2];
    const after = await inbox({ after: oldest, limit: 1 });
    expect(after.notifications.map((n: any) => n.id)).toEqual([ids[1]]);
    expect(after.notifications[0].event.target.display_name).toBe('Two');
    expect((await inbox({ after: all.last_id })).notifications).toEqual([]);
    // Rotated keeping the previous secret: it checks with the previous one; rotated without, with none.
    await sb.http.post(`/_sandbox/webhooks/subscriptions/${subscription.id}/rotate-secret`).send({}).expect(200);
    expect((await inbox({ limit: 1 })).notifications[0].signature).toEqual({ valid: true, secret: 'previous' });
    await sb.http.post(`/_sandbox/webhooks/subscriptions/${subscription.id}/rotate-secret`).send({ keep_previous_seconds: 0 }).expect(200);
    expect((await inbox({ limit: 1 })).notifications[0].signature).toEqual({ valid: false, secret: null });
    // Bad parameters are the reference's 400, naming the parameter.
    for (const query of [{ after: -1 }, { limit: 0 }, { limit: 1001 }, { after: 'x' }]) {
      const res = await sb.http.get('/_sandbox/webhooks/inbox').query(query);
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'bad_request');
      expect(res.body.details[0]).toMatchObject({ location: 'query', pointer: `/${Object.keys(query)[0]}` });
    }
  });

  it('is emptied by DELETE and by a reset; ids go on', async () => {
    await subscribe();
    await putBuyer('Before');
    const before = await untilKept(1);
    const cleared = (await sb.http.delete('/_sandbox/webhooks/inbox').expect(200)).body;
    expect(cleared).toMatchObject({ notifications: [], kept: 0, bytes: 0, dropped: 0, last_id: before.last_id });
    await putBuyer('Again');
    await untilKept(1);
    await sb.http.post('/_sandbox/reset').expect(200);
    const after = await inbox();
    expect(after).toMatchObject({ notifications: [], kept: 0, bytes: 0, dropped: 0 });
    expect(after.last_id).toBe(before.last_id + 1);
  });

  it('namespaces have inboxes of their own', async () => {
    await sb.http.post('/ns/inbox-a/_sandbox/records/webhook_subscriptions').send({ url: INBOX }).expect(201);
    await sb.http.put(`/ns/inbox-a/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'A' }).expect(200);
    await eventually(
      async () => (await sb.http.get('/ns/inbox-a/_sandbox/webhooks/inbox').expect(200)).body,
      (b) => b.kept === 1,
    );
    expect((await inbox()).kept).toBe(0);
  });
});

describe('the inbox bounds', () => {
  const attempt = (i: number, body = `{"n":${i}}`) => ({
    url: INBOX,
    deliveryId: `d${i}`,
    attempt: 1,
    subscriptionId: 's',
    eventId: `e${i}`,
    eventName: 'buyer.updated',
    at: T0,
    headers: { 'content-type': 'application/json' },
    body,
  });
  const receive = (inbox: WebhookInbox, i: number, body?: string) => inbox.receive(attempt(i, body), () => undefined);

  it('keeps the newest past its count, counting the dropped', () => {
    const inbox = new WebhookInbox(3, 1_000_000);
    for (let i = 1; i <= 5000; i++) receive(inbox, i);
    expect(inbox.kept).toBe(3);
    expect(inbox.dropped).toBe(4997);
    expect(inbox.newest(10).map((n) => n.event_id)).toEqual(['e5000', 'e4999', 'e4998']);
    expect(inbox.after(0, 10).map((n) => n.id)).toEqual([4998, 4999, 5000]);
    expect(inbox.after(4999, 10).map((n) => n.id)).toEqual([5000]);
  });

  it('keeps within its bytes, the newest always kept', () => {
    const inbox = new WebhookInbox(100, 1000);
    receive(inbox, 1, 'x'.repeat(400));
    receive(inbox, 2, 'y'.repeat(400));
    expect(inbox.kept).toBe(2);
    receive(inbox, 3, 'z'.repeat(400));
    expect(inbox.kept).toBe(2);
    expect(inbox.dropped).toBe(1);
    expect(inbox.keptBytes).toBeLessThanOrEqual(1000);
    receive(inbox, 4, 'é'.repeat(2000)); // 4000 bytes: alone past the budget, still kept
    expect(inbox.newest(5).map((n) => n.id)).toEqual([4]);
    expect(inbox.dropped).toBe(3);
    inbox.clear();
    expect([inbox.kept, inbox.keptBytes, inbox.dropped, inbox.lastId]).toEqual([0, 0, 0, 4]);
  });
});

describe('--forward-webhooks-to the inbox', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ forwardWebhooksTo: INBOX });
  });
  afterAll(() => sb.server.close());

  it("sends every namespace's events to its own inbox, signed with the forward secret", async () => {
    const secret = (await sb.http.get('/ns/fwd/_sandbox/webhooks').expect(200)).body.forward.secret;
    await sb.http.put(`/ns/fwd/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'Forwarded' }).expect(200);
    const body = await eventually(
      async () => (await sb.http.get('/ns/fwd/_sandbox/webhooks/inbox').expect(200)).body,
      (b) => b.kept === 1,
    );
    const [n] = body.notifications;
    expect(n).toMatchObject({ event_name: 'buyer.updated', status_code: 200, signature: { valid: true, secret: 'current' } });
    expect(verifyNotification(secret, n.body, n.headers)).toBe(true);
    expect((await sb.http.get('/_sandbox/webhooks/inbox').expect(200)).body.kept).toBe(0); // the default namespace's own inbox
  });
});
