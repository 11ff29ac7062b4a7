// GET /buyers/payment-methods (filters and sorting), GET .../payment-service-tokens and
// POST .../network-tokens/{id}/cryptogram.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectJson, expectMethodNotAllowed, expectNotFound, MERCHANT_HEADER, store } from './support.js';

const PM = WELL_KNOWN.paymentMethods;
const JANE = WELL_KNOWN.buyers.default;
const JANES_METHODS = [PM.card.id, PM.cardGb.id, PM.cardDe.id, PM.cardBr.id, PM.cardNoCountry.id, PM.paypal.id];

describe('payment methods', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  beforeEach(() => sb.deps.namespaces.reset('default'));
  afterAll(() => sb?.server.close());

  const methods = (query = '', merchant?: string) => {
    const req = sb.http.get(`/buyers/payment-methods${query}`).set('authorization', sb.auth);
    return merchant ? req.set(MERCHANT_HEADER, merchant) : req;
  };
  const ids = (res: any) => res.body.items.map((m: any) => m.id);
  const stored = (keep: (m: any) => boolean) => store(sb).payment_methods.where((m) => m.merchant_account_id === 'default' && keep(m));

  describe('GET /buyers/payment-methods', () => {
    it('serializes every field of the stored method (without its buyer_id)', async () => {
      const res = await methods(`?buyer_id=${JANE.id}`);
      expectJson(res, 200);
      expect(Object.keys(res.body)).toEqual(['items']);
      expect(ids(res).sort()).toEqual([...JANES_METHODS].sort());
      const card = res.body.items.find((m: any) => m.id === PM.card.id);
      const { buyer_id: _b, created_at: _c, updated_at: _u, ...expected } = store(sb).payment_methods.get(PM.card.id)!;
      expect(card).toEqual(expected);
      expect(card).toMatchObject({
        type: 'payment-method',
        merchant_account_id: 'default',
        method: 'card',
        scheme: 'visa',
        country: 'US',
        currency: 'USD',
        mode: 'card',
      });
      expect(card.details.bin).toMatch(/^4\d{5}$/);
      expect(card.expiration_date).toMatch(/^\d{2}\/\d{2}$/);
      // The 23 reference fields, no more: created_at/updated_at (the default sort key) stay in the store.
      expect(Object.keys(card).sort()).toEqual([
        'additional_schemes',
        'approval_url',
        'cit_last_used_at',
        'cit_usage_count',
        'country',
        'currency',
        'details',
        'expiration_date',
        'fingerprint',
        'has_replacement',
        'id',
        'label',
        'last_replaced_at',
        'last_used_at',
        'merchant_account_id',
        'method',
        'mode',
        'scheme',
        'scheme_transaction_id',
        'scheme_transaction_id_scheme',
        'transaction_link_id',
        'type',
        'usage_count',
      ]);
    });

    it('lists every method of the merchant account, newest created_at first, without filters', async () => {
      const res = await methods();
      const expected = stored(() => true).sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
      expect(ids(res)).toEqual(expected.map((m) => m.id));
      expect(ids(res)).not.toContain(PM.merchantTwoCard.id);
      const asc = await methods('?order_by=asc');
      expect(ids(asc)).toEqual([...ids(res)].reverse());
      expect(ids(await methods('?order_by=desc'))).toEqual(ids(res));
    });

    it('filters by buyer_external_identifier, and by both buyer filters together', async () => {
      expect(ids(await methods(`?buyer_external_identifier=${JANE.externalIdentifier}`)).sort()).toEqual([...JANES_METHODS].sort());
      expect(ids(await methods(`?buyer_id=${JANE.id}&buyer_external_identifier=${JANE.externalIdentifier}`))).toHaveLength(6);
      expectNotFound(await methods(`?buyer_id=${JANE.id}&buyer_external_identifier=buyer-ext-0002`));
      expectNotFound(await methods('?buyer_external_identifier=nobody-has-this'));
      expectNotFound(await methods(`?buyer_id=${WELL_KNOWN.buyers.merchantTwo.id}`));
      const two = await methods(`?buyer_id=${WELL_KNOWN.buyers.merchantTwo.id}`, 'merchant-two');
      expect(ids(two)).toEqual([PM.merchantTwoCard.id]);
    });

    it('filters by country and currency; a method without them never matches', async () => {
      expect(ids(await methods(`?buyer_id=${JANE.id}&country=US`)).sort()).toEqual([PM.card.id, PM.paypal.id].sort());
      expect(ids(await methods(`?buyer_id=${JANE.id}&currency=EUR`))).toEqual([PM.cardDe.id]);
      expect(ids(await methods(`?buyer_id=${JANE.id}&country=GB&currency=GBP`))).toEqual([PM.cardGb.id]);
      expect(ids(await methods(`?buyer_id=${JANE.id}&country=GB&currency=USD`))).toEqual([]);
      const allGb = await methods('?country=GB');
      expect(ids(allGb).sort()).toEqual(
        stored((m) => m.country === 'GB')
          .map((m) => m.id)
          .sort(),
      );
      expect(ids(allGb)).not.toContain(PM.cardNoCountry.id);
      expect(ids(await methods('?currency=XXX'))).toEqual([]);
    });

    it('sorts by last_used_at with never-used methods last in both orders', async () => {
      for (const order of ['desc', 'asc'] as const) {
        const res = await methods(`?sort_by=last_used_at&order_by=${order}`);
        const used = res.body.items.filter((m: any) => m.last_used_at !== null).map((m: any) => m.last_used_at);
        const sorted = [...used].sort();
        expect(used).toEqual(order === 'asc' ? sorted : sorted.reverse());
        const firstNull = res.body.items.findIndex((m: any) => m.last_used_at === null);
        expect(firstNull).toBe(used.length);
        expect(res.body.items.slice(firstNull).every((m: any) => m.last_used_at === null)).toBe(true);
      }
      const janes = await methods(`?buyer_id=${JANE.id}&sort_by=last_used_at`);
      expect(ids(janes)[0]).toBe(PM.card.id);
      const neverUsed = stored((m) => m.buyer_id === JANE.id && m.last_used_at === null)
        .map((m) => m.id)
        .sort();
      expect(neverUsed).toContain(PM.cardBr.id);
      expect(ids(janes).slice(-neverUsed.length).sort()).toEqual(neverUsed);
      const asc = await methods(`?buyer_id=${JANE.id}&sort_by=last_used_at&order_by=asc`);
      expect(ids(asc).slice(-neverUsed.length).sort()).toEqual(neverUsed);
      expect(ids(asc)[6 - neverUsed.length - 1]).toBe(PM.card.id);
    });

    it('refuses bad filter values, each one reported', async () => {
      expectBadRequest(await methods('?country=us&currency=EURO&order_by=up&sort_by=created_at&buyer_id=42&buyer_external_identifier='), [
        { location: 'query', pointer: '/country', type: 'string_pattern_mismatch' },
        { location: 'query', pointer: '/currency', type: 'string_pattern_mismatch' },
        { location: 'query', pointer: '/order_by', type: 'enum' },
        { location: 'query', pointer: '/sort_by', type: 'enum' },
        { location: 'query', pointer: '/buyer_id', type: 'uuid_parsing' },
        { location: 'query', pointer: '/buyer_external_identifier', type: 'string_too_short' },
      ]);
      expectJson(await methods('?unknown_param=1'), 200);
    });
  });

  describe('GET /payment-methods/{id}/payment-service-tokens', () => {
    const tokens = (pm: string, query = '') => sb.http.get(`/payment-methods/${pm}/payment-service-tokens${query}`).set('authorization', sb.auth);

    it('lists the gateway tokens of the method, every field', async () => {
      const res = await tokens(PM.card.id);
      expectJson(res, 200);
      const t = WELL_KNOWN.paymentServiceTokens;
      expect(res.body.items.map((x: any) => [x.id, x.status])).toEqual([
        [t.stripe.id, 'succeeded'],
        [t.adyen.id, 'processing'],
        [t.braintree.id, 'buyer_approval_required'],
      ]);
      for (const item of res.body.items) {
        const rec = store(sb).payment_service_tokens.get(item.id)!;
        expect(item).toEqual({
          type: 'payment-service-token',
          id: rec.id,
          payment_method_id: PM.card.id,
          payment_service_id: rec.payment_service_id,
          created_at: rec.created_at,
          updated_at: rec.updated_at,
          status: rec.status,
          // The waiting token's approval page is on the sandbox, at the address this request reached it at.
          approval_url: rec.status === 'buyer_approval_required' ? `${origin(res)}/_sandbox/hosted/approvals/${rec.id}` : null,
          token: rec.token,
        });
        expect(item.token).toMatch(/^tok_[A-Za-z0-9]{24}$/);
      }
      expect(res.body.items[2].approval_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/_sandbox/hosted/approvals/${t.braintree.id}$`));
      expect(res.body.items.map((x: any) => x.payment_service_id)).toEqual([
        WELL_KNOWN.paymentServices.stripe.id,
        WELL_KNOWN.paymentServices.adyen.id,
        WELL_KNOWN.paymentServices.braintree.id,
      ]);
    });

    it('filters by payment_service_id, and is empty for a method without tokens', async () => {
      const res = await tokens(PM.card.id, `?payment_service_id=${WELL_KNOWN.paymentServices.adyen.id}`);
      expect(res.body.items.map((x: any) => x.id)).toEqual([WELL_KNOWN.paymentServiceTokens.adyen.id]);
      expect((await tokens(PM.paypal.id)).body).toEqual({ items: [] });
    });

    it('is 404 for an unknown or foreign method and 400 for bad ids', async () => {
      expectNotFound(await tokens('c0000000-0000-4000-8000-0000000000ff'));
      expectNotFound(await tokens(PM.merchantTwoCard.id));
      expectJson(await tokens(PM.merchantTwoCard.id).set(MERCHANT_HEADER, 'merchant-two'), 200);
      expectBadRequest(await tokens('xyz', '?payment_service_id=1'), [
        { location: 'path', pointer: '/payment_method_id', type: 'uuid_parsing' },
        { location: 'query', pointer: '/payment_service_id', type: 'uuid_parsing' },
      ]);
    });
  });

  describe('POST /payment-methods/{id}/network-tokens/{id}/cryptogram', () => {
    const NT = WELL_KNOWN.networkTokens;
    const cryptogram = (pm: string, nt: string, body?: unknown) => {
      const req = sb.http.post(`/payment-methods/${pm}/network-tokens/${nt}/cryptogram`).set('authorization', sb.auth);
      return body === undefined ? req : req.send(body as object);
    };

    it('answers 201 with a fresh cryptogram', async () => {
      const res = await cryptogram(PM.card.id, NT.active.id, { merchant_initiated: false });
      expectJson(res, 201);
      expect(Object.keys(res.body).sort()).toEqual(['cryptogram', 'type']);
      expect(res.body.type).toBe('network-token-cryptogram');
      expect(Buffer.from(res.body.cryptogram, 'base64')).toHaveLength(20);
      const again = await cryptogram(PM.card.id, NT.active.id, { merchant_initiated: true });
      expect(again.body.cryptogram).not.toBe(res.body.cryptogram);
    });

    it('is 404 for a token of another method, unknown ids and the other merchant account', async () => {
      const body = { merchant_initiated: true };
      expectNotFound(await cryptogram(PM.card.id, NT.otherMethod.id, body));
      expectNotFound(await cryptogram(PM.card.id, 'c3000000-0000-4000-8000-0000000000ff', body));
      expectNotFound(await cryptogram('c0000000-0000-4000-8000-0000000000ff', NT.active.id, body));
      expectNotFound(await cryptogram(PM.merchantTwoCard.id, NT.merchantTwo.id, body));
      expectJson(await cryptogram(PM.merchantTwoCard.id, NT.merchantTwo.id, body).set(MERCHANT_HEADER, 'merchant-two'), 201);
      expectJson(await cryptogram(PM.cardGb.id, NT.otherMethod.id, body), 201);
    });

    it('is 400 for an inactive or suspended network token and 404 for a deleted one', async () => {
      // The fixtures hold a token in every status (in one of the two merchant accounts).
      const tokenIn = (status: string) => store(sb).network_tokens.find((t) => t.status === status)!;
      const ask = (t: ReturnType<typeof tokenIn>) =>
        cryptogram(t.payment_method_id, t.id, { merchant_initiated: true }).set(MERCHANT_HEADER, t.merchant_account_id);
      for (const status of ['inactive', 'suspended']) {
        expectBadRequest(await ask(tokenIn(status)), [{ location: 'path', pointer: '/network_token_id', type: 'network_token_not_active' }]);
      }
      expectNotFound(await ask(tokenIn('deleted')));
    });

    it('requires a boolean merchant_initiated and valid ids', async () => {
      expectBadRequest(await cryptogram(PM.card.id, NT.active.id, {}), [{ location: 'body', pointer: '/merchant_initiated', type: 'missing' }]);
      expectBadRequest(await cryptogram(PM.card.id, NT.active.id, { merchant_initiated: 'yes' }), [
        { location: 'body', pointer: '/merchant_initiated', type: 'bool_type' },
      ]);
      expectBadRequest(await cryptogram(PM.card.id, NT.active.id), [{ location: 'body', pointer: '', type: 'missing' }]);
      expectBadRequest(await cryptogram('a', 'b', { merchant_initiated: 1 }), [
        { location: 'path', pointer: '/payment_method_id', type: 'uuid_parsing' },
        { location: 'path', pointer: '/network_token_id', type: 'uuid_parsing' },
        { location: 'body', pointer: '/merchant_initiated', type: 'bool_type' },
      ]);
      expectMethodNotAllowed(
        await sb.http.get(`/payment-methods/${PM.card.id}/network-tokens/${NT.active.id}/cryptogram`).set('authorization', sb.auth),
        'POST',
        'GET',
        '/payment-methods/{payment_method_id}/network-tokens/{network_token_id}/cryptogram',
      );
    });
  });
});

/** The origin a supertest request reached the sandbox at (its Host header). */
function origin(res: { request: { url: string } }): string {
  return new URL(res.request.url).origin;
}
