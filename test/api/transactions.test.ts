// POST /transactions/{transaction_id}/session: get and update a transaction's client session, with
// and without the session `token` query parameter.
import { describe, expect, it } from 'vitest';
import { tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import {
  expectBadRequest,
  expectForbidden,
  expectJson,
  expectMethodNotAllowed,
  expectNotFound,
  FROZEN_AT,
  MERCHANT_HEADER,
  store,
  useFrozenSandbox,
} from './support.js';

const TX = WELL_KNOWN.transactions;

describe('POST /transactions/{transaction_id}/session', () => {
  const sb = useFrozenSandbox();

  const session = (id: string, query = '', body?: unknown, auth = sb.auth) => {
    const req = sb.http.post(`/transactions/${id}/session${query}`).set('authorization', auth);
    return body === undefined ? req : req.send(body as object);
  };
  const storedSession = (id: string = TX.default.id) => store(sb).transactions.get(id)!.session;

  it('returns the stored session without a body and without a token', async () => {
    const res = await session(TX.default.id);
    expectJson(res, 200);
    const stored = storedSession();
    expect(res.body).toEqual({
      session_data: stored.session_data,
      // The sandbox's completion page, at the address this request reached it at.
      default_completion_url: `${new URL(res.request.url).origin}/_sandbox/hosted/transactions/${TX.default.id}/complete`,
      integration_client: 'web',
    });
    expect(res.body.session_data).toMatchObject({ connector: 'adyen', environment: 'sandbox', expires_in: 900 });
    expect(res.body.session_data.client_token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(store(sb).transactions.get(TX.default.id)!.updated_at).not.toBe(FROZEN_AT);
  });

  it('accepts the matching session token and refuses another with 403', async () => {
    const ok = await session(TX.default.id, `?token=${TX.default.sessionToken}`, {});
    expectJson(ok, 200);
    expect(ok.body.session_data).toEqual(storedSession().session_data);
    for (const wrong of [TX.merchantTwo.sessionToken, 'nope', TX.default.sessionToken.toUpperCase()]) {
      expectForbidden(await session(TX.default.id, `?token=${encodeURIComponent(wrong)}`, { payload: { a: 1 } }));
    }
    expect(storedSession().session_data).not.toHaveProperty('a');
  });

  it('refuses an empty or otherwise wrong token with 403, whatever its length, and changes nothing', async () => {
    const before = JSON.stringify(store(sb).transactions.get(TX.default.id));
    for (const query of [
      '?token=',
      '?token',
      `?token=&token=${TX.default.sessionToken}`,
      `?token=${'x'.repeat(5000)}`,
      `?token=%20${TX.default.sessionToken}`,
    ]) {
      const res = await session(TX.default.id, query, { payload: { a: 1 } });
      expectForbidden(res);
      expect(res.body.message).toBe(`The session token does not belong to transaction ${TX.default.id}.`);
      expect(res.body.details).toEqual([]);
    }
    expect(JSON.stringify(store(sb).transactions.get(TX.default.id))).toBe(before);
    // An unknown transaction is still a 404 first; a repeated token parameter counts its first value.
    expectNotFound(await session('d0000000-0000-4000-8000-0000000000ff', '?token='));
    expectJson(await session(TX.default.id, `?token=${TX.default.sessionToken}&token=`, {}), 200);
  });

  it('merges a payload into the session data, visible on the next call', async () => {
    const before = storedSession().session_data;
    const res = await session(TX.default.id, '', { payload: { return_url: 'https://shop.example/back', environment: 'live', nested: { a: [1, 2] } } });
    expectJson(res, 200);
    const merged = { ...before, return_url: 'https://shop.example/back', environment: 'live', nested: { a: [1, 2] } };
    expect(res.body.session_data).toEqual(merged);
    const next = await session(TX.default.id, `?token=${TX.default.sessionToken}`);
    // Each supertest request may reach the server at another port: the completion page follows the request.
    expect(next.body).toEqual({
      ...res.body,
      session_data: merged,
      default_completion_url: `${new URL(next.request.url).origin}/_sandbox/hosted/transactions/${TX.default.id}/complete`,
    });
    expect(store(sb).transactions.get(TX.default.id)!.updated_at).toBe(FROZEN_AT);
    const second = await session(TX.default.id, '', { payload: { extra: true } });
    expect(second.body.session_data).toEqual({ ...merged, extra: true });
  });

  it('never merges prototype keys', async () => {
    const res = await sb.http
      .post(`/transactions/${TX.default.id}/session`)
      .set('authorization', sb.auth)
      .set('content-type', 'application/json')
      .send('{"payload":{"__proto__":{"polluted":true},"ok":1}}');
    expectJson(res, 200);
    expect(res.body.session_data.ok).toBe(1);
    expect(Object.hasOwn(res.body.session_data, '__proto__')).toBe(false);
    expect(({} as any).polluted).toBeUndefined();
  });

  it('refuses a payload that is not an object, and bad ids', async () => {
    for (const payload of [null, 'x', [1], 3]) {
      const res = await session(TX.default.id, '', { payload });
      expectBadRequest(res, [{ location: 'body', pointer: '/payload', type: 'dict_type' }]);
    }
    expectBadRequest(await session('tx-1', '', { payload: 1 }), [
      { location: 'path', pointer: '/transaction_id', type: 'uuid_parsing' },
      { location: 'body', pointer: '/payload', type: 'dict_type' },
    ]);
    const malformed = await sb.http
      .post(`/transactions/${TX.default.id}/session`)
      .set('authorization', sb.auth)
      .set('content-type', 'application/json')
      .send('{"payload": {');
    expectBadRequest(malformed, [{ location: 'body', pointer: '', type: 'json_invalid' }]);
  });

  it('is 404 for an unknown transaction and for one of another merchant account', async () => {
    expectNotFound(await session('d0000000-0000-4000-8000-0000000000ff'));
    expectNotFound(await session(TX.merchantTwo.id, `?token=${TX.merchantTwo.sessionToken}`));
    const two = await session(TX.merchantTwo.id, `?token=${TX.merchantTwo.sessionToken}`).set(MERCHANT_HEADER, 'merchant-two');
    expectJson(two, 200);
    expect(two.body.session_data).toEqual(storedSession(TX.merchantTwo.id).session_data);
  });

  it('needs transactions.write or embed', async () => {
    expectJson(await session(TX.default.id, '', {}, `Bearer ${await tokenFor('admin', { scopes: ['embed'] })}`), 200);
    expectJson(await session(TX.default.id, '', {}, `Bearer ${await tokenFor('admin', { scopes: ['transactions.write'] })}`), 200);
    expectForbidden(await session(TX.default.id, '', {}, `Bearer ${await tokenFor('admin', { scopes: ['transactions.read'] })}`));
    expectMethodNotAllowed(
      await sb.http.get(`/transactions/${TX.default.id}/session`).set('authorization', sb.auth),
      'POST',
      'GET',
      '/transactions/{transaction_id}/session',
    );
  });
});
