// Digital wallet sessions: Google Pay (bare FQDN, sandbox-signed JWT) and Click to Pay
// (unauthenticated, needs an existing checkout session).
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectJson, expectMethodNotAllowed, expectNotFound, MERCHANT_HEADER } from './support.js';

describe('digital wallet sessions', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  beforeEach(() => sb.deps.namespaces.reset('default'));
  afterAll(() => sb?.server.close());

  describe('POST /digital-wallets/google/session', () => {
    const session = (body: unknown, auth = sb.auth) =>
      sb.http
        .post('/digital-wallets/google/session')
        .set('authorization', auth)
        .send(body as object);

    it('returns the gateway merchant id and a JWT naming the origin domain', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await session({ origin_domain: 'shop.example.com' });
      const after = Math.ceil(Date.now() / 1000);
      expectJson(res, 200);
      expect(Object.keys(res.body).sort()).toEqual(['gateway_merchant_id', 'token']);
      expect(res.body.gateway_merchant_id).toBe('default');
      expect(res.body.token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(decodeProtectedHeader(res.body.token)).toEqual({ alg: 'ES256', typ: 'JWT' });
      const claims = decodeJwt(res.body.token);
      expect(claims).toEqual({ origin_domain: 'shop.example.com', merchant_account_id: 'default', wallet: 'google-pay', iat: claims.iat, exp: claims.exp });
      // Wall-clock times: the token is checked by Google Pay clients, not by the sandbox clock.
      expect(claims.iat).toBeGreaterThanOrEqual(before);
      expect(claims.iat).toBeLessThanOrEqual(after);
      expect(claims.exp! - claims.iat!).toBe(3600);
    });

    it('accepts the embed scope in place of digital-wallets.write', async () => {
      const embed = `Bearer ${await tokenFor('admin', { scopes: ['embed'] })}`;
      expectJson(await session({ origin_domain: 'pay.example.org' }, embed), 200);
      const readOnly = `Bearer ${await tokenFor('admin', { scopes: ['*.read'] })}`;
      const res = await session({ origin_domain: 'pay.example.org' }, readOnly);
      expectJson(res, 403);
    });

    it('refuses an origin_domain that is not a bare fully qualified domain name', async () => {
      for (const bad of ['https://x.com', 'x.com/path', 'x.com:443', 'localhost', 'x..com', '-x.com', 'x.com.', 'shop example.com']) {
        expectBadRequest(await session({ origin_domain: bad }), [{ location: 'body', pointer: '/origin_domain', type: 'string_pattern_mismatch' }]);
      }
      expectBadRequest(await session({ origin_domain: '' }), [
        { location: 'body', pointer: '/origin_domain', type: 'string_too_short' },
        { location: 'body', pointer: '/origin_domain', type: 'string_pattern_mismatch' },
      ]);
      expectBadRequest(await session({ origin_domain: 7 }), [{ location: 'body', pointer: '/origin_domain', type: 'string_type' }]);
      expectBadRequest(await session({}), [{ location: 'body', pointer: '/origin_domain', type: 'missing' }]);
      expectJson(await session({ origin_domain: 'a.b.c.example.co.uk' }), 200);
    });

    it('accepts any bare fully qualified domain name, internationalized top-level domains in their xn-- form included', async () => {
      for (const domain of [
        'shop.example.xn--p1ai',
        'xn--80ak6aa92e.xn--p1ai',
        'Shop.Example.XN--P1AI',
        'pay.xn--fiqs8s',
        `x.${'a'.repeat(63)}.com`,
        'a1-b2.example.xn--3e0b707e',
      ]) {
        const res = await session({ origin_domain: domain });
        expectJson(res, 200);
        expect(res.body.gateway_merchant_id).toBe('default');
        expect(decodeJwt(res.body.token).origin_domain).toBe(domain); // as sent, case included
      }
      const refused = [
        'shop.example.рф', // Unicode form: send the xn-- form
        'shop.example.xn--',
        'shop.example.xn--p1ai-',
        'shop.example.123',
        `shop.xn--${'a'.repeat(60)}`, // a label over 63 characters
        'https://shop.example.xn--p1ai',
        'shop.example.xn--p1ai:443',
        'shop.example.xn--p1ai/pay',
        'shop.example.xn--p1ai.',
      ];
      for (const bad of refused) {
        const res = await session({ origin_domain: bad });
        expectBadRequest(res, [{ location: 'body', pointer: '/origin_domain', type: 'string_pattern_mismatch' }]);
        expect(res.body.details[0].message).toMatch(/^Body field 'origin_domain' must match the pattern/);
      }
      const tooLong = `${`${'a'.repeat(61)}.`.repeat(4)}xn--p1ai`; // 248 + 8 characters, each label valid
      expectBadRequest(await session({ origin_domain: tooLong }), [{ location: 'body', pointer: '/origin_domain', type: 'string_too_long' }]);
    });

    it('is 404 when Google Pay is not configured for the merchant account', async () => {
      expectNotFound(await session({ origin_domain: 'x.com' }).set(MERCHANT_HEADER, 'merchant-two'));
    });
  });

  describe('POST /digital-wallets/click-to-pay/session', () => {
    const CHECKOUT = WELL_KNOWN.checkoutSessions;
    const session = (body: unknown) => sb.http.post('/digital-wallets/click-to-pay/session').send(body as object);

    it('works without Authorization', async () => {
      const res = await session({ checkout_session_id: CHECKOUT.default.id });
      expectJson(res, 200);
      expect(res.body).toEqual({ digital_payment_application_id: 'sandbox-dpa-default', digital_payment_application_name: 'Default' });
    });

    it('ignores a garbage or an expired Authorization header', async () => {
      const expired = await tokenFor('admin', { issuedAt: Math.floor(Date.now() / 1000) - 7200, ttlSeconds: 60 });
      for (const auth of ['Bearer garbage', 'Basic dXNlcjpwYXNz', `Bearer ${expired}`, 'Bearer']) {
        const res = await session({ checkout_session_id: CHECKOUT.default.id }).set('authorization', auth);
        expectJson(res, 200);
        expect(res.body.digital_payment_application_id).toBe('sandbox-dpa-default');
      }
    });

    it('names the merchant account of the checkout session', async () => {
      const res = await session({ checkout_session_id: CHECKOUT.merchantTwo.id });
      expect(res.body).toEqual({ digital_payment_application_id: 'sandbox-dpa-merchant-two', digital_payment_application_name: 'Merchant Two' });
    });

    it('is 404 for an unknown or deleted checkout session', async () => {
      expectNotFound(await session({ checkout_session_id: 'd1000000-0000-4000-8000-0000000000ff' }));
      const del = await sb.http.delete(`/checkout/sessions/${CHECKOUT.default.id}`).set('authorization', sb.auth);
      expect(del.status).toBe(204);
      expectNotFound(await session({ checkout_session_id: CHECKOUT.default.id }));
    });

    it('refuses a missing, empty or non-uuid checkout_session_id', async () => {
      expectBadRequest(await session({}), [{ location: 'body', pointer: '/checkout_session_id', type: 'missing' }]);
      expectBadRequest(await session({ checkout_session_id: 'abc' }), [{ location: 'body', pointer: '/checkout_session_id', type: 'uuid_parsing' }]);
      expectBadRequest(await session({ checkout_session_id: null }), [{ location: 'body', pointer: '/checkout_session_id', type: 'string_type' }]);
      const noBody = await sb.http.post('/digital-wallets/click-to-pay/session');
      expectBadRequest(noBody, [{ location: 'body', pointer: '', type: 'missing' }]);
      expectMethodNotAllowed(await sb.http.get('/digital-wallets/click-to-pay/session'), 'POST', 'GET', '/digital-wallets/click-to-pay/session');
    });
  });
});
