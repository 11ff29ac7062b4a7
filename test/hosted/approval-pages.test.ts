// The sandbox's hosted approval page over HTTP (the browser tests click the same page): what it shows,
// what each decision does to the token through the API, the notification, the journal, the redirect,
// and every bad input answered clearly with nothing changed.
import { beforeEach, describe, expect, it } from 'vitest';
import type { TestSandbox } from '../support/sandbox.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { type Receiver, resetFrozen, subscribeReceiver, useSandboxWithReceiver } from '../webhooks/receiver.js';

const T0 = '2026-11-28T10:00:00.000Z';
const PM = WELL_KNOWN.paymentMethods.card.id;
const WAITING = WELL_KNOWN.paymentServiceTokens.braintree.id;
const PROCESSING = WELL_KNOWN.paymentServiceTokens.adyen.id;
const page = (id: string, prefix = '') => `${prefix}/_sandbox/hosted/approvals/${id}`;
const BUTTONS = /<button type="submit" name="decision" value="(approve|decline|cancel)"/g;

describe('the hosted approval page', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  useSandboxWithReceiver((started) => ({ sb, receiver } = started));
  beforeEach(async () => {
    await resetFrozen(sb, T0, receiver);
    await subscribeReceiver(sb, receiver);
  });

  const tokens = (prefix = '') => sb.http.get(`${prefix}/payment-methods/${PM}/payment-service-tokens`).set('authorization', sb.auth).expect(200);
  const tokenOfApi = async (id: string, prefix = '') => (await tokens(prefix)).body.items.find((t: any) => t.id === id);
  const stored = (id: string) => sb.http.get(`/_sandbox/records/payment_service_tokens/${id}?shape=stored`).expect(200);
  const post = (path: string, form: Record<string, string>) => sb.http.post(path).type('form').send(form);
  const versionOf = (html: string) => /name="version" value="([^"]+)"/.exec(html)?.[1] as string;

  it('shows the waiting token with three buttons; Approve makes it succeeded, announced, journaled, and a second visit shows the outcome only', async () => {
    const listed = await tokens();
    const waiting = listed.body.items.find((t: any) => t.id === WAITING);
    const origin = new URL(listed.request.url).origin;
    expect(waiting.approval_url).toBe(`${origin}${page(WAITING)}`);

    const shown = await sb.http
      .get(page(WAITING))
      .expect(200)
      .expect('content-type', /text\/html/);
    expect(shown.headers['cache-control']).toBe('no-store');
    expect(shown.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect([...shown.text.matchAll(BUTTONS)].map((m) => m[1])).toEqual(['approve', 'decline', 'cancel']);
    expect(shown.text).toContain('<dd>Default (default)</dd>');
    expect(shown.text).toContain('<dd>Braintree (braintree-card)</dd>');
    const card = (await sb.http.get(`/_sandbox/records/payment_methods/${PM}`).expect(200)).body;
    expect(shown.text).toContain(`<dd>visa ending in ${card.label}</dd>`);
    expect(shown.text).toContain(`action="${page(WAITING)}"`);

    const decided = await post(page(WAITING), { decision: 'approve', version: versionOf(shown.text) }).expect(303);
    expect(decided.headers.location).toBe(page(WAITING)); // no redirect_url: back to the page, which shows the outcome
    const after = await tokenOfApi(WAITING);
    expect(after).toMatchObject({ id: WAITING, status: 'succeeded', approval_url: null, updated_at: T0 });
    expect((await stored(WAITING)).body).toMatchObject({ status: 'succeeded', approval_url: null, approval_outcome: 'approved', approval_plan: null });

    const [note] = await receiver.waitFor(1, 'payment-service-token.updated');
    expect(note.verified).toBe(true);
    expect(note.event).toMatchObject({ name: 'payment-service-token.updated', merchant_account_id: 'default', created_at: T0 });
    expect(note.event.target).toEqual(after);

    const second = await sb.http.get(page(WAITING)).expect(200);
    expect(second.text).not.toMatch(BUTTONS);
    expect(second.text).toContain('The buyer approved this payment method.');

    const journal = (await sb.http.get('/_sandbox/requests?view=summary').expect(200)).body.items;
    expect(journal.map((e: any) => `${e.method} ${e.path} ${e.status}`)).toEqual(
      expect.arrayContaining([`GET ${page(WAITING)} 200`, `POST ${page(WAITING)} 303`]),
    );
  });

  it('Decline makes a token created waiting through the records API failed; Cancel (the buyer abandons) makes it failed with outcome cancelled', async () => {
    const outcomes: Array<[string, string]> = [];
    for (const decision of ['decline', 'cancel']) {
      const created = await sb.http
        .post('/_sandbox/records/payment_service_tokens')
        .send({ payment_method_id: PM, payment_service_id: WELL_KNOWN.paymentServices.stripe.id, status: 'buyer_approval_required', token: `tok_${decision}` })
        .expect(201);
      expect(created.body.approval_url).toBe(`${new URL(created.request.url).origin}${page(created.body.id)}`);
      const form = await sb.http.get(page(created.body.id)).expect(200);
      await post(page(created.body.id), { decision, version: versionOf(form.text) }).expect(303);
      expect(await tokenOfApi(created.body.id)).toMatchObject({ status: 'failed', approval_url: null });
      const outcome = (await stored(created.body.id)).body.approval_outcome;
      outcomes.push([decision, outcome]);
      expect((await sb.http.get(page(created.body.id)).expect(200)).text).not.toMatch(BUTTONS);
    }
    expect(outcomes).toEqual([
      ['decline', 'declined'],
      ['cancel', 'cancelled'],
    ]);
    expect((await receiver.waitFor(2, 'payment-service-token.updated')).map((n) => n.event.target.status)).toEqual(['failed', 'failed']);
  });

  it('redirects to the redirect URL set through the records API, with the outcome; refuses one that is not http or https where it is set', async () => {
    for (const bad of ['javascript:alert(1)', 'data:text/html,hi', 'ftp://shop.example/x', 'https://user:pw@shop.example/x', 'not a url']) {
      const refused = await sb.http.patch(`/_sandbox/records/payment_service_tokens/${WAITING}`).send({ redirect_url: bad }).expect(400);
      expect(refused.body.details.map((d: any) => d.pointer)).toContain('/redirect_url');
    }
    expect((await stored(WAITING)).body.redirect_url).toBeUndefined();
    await sb.http.patch(`/_sandbox/records/payment_service_tokens/${WAITING}`).send({ redirect_url: 'https://shop.example/return?cart=7' }).expect(200);
    const form = await sb.http.get(page(WAITING)).expect(200);
    const done = await post(page(WAITING), { decision: 'decline', version: versionOf(form.text) }).expect(303);
    const location = new URL(done.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe('https://shop.example/return');
    expect(Object.fromEntries(location.searchParams)).toEqual({ cart: '7', outcome: 'declined', payment_service_token_id: WAITING, status: 'failed' });
  });

  it('answers an unknown token, a token not waiting, a foreign namespace and a bad decision clearly, changing nothing', async () => {
    const before = (await sb.http.get('/_sandbox/records/payment_service_tokens?shape=stored&limit=1000').expect(200)).body.items;
    const unknown = '00000000-0000-4000-8000-00000000dead';
    for (const res of [await sb.http.get(page(unknown)), await post(page(unknown), { decision: 'approve', version: 'x' })]) {
      expect(res.status).toBe(404);
      expect(res.text).toContain(`No payment service token has id ${unknown} in namespace default`);
    }
    const notWaiting = await sb.http.get(page(PROCESSING)).expect(409);
    expect(notWaiting.text).toContain('This token is processing: it does not wait for the buyer.');
    expect(notWaiting.text).not.toMatch(BUTTONS);
    const postNotWaiting = await post(page(PROCESSING), { decision: 'approve', version: 'x' }).expect(409);
    expect(postNotWaiting.text).toContain('This post changed nothing.');

    // The default namespace's token opened in another namespace: not there, and the namespace is not created by looking.
    const foreign = await sb.http.get(page(WAITING, '/ns/other-team')).expect(404);
    expect(foreign.text).toContain('in namespace other-team');
    expect((await sb.http.get('/_sandbox/namespaces').expect(200)).body.items.map((n: any) => n.name)).not.toContain('other-team');

    const form = await sb.http.get(page(WAITING)).expect(200);
    for (const decision of ['', 'maybe']) {
      const bad = await post(page(WAITING), { decision, version: versionOf(form.text) }).expect(400);
      expect(bad.text).toContain('must be one of approve, decline, cancel');
    }
    expect((await sb.http.post(page(WAITING)).set('content-type', 'application/json').send('{"decision":"approve"}')).status).toBe(400);
    // A stale page (its version is not the token's state) changes nothing.
    const stale = await post(page(WAITING), { decision: 'approve', version: '2020-01-01T00:00:00.000Z' }).expect(409);
    expect(stale.text).toContain('This post changed nothing: the token changed since this page was made.');
    expect([...stale.text.matchAll(BUTTONS)].map((m) => m[1])).toEqual(['approve', 'decline', 'cancel']); // the page as it is now

    const after = (await sb.http.get('/_sandbox/records/payment_service_tokens?shape=stored&limit=1000').expect(200)).body.items;
    expect(after).toEqual(before);
    expect(receiver.of('payment-service-token.updated')).toEqual([]);
  });

  it('a replayed form post changes nothing and says so', async () => {
    const form = await sb.http.get(page(WAITING)).expect(200);
    await post(page(WAITING), { decision: 'approve', version: versionOf(form.text) }).expect(303);
    const record = (await stored(WAITING)).body;
    for (const decision of ['approve', 'decline']) {
      const replay = await post(page(WAITING), { decision, version: versionOf(form.text) }).expect(409);
      expect(replay.text).toContain(`This post changed nothing: the approval was already approved at ${T0}.`);
      expect(replay.text).not.toMatch(BUTTONS);
    }
    expect((await stored(WAITING)).body).toEqual(record);
    await receiver.waitFor(1, 'payment-service-token.updated');
    expect(receiver.of('payment-service-token.updated')).toHaveLength(1);
  });

  it("refuses a decision posted by another site's page (its Origin, or Origin: null), changing nothing; a link from the app opens the page (its own posts: the browser tests)", async () => {
    const form = await sb.http
      .get(page(WAITING))
      .set('sec-fetch-site', 'cross-site')
      .set('sec-fetch-mode', 'navigate')
      .set('sec-fetch-dest', 'document')
      .expect(200);
    const record = (await stored(WAITING)).body;
    for (const origin of ['https://evil.example', 'null']) {
      const refused = await post(page(WAITING), { decision: 'approve', version: versionOf(form.text) })
        .set('origin', origin)
        .expect(403);
      expect(refused.body).toMatchObject({ type: 'error', code: 'forbidden', status: 403 });
      expect(refused.body.details[0]).toMatchObject({ location: 'header', pointer: '/origin' });
    }
    expect((await stored(WAITING)).body).toEqual(record);
    expect(receiver.of('payment-service-token.updated')).toEqual([]);
  });

  it('in a namespace: approval_url carries its prefix (path or header), and the page decides there only', async () => {
    const prefix = '/ns/team-hosted';
    await sb.http.post(`${prefix}/_sandbox/reset`).expect(200);
    const byPath = await tokenOfApi(WAITING, prefix);
    const viaHeader = await sb.http
      .get(`/payment-methods/${PM}/payment-service-tokens`)
      .set('authorization', sb.auth)
      .set('x-sandbox-namespace', 'team-hosted');
    const headerUrl = viaHeader.body.items.find((t: any) => t.id === WAITING).approval_url;
    expect(new URL(byPath.approval_url).pathname).toBe(page(WAITING, prefix));
    expect(new URL(headerUrl).pathname).toBe(page(WAITING, prefix));
    const form = await sb.http.get(page(WAITING, prefix)).expect(200);
    expect(form.text).toContain(`action="${page(WAITING, prefix)}"`);
    expect(form.text).toContain(`href="${prefix}/_sandbox/console/assets/console.css"`);
    await post(page(WAITING, prefix), { decision: 'approve', version: versionOf(form.text) }).expect(303);
    expect((await tokenOfApi(WAITING, prefix)).status).toBe('succeeded');
    expect((await tokenOfApi(WAITING)).status).toBe('buyer_approval_required'); // default untouched
  });

  it('builds approval_url from the address the client used: a LAN address and port, as a phone reaches the sandbox', async () => {
    const lan = await sb.http.get(`/payment-methods/${PM}/payment-service-tokens`).set('authorization', sb.auth).set('host', '192.168.1.20:4010').expect(200);
    expect(lan.body.items.find((t: any) => t.id === WAITING).approval_url).toBe(`http://192.168.1.20:4010${page(WAITING)}`);
    const record = await sb.http.get(`/_sandbox/records/payment_service_tokens/${WAITING}`).set('host', '10.0.0.7:8443').expect(200);
    expect(record.body.approval_url).toBe(`http://10.0.0.7:8443${page(WAITING)}`);
  });

  it("a payment method whose approval_url is a token's page follows the token; another URL is shown as stored", async () => {
    const methods = () => sb.http.get('/buyers/payment-methods').set('authorization', sb.auth).expect(200);
    const methodOf = async (id: string) => (await methods()).body.items.find((m: any) => m.id === id);
    await sb.http
      .patch(`/_sandbox/records/payment_methods/${PM}`)
      .send({ approval_url: `https://anywhere.example${page(WAITING)}` })
      .expect(200);
    const listed = await methods();
    expect(listed.body.items.find((m: any) => m.id === PM).approval_url).toBe(`${new URL(listed.request.url).origin}${page(WAITING)}`);
    const other = WELL_KNOWN.paymentMethods.cardGb.id;
    await sb.http.patch(`/_sandbox/records/payment_methods/${other}`).send({ approval_url: 'https://provider.example/approve/42' }).expect(200);
    expect((await methodOf(other)).approval_url).toBe('https://provider.example/approve/42');
    await sb.http.post(`/_sandbox/payment-service-tokens/${WAITING}/approval`).send({ decision: 'approve' }).expect(200);
    expect((await methodOf(PM)).approval_url).toBeNull();
    expect((await methodOf(other)).approval_url).toBe('https://provider.example/approve/42');
  });

  it('a token set back to waiting through the records API waits afresh: no outcome, and a post of the old page changes nothing', async () => {
    const first = await sb.http.get(page(WAITING)).expect(200);
    await post(page(WAITING), { decision: 'decline', version: versionOf(first.text) }).expect(303);
    await sb.http
      .patch(`/_sandbox/records/payment_service_tokens/${WAITING}`)
      .send({ status: 'buyer_approval_required', updated_at: '2026-11-28T10:05:00.000Z' })
      .expect(200);
    expect((await stored(WAITING)).body).toMatchObject({ status: 'buyer_approval_required', approval_outcome: null });
    expect((await tokenOfApi(WAITING)).approval_url).toMatch(new RegExp(`${page(WAITING)}$`));
    await post(page(WAITING), { decision: 'approve', version: versionOf(first.text) }).expect(409);
    expect((await stored(WAITING)).body.status).toBe('buyer_approval_required');
    const again = await sb.http.get(page(WAITING)).expect(200);
    await post(page(WAITING), { decision: 'approve', version: versionOf(again.text) }).expect(303);
    expect((await stored(WAITING)).body).toMatchObject({ status: 'succeeded', approval_outcome: 'approved' });
  });
});
