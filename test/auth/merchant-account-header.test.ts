// A mistake in the merchant account header's name is never silent: a header ending in
// -merchant-account-id other than x-service-merchant-account-id is a 400 naming the header the
// sandbox reads (a client generated for another header name would otherwise act on `default`),
// unless it was configured as an alias (--merchant-account-header). The journal records the
// merchant account every request acted on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const PRIMARY = 'x-service-merchant-account-id';
const ALIAS = 'x-gr4vy-merchant-account-id';
const BUYER = WELL_KNOWN.buyers.default.id;
const BUYER_TWO = WELL_KNOWN.buyers.merchantTwo.id;

/** The 400 a misnamed header gets, every field of the body. */
function expectMisnamed(res: { status: number; headers: Record<string, string>; body: any }, name: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.headers['content-type']).toBe('application/json');
  expectErrorBody(res.body, 400, 'bad_request');
  expect(res.body).toEqual({
    type: 'error',
    code: 'bad_request',
    status: 400,
    message: `Header '${name}' is not read by this sandbox: the merchant account is chosen with '${PRIMARY}'. Rename the header, or start the sandbox with --merchant-account-header ${name} to read it as an alias; the request was not run, so it did not act on merchant account 'default' by mistake.`,
    details: [{ location: 'header', pointer: `/${name}`, type: 'header_misnamed', message: `Send the merchant account in '${PRIMARY}', not '${name}'.` }],
  });
}

describe('merchant account header names', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb?.server.close());
  beforeEach(async () => {
    sb.deps.namespaces.reset('default');
    await sb.http.delete('/_sandbox/requests');
  });
  const giftCards = (headers: Record<string, string>) => sb.http.get('/gift-cards?limit=3').set('authorization', sb.auth).set(headers);
  const journal = async () => (await sb.http.get('/_sandbox/requests')).body.items;
  const storedBuyer = (id: string) => structuredClone(sb.deps.namespaces.get().store.collections.buyers.get(id));

  it('answers 400 naming the header it reads for any other header ending in -merchant-account-id, in any spelling', async () => {
    for (const [sent, named] of [
      [ALIAS, ALIAS],
      ['X-Gr4vy-Merchant-Account-Id', ALIAS],
      ['x-merchant-account-id', 'x-merchant-account-id'],
      ['merchant-account-id', 'merchant-account-id'],
      ['X_Service_Merchant_Account_Id', 'x_service_merchant_account_id'],
      ['x-service-merchant-account-id-2', null],
    ] as const) {
      const res = await giftCards({ [sent]: 'merchant-two' });
      if (named === null) {
        expect(res.status).toBe(200); // does not end in -merchant-account-id
        continue;
      }
      expectMisnamed(res, named);
    }
    // Journaled with the status, and no merchant account: the request never got one.
    const [entry] = await journal();
    expect(entry).toMatchObject({ status: 200, operation_id: 'listGiftCards', merchant_account_id: 'default' });
    const refused = (await journal()).filter((e: any) => e.status === 400);
    expect(refused).toHaveLength(5);
    for (const e of refused) expect(e).toMatchObject({ operation_id: 'listGiftCards', merchant_account_id: null, response_body: { code: 'bad_request' } });
  });

  it('never acts on default by mistake: a write with a misnamed header changes nothing', async () => {
    const before = storedBuyer(BUYER);
    const res = await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).set(ALIAS, 'merchant-two').send({ display_name: 'Written by mistake' });
    expectMisnamed(res, ALIAS);
    expect(storedBuyer(BUYER)).toEqual(before);
    // Sent beside the right header too: still refused.
    const both = await sb.http
      .put(`/buyers/${BUYER_TWO}`)
      .set('authorization', sb.auth)
      .set(PRIMARY, 'merchant-two')
      .set('x-merchant-account-id', 'merchant-two')
      .send({ display_name: 'Nope' });
    expectMisnamed(both, 'x-merchant-account-id');
    expect(storedBuyer(BUYER_TWO)!.display_name).not.toBe('Nope');
  });

  it('checks the header before the token, on public operations too', async () => {
    expectMisnamed(await sb.http.get('/gift-cards').set(ALIAS, 'default'), ALIAS);
    expectMisnamed(await sb.http.get('/gift-cards').set('authorization', 'Bearer nonsense').set(ALIAS, 'default'), ALIAS);
    const clickToPay = await sb.http
      .post('/digital-wallets/click-to-pay/session')
      .set(ALIAS, 'default')
      .send({ checkout_session_id: WELL_KNOWN.checkoutSessions.default.id });
    expectMisnamed(clickToPay, ALIAS);
    // In process (app.request(), no Node request underneath): the same check.
    const inProcess = await createApp(sb.deps).request('/gift-cards', { headers: { authorization: sb.auth, [ALIAS]: 'default' } });
    expectMisnamed({ status: inProcess.status, headers: { 'content-type': inProcess.headers.get('content-type')! }, body: await inProcess.json() }, ALIAS);
  });

  it('reads its own header in any letter case, and ignores names that do not end in -merchant-account-id', async () => {
    const two = await giftCards({ 'X-Service-Merchant-Account-Id': 'merchant-two' });
    expect(two.status).toBe(200);
    for (const card of two.body.items) expect(card.merchant_account_id).toBe('merchant-two');
    for (const name of ['x-merchant-account', 'x-merchant-id', 'x-account-id', 'x-merchant-account-ids', 'merchantaccountid']) {
      const res = await giftCards({ [name]: 'merchant-two' });
      expect(res.status, name).toBe(200);
      expect(res.body.items[0].merchant_account_id).toBe('default');
    }
  });

  it('records the effective merchant account of every request in the journal', async () => {
    await giftCards({ [PRIMARY]: 'merchant-two' }).expect(200);
    await sb.http.get('/gift-cards').expect(401);
    await giftCards({ [PRIMARY]: 'no-such-account' }).expect(403);
    await sb.http.get('/no-such-path').set('authorization', sb.auth).expect(404);
    await sb.http.delete('/gift-cards').set('authorization', sb.auth).expect(405);
    await giftCards({}).expect(200);
    const empty = await giftCards({ [PRIMARY]: '' }).expect(400); // names no account: none is recorded
    expect(empty.body.message).toBe(`Request is invalid: Header parameter '${PRIMARY}' must have at least 1 character.`);
    const long = await giftCards({ [PRIMARY]: 'a'.repeat(5000) }).expect(403); // kept as the message shows it: 100 characters
    expect(long.body.message).toBe(`Merchant account '${'a'.repeat(100)}' does not exist or is not accessible (header ${PRIMARY}).`);
    const entries = (await journal()).map((e: any) => [e.path, e.status, e.merchant_account_id]);
    expect(entries).toEqual([
      ['/gift-cards', 403, 'a'.repeat(100)],
      ['/gift-cards', 400, null],
      ['/gift-cards', 200, 'default'],
      ['/gift-cards', 405, null],
      ['/no-such-path', 404, null],
      ['/gift-cards', 403, 'no-such-account'],
      ['/gift-cards', 401, 'default'],
      ['/gift-cards', 200, 'merchant-two'],
    ]);
  });
});

