// Read-only configuration lists: GET /connections, /flows/{flow},
// /vault-forward/configs/{id}/authentications and /card-scheme-definitions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectJson, expectMethodNotAllowed, expectNotFound, ISO, MERCHANT_HEADER, store, UUID } from './support.js';

const FLOWS = ['checkout', 'card-transaction', 'non-card-transaction', 'redirect-transaction'] as const;

describe('configuration lists', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb?.server.close());
  const get = (path: string, merchant?: string) => {
    const req = sb.http.get(path).set('authorization', sb.auth);
    return merchant ? req.set(MERCHANT_HEADER, merchant) : req;
  };

  describe('GET /connections', () => {
    // The configured services of each kind, in the order the list shows them, with their group.
    const SOURCES = [
      ['payment_services', 'payment-service', 'payment_service_definition_id'],
      ['anti_fraud_services', 'anti-fraud-service', 'anti_fraud_service_definition_id'],
      ['gift_card_services', 'gift-card-service', 'gift_card_service_definition_id'],
      ['digital_wallets', 'digital-wallet', 'digital_wallet_definition_id'],
    ] as const;
    /** The connections the reference implies for the account: its services of every kind, each as one connection. */
    const expectedConnections = (merchant: string) => {
      const services = SOURCES.flatMap(([collection, group, definitionField]) =>
        (store(sb)[collection].where((s) => s.merchant_account_id === merchant) as any[]).map((s) => ({ s, group, definitionId: s[definitionField] })),
      );
      return services.map(({ s, group, definitionId }) => ({
        type: 'connection',
        id: s.id,
        name: s.display_name,
        active: s.active,
        silent: s.silent,
        definition: {
          id: definitionId,
          type: 'connection-definition',
          name: s.definition.name,
          count: services.filter((o) => o.definitionId === definitionId).length,
          group,
          category: s.definition.category,
          icon_url: s.definition.icon_url,
          provider: s.definition.provider,
        },
      }));
    };

    it('lists every configured service of the merchant account as the connection with its id, every field', async () => {
      const res = await get('/connections');
      expectJson(res, 200);
      expect(Object.keys(res.body)).toEqual(['items']);
      expect(res.body.items).toEqual(expectedConnections('default'));
      const byId = (id: string) => res.body.items.find((c: any) => c.id === id);
      expect(byId(WELL_KNOWN.paymentServices.stripe.id)).toEqual({
        type: 'connection',
        id: WELL_KNOWN.paymentServices.stripe.id,
        name: 'Stripe',
        active: true,
        silent: false,
        definition: {
          id: 'stripe-card',
          type: 'connection-definition',
          name: 'Stripe',
          count: 1,
          group: 'payment-service',
          category: 'card',
          icon_url: 'https://cdn.payments-sandbox.example/icons/stripe.svg',
          provider: 'stripe',
        },
      });
      expect(byId(WELL_KNOWN.digitalWallets.googlePay.id)).toEqual({
        type: 'connection',
        id: WELL_KNOWN.digitalWallets.googlePay.id,
        name: 'Google Pay',
        active: true,
        silent: false,
        definition: {
          id: 'google-pay',
          type: 'connection-definition',
          name: 'Google Pay',
          count: 1,
          group: 'digital-wallet',
          category: 'wallet',
          icon_url: 'https://cdn.payments-sandbox.example/icons/google.svg',
          provider: 'google',
        },
      });
      const ofGroup = (group: string) => res.body.items.filter((c: any) => c.definition.group === group).map((c: any) => c.id);
      expect(ofGroup('anti-fraud-service')).toContain(WELL_KNOWN.antiFraudServices.default.id);
      expect(ofGroup('gift-card-service')).toEqual([WELL_KNOWN.giftCardServices.default.id, WELL_KNOWN.giftCardServices.defaultSecond.id]);
      expect(ofGroup('digital-wallet')).toEqual([WELL_KNOWN.digitalWallets.applePay.id, WELL_KNOWN.digitalWallets.googlePay.id]);
      // The inactive services of the fixtures: an inactive payment service, a silent inactive anti-fraud service.
      expect(res.body.items.filter((c: any) => !c.active).map((c: any) => [c.definition.group, c.silent])).toEqual([
        ['payment-service', false],
        ['anti-fraud-service', true],
      ]);
      expect(new Set(res.body.items.map((c: any) => c.id)).size).toBe(res.body.items.length);
    });

    it('lists only merchant-two connections under its header', async () => {
      const res = await get('/connections', 'merchant-two');
      expectJson(res, 200);
      expect(res.body.items).toEqual(expectedConnections('merchant-two'));
      expect(res.body.items.map((c: any) => c.definition.group)).toEqual(['payment-service', 'anti-fraud-service', 'gift-card-service', 'digital-wallet']);
      expect(res.body.items.map((c: any) => c.id).slice(0, 3)).toEqual([
        WELL_KNOWN.paymentServices.merchantTwo.id,
        WELL_KNOWN.antiFraudServices.merchantTwo.id,
        WELL_KNOWN.giftCardServices.merchantTwo.id,
      ]);
      expectMethodNotAllowed(await sb.http.delete('/connections').set('authorization', sb.auth), 'GET', 'DELETE', '/connections');
    });
  });

  describe('GET /flows/{flow}', () => {
    it('lists the rules of each flow by position, every field', async () => {
      for (const flow of FLOWS) {
        const res = await get(`/flows/${flow}`);
        expectJson(res, 200);
        const expected = store(sb)
          .flow_rules.where((r) => r.merchant_account_id === 'default' && r.flow === flow)
          .sort((a, b) => a.position - b.position);
        expect(res.body).toEqual({ items: expected });
        expect(res.body.items.length).toBeGreaterThan(0);
        expect(res.body.items.map((r: any) => r.position)).toEqual(expected.map((_, i) => i + 1));
        for (const r of res.body.items) {
          expect(Object.keys(r).sort()).toEqual([
            'action',
            'conditions',
            'created_at',
            'description',
            'error_code',
            'flow',
            'id',
            'merchant_account_id',
            'outcome',
            'position',
            'type',
            'updated_at',
          ]);
          expect(r.type).toBe('rule');
          expect(r.id).toMatch(UUID);
          expect(r.created_at).toMatch(ISO);
        }
      }
    });

    it('serves the well-known rules exactly', async () => {
      const card = (await get('/flows/card-transaction')).body.items[0];
      expect(card).toMatchObject({
        id: WELL_KNOWN.flowRules.cardTransactionFirst.id,
        merchant_account_id: 'default',
        flow: 'card-transaction',
        position: 1,
        description: 'Small USD card payments to Stripe, network token first',
        action: 'route-transaction',
        conditions: [{ name: 'amount', operator: 'less_than', value: { currency: 'USD', value: 1000, description: 'Below 10.00 USD' } }],
        outcome: {
          type: 'card-routing',
          result: [
            { payment_service_id: WELL_KNOWN.paymentServices.stripe.id, instrument: 'network_token', transformations: [{ name: 'force_mit' }] },
            { payment_service_id: WELL_KNOWN.paymentServices.stripe.id, instrument: 'pan', transformations: [{ name: 'force_mit' }] },
          ],
        },
      });
      expect(Number.isInteger(card.outcome.version)).toBe(true);
      expect((await get('/flows/non-card-transaction')).body.items[0]).toMatchObject({ id: WELL_KNOWN.flowRules.declineEarly.id, action: 'decline-early' });
      expect((await get('/flows/checkout')).body.items[0].id).toBe(WELL_KNOWN.flowRules.checkoutFirst.id);
      expect((await get('/flows/redirect-transaction')).body.items[0].id).toBe(WELL_KNOWN.flowRules.redirectFirst.id);
    });

    it('lists merchant-two rules under its header, and refuses an unknown flow', async () => {
      const two = await get('/flows/card-transaction', 'merchant-two');
      expect(two.body.items.length).toBeGreaterThan(0);
      for (const r of two.body.items) expect(r.merchant_account_id).toBe('merchant-two');
      expect((await get('/flows/checkout', 'merchant-two')).body).toEqual({ items: [] });
      expectBadRequest(await get('/flows/payout'), [{ location: 'path', pointer: '/flow', type: 'enum' }]);
      expectNotFound(await get('/flows'));
    });
  });

  describe('GET /vault-forward/configs/{config_id}/authentications', () => {
    const CONFIG = WELL_KNOWN.vaultForwardConfigs.default.id;

    it('lists the authentications of the config, every field', async () => {
      const res = await get(`/vault-forward/configs/${CONFIG}/authentications`);
      expectJson(res, 200);
      const auth = WELL_KNOWN.vaultForwardAuthentications;
      expect(res.body.items.map((a: any) => a.id)).toEqual([auth.primary.id, auth.secondary.id]);
      for (const item of res.body.items) {
        const { merchant_account_id: _m, config_id: _c, ...rec } = store(sb).vault_forward_authentications.get(item.id)!;
        expect(item).toEqual(rec);
        expect(item).toMatchObject({
          type: 'vault-forward-config-authentication',
          kind: 'mle',
          creator: { id: WELL_KNOWN.users.dashboardUser.id, name: 'Dana Dashboard', email_address: 'dana@merchant.example' },
        });
        expect(item.fields.map((f: any) => f.key)).toEqual(['key_id', 'public_key', 'algorithm']);
      }
      expect(res.body.items.map((a: any) => a.label)).toEqual(['primary', 'secondary']);
    });

    it('is 404 for an unknown config or one of another merchant account, 400 for a bad id', async () => {
      expectNotFound(await get('/vault-forward/configs/f3000000-0000-4000-8000-0000000000ff/authentications'));
      expectNotFound(await get(`/vault-forward/configs/${CONFIG}/authentications`, 'merchant-two'));
      expectBadRequest(await get('/vault-forward/configs/cfg/authentications'), [{ location: 'path', pointer: '/config_id', type: 'uuid_parsing' }]);
    });
  });

  describe('GET /card-scheme-definitions', () => {
    it('lists the fixed card scheme definitions', async () => {
      const res = await get('/card-scheme-definitions');
      expectJson(res, 200);
      const names: Record<string, string> = {
        visa: 'Visa',
        mastercard: 'Mastercard',
        amex: 'American Express',
        discover: 'Discover',
        jcb: 'JCB',
        unionpay: 'UnionPay',
        'diners-club': 'Diners Club',
        maestro: 'Maestro',
      };
      expect(res.body).toEqual({
        items: Object.entries(names).map(([id, display_name]) => ({
          type: 'card-scheme-definition',
          id,
          icon_url: `https://cdn.payments-sandbox.example/icons/card-schemes/${id}.svg`,
          display_name,
        })),
      });
      expect((await get('/card-scheme-definitions', 'merchant-two')).body).toEqual(res.body);
    });
  });

  // The lists without a lookup are answered from JSON text kept until a collection they show
  // changes (src/resources/configuration.ts): every change must show on the next call, only where
  // it was made.
  describe('kept answer texts', () => {
    const records = (ns: string, path: string) => `/ns/${ns}/_sandbox/records/${path}`;
    const getIn = (ns: string, path: string, merchant?: string) => get(`/ns/${ns}${path}`, merchant);

    it('shows a card scheme definition changed, added or removed through the control API on the next call', async () => {
      const before = (await getIn('kept-schemes', '/card-scheme-definitions')).body;
      const visa = before.items.find((d: any) => d.id === 'visa');
      expect((await sb.http.patch(records('kept-schemes', 'card_scheme_definitions/visa')).send({ display_name: 'Visa Renamed' })).status).toBe(200);
      const renamed = await getIn('kept-schemes', '/card-scheme-definitions');
      expectJson(renamed, 200);
      expect(renamed.body).toEqual({ items: before.items.map((d: any) => (d.id === 'visa' ? { ...visa, display_name: 'Visa Renamed' } : d)) });

      const added = {
        type: 'card-scheme-definition',
        id: 'kept-test-scheme',
        icon_url: 'https://cdn.payments-sandbox.example/icons/kept.svg',
        display_name: 'Kept Test',
      };
      expect((await sb.http.post(records('kept-schemes', 'card_scheme_definitions')).send(added)).status).toBe(201);
      expect((await getIn('kept-schemes', '/card-scheme-definitions')).body.items).toEqual([...renamed.body.items, added]);

      expect((await sb.http.delete(records('kept-schemes', 'card_scheme_definitions/visa'))).status).toBe(204);
      expect((await getIn('kept-schemes', '/card-scheme-definitions')).body.items).toEqual([...renamed.body.items.filter((d: any) => d.id !== 'visa'), added]);

      // Other namespaces keep their own list; a reset brings the fixtures back.
      expect((await getIn('kept-schemes-other', '/card-scheme-definitions')).body).toEqual(before);
      expect((await get('/card-scheme-definitions')).body).toEqual(before);
      expect((await sb.http.post('/ns/kept-schemes/_sandbox/reset')).status).toBe(200);
      expect((await getIn('kept-schemes', '/card-scheme-definitions')).body).toEqual(before);
    });

    it('shows a change to each kind of configured service on the next GET /connections, to its merchant account only', async () => {
      const ns = 'kept-connections';
      const connections = async (merchant?: string) => {
        const res = await getIn(ns, '/connections', merchant);
        expectJson(res, 200);
        return res.body.items as any[];
      };
      const before = await connections();
      const otherMerchant = await connections('merchant-two');
      const stripe = WELL_KNOWN.paymentServices.stripe.id;

      // payment_services: renamed and deactivated in place.
      expect((await sb.http.patch(records(ns, `payment_services/${stripe}`)).send({ display_name: 'Stripe EU', active: false })).status).toBe(200);
      let now = before.map((c) => (c.id === stripe ? { ...c, name: 'Stripe EU', active: false } : c));
      expect(await connections()).toEqual(now);

      // anti_fraud_services: a new one appears after the others of its kind, its definition made from its definition id.
      const added = await sb.http
        .post(records(ns, 'anti_fraud_services'))
        .send({ anti_fraud_service_definition_id: 'riskified-anti-fraud', display_name: 'Riskified' });
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({
        type: 'anti-fraud-service',
        merchant_account_id: 'default',
        active: true,
        silent: false,
        definition: { name: 'Riskified', category: 'anti-fraud', icon_url: 'https://cdn.payments-sandbox.example/icons/riskified.svg', provider: 'riskified' },
      });
      const lastAntiFraud = now.findLastIndex((c) => c.definition.group === 'anti-fraud-service');
      const riskified = {
        type: 'connection',
        id: added.body.id,
        name: 'Riskified',
        active: true,
        silent: false,
        definition: {
          id: 'riskified-anti-fraud',
          type: 'connection-definition',
          name: 'Riskified',
          count: 1,
          group: 'anti-fraud-service',
          category: 'anti-fraud',
          icon_url: 'https://cdn.payments-sandbox.example/icons/riskified.svg',
          provider: 'riskified',
        },
      };
      now = [...now.slice(0, lastAntiFraud + 1), riskified, ...now.slice(lastAntiFraud + 1)];
      expect(await connections()).toEqual(now);

      // gift_card_services: made silent.
      const second = WELL_KNOWN.giftCardServices.defaultSecond.id;
      expect((await sb.http.patch(records(ns, `gift_card_services/${second}`)).send({ silent: true })).status).toBe(200);
      now = now.map((c) => (c.id === second ? { ...c, silent: true } : c));
      expect(await connections()).toEqual(now);

      // digital_wallets: Google Pay removed; the Google Pay session then has no wallet to use.
      const googlePay = WELL_KNOWN.digitalWallets.googlePay.id;
      const googleSession = () =>
        sb.http.post(`/ns/${ns}/digital-wallets/google/session`).set('authorization', sb.auth).send({ origin_domain: 'shop.example.com' });
      expectJson(await googleSession(), 200);
      expect((await sb.http.delete(records(ns, `digital_wallets/${googlePay}`))).status).toBe(204);
      now = now.filter((c) => c.id !== googlePay);
      expect(await connections()).toEqual(now);
      expectNotFound(await googleSession());

      // A second service of one definition: both connections count 2.
      const twin = await sb.http.post(records(ns, 'payment_services')).send({ payment_service_definition_id: 'stripe-card', display_name: 'Stripe US' });
      expect(twin.status).toBe(201);
      const afterTwin = await connections();
      expect(afterTwin.filter((c) => c.definition.id === 'stripe-card').map((c) => [c.id, c.name, c.definition.count])).toEqual([
        [stripe, 'Stripe EU', 2],
        [twin.body.id, 'Stripe US', 2],
      ]);

      // Only that namespace and merchant account changed.
      expect(await connections('merchant-two')).toEqual(otherMerchant);
      expect((await get('/connections')).body).toEqual({ items: before });
    });

    it('shows a flow rule moved to another flow in both flows on the next call', async () => {
      const rule = WELL_KNOWN.flowRules.cardTransactionFirst.id;
      const card = (await getIn('kept-flows', '/flows/card-transaction')).body.items;
      const checkout = (await getIn('kept-flows', '/flows/checkout')).body.items;
      expect(card.map((r: any) => r.id)).toContain(rule);
      const moved = await sb.http.patch(records('kept-flows', `flow_rules/${rule}`)).send({ flow: 'checkout', position: 99 });
      expect(moved.status).toBe(200);
      expect((await getIn('kept-flows', '/flows/card-transaction')).body.items).toEqual(card.filter((r: any) => r.id !== rule));
      const checkoutAfter = (await getIn('kept-flows', '/flows/checkout')).body.items;
      expect(checkoutAfter.slice(0, -1)).toEqual(checkout);
      expect(checkoutAfter.at(-1)).toMatchObject({ id: rule, flow: 'checkout', position: 99 });
      // merchant-two's flows were never keyed with default's.
      expect((await getIn('kept-flows', '/flows/checkout', 'merchant-two')).body.items.map((r: any) => r.merchant_account_id)).not.toContain('default');
    });
  });
});
