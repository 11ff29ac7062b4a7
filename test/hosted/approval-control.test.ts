// Without a browser: POST /_sandbox/payment-service-tokens/{token_id}/approval decides for the buyer,
// or plans the decision on the namespace clock (approval that comes by itself, or never comes and the
// token fails); the transaction's completion page; the console's "Waiting for the buyer" list.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { type Receiver, resetFrozen, subscribeReceiver, useSandboxWithReceiver } from '../webhooks/receiver.js';

const T0 = '2026-11-28T10:00:00.000Z';
const PM = WELL_KNOWN.paymentMethods.card.id;
const WAITING = WELL_KNOWN.paymentServiceTokens.braintree.id;
const SUCCEEDED = WELL_KNOWN.paymentServiceTokens.stripe.id;
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

describe('deciding approvals through the control API', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  useSandboxWithReceiver((started) => ({ sb, receiver } = started));
  beforeEach(async () => {
    await resetFrozen(sb, T0, receiver);
    await subscribeReceiver(sb, receiver);
  });

  const decide = (id: string, body: unknown, prefix = '') => sb.http.post(`${prefix}/_sandbox/payment-service-tokens/${id}/approval`).send(body as object);
  const tokenOfApi = async (id: string) =>
    (await sb.http.get(`/payment-methods/${PM}/payment-service-tokens`).set('authorization', sb.auth).expect(200)).body.items.find((t: any) => t.id === id);
  const stored = async (id: string) => (await sb.http.get(`/_sandbox/records/payment_service_tokens/${id}?shape=stored`).expect(200)).body;

  it('approves now: the token as the API shows it, announced; a second decision is a 400 that changes nothing', async () => {
    const res = await decide(WAITING, { decision: 'approve' }).expect(200);
    const token = await tokenOfApi(WAITING);
    expect(res.body).toEqual({ decision: 'approve', outcome: 'approved', due_at: null, token });
    expect(token).toMatchObject({ status: 'succeeded', approval_url: null, updated_at: T0 });
    const [note] = await receiver.waitFor(1, 'payment-service-token.updated');
    expect(note.event.target).toEqual(token);

    const before = await stored(WAITING);
    const again = await decide(WAITING, { decision: 'decline' }).expect(400);
    expectErrorBody(again.body, 400, 'bad_request');
    expect(again.body.message).toBe(
      `Payment service token ${WAITING} is succeeded (the buyer approved it at ${T0}): only a token in buyer_approval_required waits for the buyer, so nothing changed.`,
    );
    expect(again.body.details).toEqual([{ location: 'path', pointer: '/token_id', type: 'token_not_waiting', message: 'The token is succeeded.' }]);
    expect(await stored(WAITING)).toEqual(before);
    expect((await decide(SUCCEEDED, { decision: 'approve' }).expect(400)).body.details[0].type).toBe('token_not_waiting');
  });

  it('answers an unknown token 404, a bad body 400, and a token of another namespace 404', async () => {
    expectErrorBody((await decide('00000000-0000-4000-8000-00000000dead', { decision: 'approve' }).expect(404)).body, 404, 'not_found');
    for (const body of [{}, { decision: 'maybe' }, { decision: 'approve', after: '10 minutes' }, { decision: 'approve', extra: 1 }]) {
      expectErrorBody((await decide(WAITING, body).expect(400)).body, 400, 'bad_request');
    }
    await sb.http.post('/ns/team-control/_sandbox/records/payment_service_tokens').send({
      payment_method_id: PM,
      payment_service_id: WELL_KNOWN.paymentServices.stripe.id,
      status: 'buyer_approval_required',
      token: 'tok_elsewhere',
      id: '00000000-0000-4000-8000-0000000000aa',
    });
    expect((await decide('00000000-0000-4000-8000-0000000000aa', { decision: 'approve' }).expect(404)).body.message).toContain('namespace default');
    expect((await tokenOfApi(WAITING)).status).toBe('buyer_approval_required');
    expect(receiver.of('payment-service-token.updated')).toEqual([]);
  });

  it('approval that comes by itself: approve after 90s happens when the namespace clock reaches it, at that instant', async () => {
    const planned = await decide(WAITING, { decision: 'approve', after: '90s' }).expect(200);
    expect(planned.body).toMatchObject({ decision: 'approve', outcome: null, due_at: at(90_000) });
    expect(planned.body.token.status).toBe('buyer_approval_required');
    expect((await stored(WAITING)).approval_plan).toEqual({ decision: 'approve', due_at: at(90_000) });
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '89s' }).expect(200);
    expect((await tokenOfApi(WAITING)).status).toBe('buyer_approval_required');
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '1s' }).expect(200);
    const [note] = await receiver.waitFor(1, 'payment-service-token.updated');
    expect(note.event).toMatchObject({ created_at: at(90_000), target: { id: WAITING, status: 'succeeded', approval_url: null, updated_at: at(90_000) } });
    expect(await tokenOfApi(WAITING)).toMatchObject({ status: 'succeeded', approval_url: null, updated_at: at(90_000) });
    expect(await stored(WAITING)).toMatchObject({ approval_outcome: 'approved', approval_plan: null });
  });

  it('approval that never comes: decline after 15m fails the token then, read through the records API with no subscriber', async () => {
    await sb.http
      .delete(`/_sandbox/records/webhook_subscriptions/${(await sb.http.get('/_sandbox/records/webhook_subscriptions').expect(200)).body.items[0].id}`)
      .expect(204);
    await decide(WAITING, { decision: 'decline', after: '15m' }).expect(200);
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '1h' }).expect(200);
    expect(await stored(WAITING)).toMatchObject({ status: 'failed', approval_outcome: 'declined', approval_plan: null, updated_at: at(900_000) });
    // A decision made before the plan falls due replaces it.
    const other = await sb.http
      .post('/_sandbox/records/payment_service_tokens')
      .send({ payment_method_id: PM, payment_service_id: WELL_KNOWN.paymentServices.stripe.id, status: 'buyer_approval_required', token: 'tok_plan' })
      .expect(201);
    await decide(other.body.id, { decision: 'decline', after: '1m' }).expect(200);
    await decide(other.body.id, { decision: 'approve' }).expect(200);
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '2m' }).expect(200);
    expect(await stored(other.body.id)).toMatchObject({ status: 'succeeded', approval_outcome: 'approved', approval_plan: null });
  });

  it('the page shows a planned decision once it fell due', async () => {
    await decide(WAITING, { decision: 'cancel', after: '5s' }).expect(200);
    expect((await sb.http.get(`/_sandbox/hosted/approvals/${WAITING}`).expect(200)).text).toContain('Approve');
    await sb.http.post('/_sandbox/clock/advance').send({ duration: '5s' }).expect(200);
    const page = await sb.http.get(`/_sandbox/hosted/approvals/${WAITING}`).expect(200);
    expect(page.text).toContain('The buyer cancelled: the approval was abandoned.');
    expect(page.text).not.toContain('value="approve"');
  });
});

