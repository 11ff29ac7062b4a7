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
    it('lists every connection of the merchant account, of every group, with every field', async () => {
      const res = await get('/connections');
      expectJson(res, 200);
      expect(Object.keys(res.body)).toEqual(['items']);
      const expected = store(sb)
        .connections.where((c) => c.merchant_account_id === 'default')
        .map((c) => ({ type: 'connection', id: c.id, name: c.name, active: c.active, silent: c.silent, definition: c.definition }));
      expect(res.body.items).toEqual(expected);
      const groupOf = (id: string) => res.body.items.find((c: any) => c.id === id)?.definition.group;
      const wk = WELL_KNOWN.connections;
      expect([wk.stripe.id, wk.antiFraud.id, wk.giftCard.id, wk.applePay.id, wk.googlePay.id].map(groupOf)).toEqual([
        'payment-service',
        'anti-fraud-service',
        'gift-card-service',
        'digital-wallet',
        'digital-wallet',
      ]);
      expect(res.body.items.find((c: any) => c.id === wk.stripe.id)).toEqual({
        type: 'connection',
        id: wk.stripe.id,
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
      for (const c of res.body.items) {
        expect(typeof c.active === 'boolean' && typeof c.silent === 'boolean').toBe(true);
        expect(c.definition.icon_url).toMatch(/^https:\/\//);
        expect(Number.isInteger(c.definition.count)).toBe(true);
      }
    });

    it('lists only merchant-two connections under its header', async () => {
      const res = await get('/connections', 'merchant-two');
      const ids = res.body.items.map((c: any) => c.id);
      expect(ids.sort()).toEqual(
        store(sb)
          .connections.where((c) => c.merchant_account_id === 'merchant-two')
          .map((c) => c.id)
          .sort(),
      );
      expect(ids).not.toContain(WELL_KNOWN.connections.stripe.id);
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

    it('shows a renamed connection on the next call, to its merchant account only', async () => {
      const stripe = WELL_KNOWN.connections.stripe.id;
      const before = (await getIn('kept-connections', '/connections')).body;
      const otherMerchant = (await getIn('kept-connections', '/connections', 'merchant-two')).body;
      expect((await sb.http.patch(records('kept-connections', `connections/${stripe}`)).send({ name: 'Stripe Renamed', active: false })).status).toBe(200);
      const after = await getIn('kept-connections', '/connections');
      expectJson(after, 200);
      expect(after.body).toEqual({ items: before.items.map((c: any) => (c.id === stripe ? { ...c, name: 'Stripe Renamed', active: false } : c)) });
      expect((await getIn('kept-connections', '/connections', 'merchant-two')).body).toEqual(otherMerchant);
      expect((await get('/connections')).body).toEqual(before);
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
