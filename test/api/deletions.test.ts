// The four DELETE operations: 204 without body or content type, the record gone (a second delete is
// 404), records of another merchant account untouchable, and the anti-fraud cascade.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectForbidden, expectJson, expectMethodNotAllowed, expectNoContent, expectNotFound, MERCHANT_HEADER, store } from './support.js';

type Collections = ReturnType<typeof store>;
const CASES = [
  {
    path: '/checkout/sessions',
    param: 'checkout_session_id',
    collection: 'checkout_sessions',
    ids: WELL_KNOWN.checkoutSessions,
    scope: 'checkout-sessions.write',
  },
  {
    path: '/anti-fraud-services',
    param: 'anti_fraud_service_id',
    collection: 'anti_fraud_services',
    ids: WELL_KNOWN.antiFraudServices,
    scope: 'anti-fraud-services.write',
  },
  {
    path: '/apple-pay-certificates',
    param: 'apple_pay_certificate_id',
    collection: 'apple_pay_certificates',
    ids: WELL_KNOWN.applePayCertificates,
    scope: 'apple-pay-certificates.write',
  },
  {
    path: '/webhook-subscriptions',
    param: 'subscription_id',
    collection: 'webhook_subscriptions',
    ids: WELL_KNOWN.webhookSubscriptions,
    scope: 'webhook-subscriptions.write',
  },
] as const;

describe('DELETE operations', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  beforeEach(() => sb.deps.namespaces.reset('default'));
  afterAll(() => sb?.server.close());

  const del = (path: string, merchant?: string, auth = sb.auth) => {
    const req = sb.http.delete(path).set('authorization', auth);
    return merchant ? req.set(MERCHANT_HEADER, merchant) : req;
  };
  const has = (collection: keyof Collections, id: string) => Boolean(store(sb)[collection].get(id));

  for (const c of CASES) {
    describe(`DELETE ${c.path}/{${c.param}}`, () => {
      it('answers 204 with no body, and the record is gone: a second delete is 404', async () => {
        const size = store(sb)[c.collection].size;
        expectNoContent(await del(`${c.path}/${c.ids.default.id}`));
        expect(has(c.collection, c.ids.default.id)).toBe(false);
        expect(store(sb)[c.collection].size).toBe(size - 1);
        expectNotFound(await del(`${c.path}/${c.ids.default.id}`));
      });

      it('is 404 for a record of another merchant account, which stays', async () => {
        expectNotFound(await del(`${c.path}/${c.ids.merchantTwo.id}`));
        expect(has(c.collection, c.ids.merchantTwo.id)).toBe(true);
        expectNotFound(await del(`${c.path}/${c.ids.default.id}`, 'merchant-two'));
        expectNoContent(await del(`${c.path}/${c.ids.merchantTwo.id}`, 'merchant-two'));
        expect(has(c.collection, c.ids.merchantTwo.id)).toBe(false);
        expect(has(c.collection, c.ids.default.id)).toBe(true);
      });

      it('is 404 for an unknown id, 400 for a non-uuid id, 405 for another method', async () => {
        expectNotFound(await del(`${c.path}/00000000-0000-4000-8000-0000000000ff`));
        expectBadRequest(await del(`${c.path}/not-a-uuid`), [{ location: 'path', pointer: `/${c.param}`, type: 'uuid_parsing' }]);
        expectMethodNotAllowed(await sb.http.get(`${c.path}/${c.ids.default.id}`).set('authorization', sb.auth), 'DELETE', 'GET', `${c.path}/{${c.param}}`);
        expect(has(c.collection, c.ids.default.id)).toBe(true);
      });

      it(`needs ${c.scope}`, async () => {
        const readOnly = `Bearer ${await tokenFor('admin', { scopes: ['*.read'] })}`;
        expectForbidden(await del(`${c.path}/${c.ids.default.id}`, undefined, readOnly));
        expect(has(c.collection, c.ids.default.id)).toBe(true);
        expectNoContent(await del(`${c.path}/${c.ids.default.id}`, undefined, `Bearer ${await tokenFor('admin', { scopes: [c.scope] })}`));
      });
    });
  }

  it('deleting an anti-fraud service removes its credentials and exactly the connection with its id', async () => {
    const service = WELL_KNOWN.antiFraudServices.default.id;
    const creds = WELL_KNOWN.antiFraudServiceCredentials;
    const connections = async () => {
      const res = await sb.http.get('/connections').set('authorization', sb.auth);
      expectJson(res, 200);
      return res.body.items;
    };
    const before = await connections();
    expect(before.filter((c: any) => c.id === service)).toEqual([
      {
        type: 'connection',
        id: service,
        name: 'Sift',
        active: true,
        silent: false,
        definition: {
          id: WELL_KNOWN.antiFraudServices.default.definitionId,
          type: 'connection-definition',
          name: 'Sift',
          count: 1,
          group: 'anti-fraud-service',
          category: 'anti-fraud',
          icon_url: 'https://cdn.payments-sandbox.example/icons/sift.svg',
          provider: 'sift',
        },
      },
    ]);
    expect(
      store(sb)
        .anti_fraud_service_credentials.where((x) => x.anti_fraud_service_id === service)
        .map((x) => x.id)
        .sort(),
    ).toEqual([creds.apiKey.id, creds.accountId.id]);
    const otherCredentials = store(sb).anti_fraud_service_credentials.size - 2;

    expectNoContent(await del(`/anti-fraud-services/${service}`));
    expect(store(sb).anti_fraud_service_credentials.get(creds.apiKey.id)).toBeUndefined();
    expect(store(sb).anti_fraud_service_credentials.get(creds.accountId.id)).toBeUndefined();
    expect(store(sb).anti_fraud_service_credentials.size).toBe(otherCredentials);
    expect(store(sb).anti_fraud_services.get(service)).toBeUndefined();
    // Every other connection is unchanged, in the same order.
    expect(await connections()).toEqual(before.filter((c: any) => c.id !== service));
    expectNotFound(await del(`/anti-fraud-services/${service}`));
  });

  it('deleting a webhook subscription is permanent, also in another namespace untouched', async () => {
    const id = WELL_KNOWN.webhookSubscriptions.default.id;
    expectNoContent(await del(`/webhook-subscriptions/${id}`));
    expectNotFound(await del(`/webhook-subscriptions/${id}`));
    const other = await sb.http.delete(`/ns/isolated-run/webhook-subscriptions/${id}`).set('authorization', sb.auth);
    expectNoContent(other);
    expectNotFound(await del(`/webhook-subscriptions/${id}`));
  });
});