describe('the transaction completion page', () => {
  let sb: TestSandbox;
  useSandboxWithReceiver((started) => ({ sb } = started));
  const TX = WELL_KNOWN.transactions;

  it('is the default_completion_url of the session, and shows the transaction status; unknown or foreign: 404', async () => {
    const session = await sb.http.post(`/ns/team-complete/transactions/${TX.default.id}/session`).set('authorization', sb.auth).send({}).expect(200);
    const url = new URL(session.body.default_completion_url);
    expect(url.pathname).toBe(`/ns/team-complete/_sandbox/hosted/transactions/${TX.default.id}/complete`);
    expect(url.origin).toBe(new URL(session.request.url).origin);
    const record = (await sb.http.get(`/ns/team-complete/_sandbox/records/transactions/${TX.default.id}?shape=stored`).expect(200)).body;
    const shown = await sb.http
      .get(url.pathname)
      .expect(200)
      .expect('content-type', /text\/html/);
    expect(shown.text).toContain(`The transaction is <strong>${record.status}</strong>.`);
    expect(shown.text).toContain(`${(record.amount / 100).toFixed(2)} ${record.currency}`);
    expect((await sb.http.get('/_sandbox/hosted/transactions/00000000-0000-4000-8000-00000000dead/complete').expect(404)).text).toContain(
      'No transaction has id 00000000-0000-4000-8000-00000000dead in namespace default',
    );
    expect((await sb.http.get(`/ns/never-made/_sandbox/hosted/transactions/${TX.default.id}/complete`).expect(404)).text).toContain('namespace never-made');
  });
});

describe('with an admin token', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ adminToken: 'hosted-admin-secret' });
  });
  afterAll(() => sb?.server.close());

  it('the buyer decides on the page without it; the control route needs it', async () => {
    const path = `/_sandbox/hosted/approvals/${WAITING}`;
    const form = await sb.http.get(path).expect(200);
    const version = /name="version" value="([^"]+)"/.exec(form.text)?.[1] as string;
    expectErrorBody(
      (await sb.http.post(`/_sandbox/payment-service-tokens/${WAITING}/approval`).send({ decision: 'approve' }).expect(401)).body,
      401,
      'unauthorized',
    );
    await sb.http.post(path).type('form').send({ decision: 'approve', version }).expect(303);
    const stored = await sb.http
      .get(`/_sandbox/records/payment_service_tokens/${WAITING}?shape=stored`)
      .set('authorization', 'Bearer hosted-admin-secret')
      .expect(200);
    expect(stored.body).toMatchObject({ status: 'succeeded', approval_outcome: 'approved' });
  });
});
