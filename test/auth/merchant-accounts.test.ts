// Merchant accounts (the header, limited pairs, invisible records), the public Click to Pay
// operation and `auth: 'none'`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { calls, nowSeconds, privateKeyOf, signRaw } from './support.js';

function expect403(res: { status: number; body: any }, message: RegExp): void {
  expect(res.status).toBe(403);
  expectErrorBody(res.body, 403, 'forbidden');
  expect(res.body.message).toMatch(message);
}

describe('merchant accounts', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb?.server.close());

  it('a pair with an empty list acts on every merchant account', async () => {
    expect((await calls.read(sb, sb.auth, 'merchant-two')).status).toBe(200);
    expect((await calls.read(sb, sb.auth, 'default')).status).toBe(200);
  });

  it('the read-only pair (limited to default) reads default, gets 403 on merchant-two and on writes', async () => {
    const auth = `Bearer ${await tokenFor('read-only')}`;
    expect((await calls.read(sb, auth)).status).toBe(200);
    expect((await calls.read(sb, auth, 'default')).status).toBe(200);
    expect403(
      await calls.read(sb, auth, 'merchant-two'),
      new RegExp(`^API key pair ${WELL_KNOWN.keyPairs.readOnly.id} may not act on merchant account 'merchant-two'; it is limited to: default\\.$`),
    );
    expect403(await calls.updateBuyer(sb, auth), /Missing scope 'buyers.write'/);
  });

  it('a merchant account that does not exist is a 403 naming it', async () => {
    expect403(await calls.read(sb, sb.auth, 'no-such-account'), /^Merchant account 'no-such-account' does not exist or is not accessible/);
  });

  it('records of another merchant account are a 404, and found in their own account', async () => {
    const other = await sb.http.put(`/buyers/${WELL_KNOWN.buyers.merchantTwo.id}`).set('authorization', sb.auth).send({ display_name: 'Moved?' });
    expect(other.status).toBe(404);
    expectErrorBody(other.body, 404, 'not_found');
    expect(other.body.message).not.toMatch(/merchant-two/);
    const own = await sb.http
      .put(`/buyers/${WELL_KNOWN.buyers.merchantTwo.id}`)
      .set('authorization', sb.auth)
      .set('x-service-merchant-account-id', 'merchant-two')
      .send({ display_name: 'Renamed in merchant-two' });
    expect(own.status).toBe(200);
    expect(own.body.merchant_account_id).toBe('merchant-two');
    expect(own.body.display_name).toBe('Renamed in merchant-two');
    const defaultBuyer = await sb.http
      .put(`/buyers/${WELL_KNOWN.buyers.default.id}`)
      .set('authorization', sb.auth)
      .set('x-service-merchant-account-id', 'merchant-two')
      .send({ display_name: 'Nope' });
    expect(defaultBuyer.status).toBe(404);
  });

  it('lists show only the records of the selected account', async () => {
    const inDefault = await sb.http.get('/gift-cards').set('authorization', sb.auth);
    const inTwo = await sb.http.get('/gift-cards').set('authorization', sb.auth).set('x-service-merchant-account-id', 'merchant-two');
    expect(inDefault.status).toBe(200);
    expect(inTwo.status).toBe(200);
    expect(inDefault.body.items.every((g: any) => g.merchant_account_id === 'default')).toBe(true);
    expect(inTwo.body.items.map((g: any) => g.id)).toContain(WELL_KNOWN.giftCards.merchantTwo.id);
    expect(inTwo.body.items.every((g: any) => g.merchant_account_id === 'merchant-two')).toBe(true);
  });
});

describe('Click to Pay session needs no credentials', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb?.server.close());

  const clickToPay = (auth?: string) => {
    const req = sb.http.post('/digital-wallets/click-to-pay/session');
    return (auth === undefined ? req : req.set('authorization', auth)).send({ checkout_session_id: WELL_KNOWN.checkoutSessions.default.id });
  };

  it('succeeds without Authorization and ignores any Authorization sent', async () => {
    const expired = await signRaw({ key: privateKeyOf('admin'), alg: 'ES512', kid: 'whatever', exp: nowSeconds() - 3600 });
    for (const auth of [undefined, 'Basic abc', 'Bearer garbage', `Bearer ${expired}`, `Bearer ${await tokenFor('inactive')}`]) {
      const res = await clickToPay(auth);
      expect(res.status, String(auth)).toBe(200);
      expect(res.body).toEqual({ digital_payment_application_id: 'sandbox-dpa-default', digital_payment_application_name: 'Default' });
    }
  });

  it('still answers 404 for an unknown checkout session', async () => {
    const res = await sb.http.post('/digital-wallets/click-to-pay/session').send({ checkout_session_id: 'd1000000-0000-4000-8000-0000000000ff' });
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 404, 'not_found');
  });
});

describe("auth: 'none'", () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ auth: 'none' });
  });
  afterAll(() => sb?.server.close());

  it('accepts requests without Authorization, and with any Authorization', async () => {
    expect((await sb.http.get('/card-scheme-definitions')).status).toBe(200);
    expect((await sb.http.get('/card-scheme-definitions').set('authorization', 'Bearer garbage')).status).toBe(200);
    expect((await sb.http.get('/card-scheme-definitions').set('authorization', `Bearer ${await tokenFor('inactive')}`)).status).toBe(200);
    expect((await calls.updateBuyer(sb, 'Basic x', 'default')).status).toBe(200);
    expect((await calls.read(sb, 'Bearer x', 'merchant-two')).status).toBe(200);
  });

  it('creates reports and key pairs with null creator fields', async () => {
    const report = await sb.http
      .post('/reports')
      .send({ name: 'No auth', schedule: 'once', schedule_enabled: false, spec: { model: 'transactions', params: {} } });
    expect(report.status).toBe(201);
    expect(report.body.creator_id).toBeNull();
    expect(report.body.creator_display_name).toBeNull();
    expect(report.body.creator_type).toBeNull();
    const pair = await sb.http
      .post('/api-key-pairs')
      .send({ display_name: 'No auth pair', role_ids: [WELL_KNOWN.roles.admin.id], merchant_account_ids: ['merchant-two'] });
    expect(pair.status).toBe(201);
    expect(pair.body.creator).toBeNull();
    expect(pair.body.merchant_accounts).toEqual([
      {
        type: 'merchant-account',
        id: 'merchant-two',
        display_name: 'Merchant Two',
        created_at: '2025-01-02T09:00:00.000Z',
        updated_at: '2025-01-02T09:00:00.000Z',
      },
    ]);
  });

  it('still refuses a merchant account that does not exist', async () => {
    expect403(await sb.http.get('/card-scheme-definitions').set('x-service-merchant-account-id', 'nowhere'), /Merchant account 'nowhere' does not exist/);
  });
});