describe('merchant account header aliases (--merchant-account-header)', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    // As startSandbox() takes it from code: any case, the sandbox's own header harmless.
    sb = await startTestSandbox({ merchantAccountHeaders: ['X-Gr4vy-Merchant-Account-Id', PRIMARY] });
  });
  afterAll(() => sb?.server.close());
  beforeEach(async () => {
    sb.deps.namespaces.reset('default');
    await sb.http.delete('/_sandbox/requests');
  });
  const giftCards = (headers: Record<string, string>) => sb.http.get('/gift-cards?limit=3').set('authorization', sb.auth).set(headers);

  it('chooses the merchant account with the alias exactly as with the header the sandbox reads', async () => {
    const byPrimary = await giftCards({ [PRIMARY]: 'merchant-two' });
    const byAlias = await giftCards({ [ALIAS]: 'merchant-two' });
    expect(byAlias.status).toBe(200);
    expect(byAlias.body).toEqual(byPrimary.body);
    for (const card of byAlias.body.items) expect(card.merchant_account_id).toBe('merchant-two');
    const put = await sb.http
      .put(`/buyers/${BUYER_TWO}`)
      .set('authorization', sb.auth)
      .set('X-GR4VY-MERCHANT-ACCOUNT-ID', 'merchant-two')
      .send({ display_name: 'Via alias' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: BUYER_TWO, merchant_account_id: 'merchant-two', display_name: 'Via alias' });
    expect(sb.deps.namespaces.get().store.collections.buyers.get(BUYER_TWO)!.display_name).toBe('Via alias');
    const [entry] = (await sb.http.get('/_sandbox/requests')).body.items;
    expect(entry).toMatchObject({ operation_id: 'updateBuyer', status: 200, merchant_account_id: 'merchant-two' });
  });

  it('takes the alias and the header together when they agree, and refuses them when they do not', async () => {
    expect((await giftCards({ [PRIMARY]: 'merchant-two', [ALIAS]: 'merchant-two' })).status).toBe(200);
    const res = await giftCards({ [PRIMARY]: 'default', [ALIAS]: 'merchant-two' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: `Headers '${PRIMARY}' ('default') and '${ALIAS}' ('merchant-two') both choose the merchant account, differently: send one of them.`,
      details: [
        {
          location: 'header',
          pointer: `/${ALIAS}`,
          type: 'header_conflict',
          message: `'${ALIAS}' names merchant account 'merchant-two', but '${PRIMARY}' names 'default'.`,
        },
      ],
    });
  });

  it('refuses an empty alias, an account that does not exist, and still any other misnamed header', async () => {
    const empty = await giftCards({ [ALIAS]: '' });
    expect(empty.status).toBe(400);
    expectErrorBody(empty.body, 400, 'bad_request');
    expect(empty.body.details).toEqual([
      { location: 'header', pointer: `/${ALIAS}`, type: 'string_too_short', message: `Header '${ALIAS}' must have at least 1 character.` },
    ]);
    const unknown = await giftCards({ [ALIAS]: 'no-such-account' });
    expect(unknown.status).toBe(403);
    expectErrorBody(unknown.body, 403, 'forbidden');
    // The 403 names the header the caller chose the account with.
    expect(unknown.body.message).toBe(`Merchant account 'no-such-account' does not exist or is not accessible (header ${ALIAS}).`);
    const viaPrimary = await giftCards({ [PRIMARY]: 'no-such-account' });
    expect(viaPrimary.body.message).toBe(`Merchant account 'no-such-account' does not exist or is not accessible (header ${PRIMARY}).`);
    const both = await giftCards({ [PRIMARY]: 'no-such-account', [ALIAS]: 'no-such-account' });
    expect(both.body.message).toBe(`Merchant account 'no-such-account' does not exist or is not accessible (header ${ALIAS}).`);
    expectMisnamed(await giftCards({ [ALIAS]: 'merchant-two', 'x-other-merchant-account-id': 'default' }), 'x-other-merchant-account-id');
  });
});
