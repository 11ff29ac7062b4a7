// PUT /buyers/{buyer_id}: merge semantics, updated_at, visibility through other operations, and
// every validation error of the buyer update request.
import { describe, expect, it } from 'vitest';
import { reconciliationIdOf } from '../../src/resources/buyers/reconciliation-id.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectJson, expectMethodNotAllowed, expectNotFound, FROZEN_AT, MERCHANT_HEADER, store, useFrozenSandbox } from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const JANE = {
  type: 'buyer',
  id: BUYER,
  reconciliation_id: '5M6eGrrw2XGw3LSBPJpxr7',
  merchant_account_id: 'default',
  created_at: '2025-06-01T10:00:00.000Z',
  updated_at: '2026-09-15T12:30:00.000Z',
  display_name: 'Jane Doe',
  external_identifier: 'buyer-ext-0001',
  account_number: 'ACC-0001',
  billing_details: {
    first_name: 'Jane',
    last_name: 'Doe',
    email_address: 'jane.doe@example.com',
    phone_number: '+14155550100',
    address: {
      city: 'San Francisco',
      country: 'US',
      postal_code: '94105',
      state: 'California',
      state_code: 'US-CA',
      house_number_or_name: '100',
      line1: 'Market Street',
      line2: 'Suite 300',
      organization: 'Example Corp',
    },
    tax_id: { value: '12-3456789', kind: 'us.ein' },
  },
};

describe("a buyer's reconciliation_id (beyond the reference: the official clients require it)", () => {
  const sb = useFrozenSandbox();

  it("is the id in base62 (0-9A-Za-z), 22 characters, as the clients' example pair shows", () => {
    expect(reconciliationIdOf('fe26475d-ec3e-4884-9553-f7356683f7f9')).toBe('7jZXl4gBUNl0CnaLEnfXbt');
    expect(reconciliationIdOf('FE26475D-EC3E-4884-9553-F7356683F7F9')).toBe('7jZXl4gBUNl0CnaLEnfXbt');
    expect(reconciliationIdOf('00000000-0000-0000-0000-000000000001')).toBe('0000000000000000000001');
    expect(reconciliationIdOf('ffffffff-ffff-ffff-ffff-ffffffffffff')).toBe('7n42DGM5Tflk9n8mt7Fhc7');
    // An id that is not a UUID (the records API allows any): stable, same form.
    expect(reconciliationIdOf('buyer-1')).toMatch(/^[0-9A-Za-z]{22}$/);
    expect(reconciliationIdOf('buyer-1')).toBe(reconciliationIdOf('buyer-1'));
    expect(reconciliationIdOf('buyer-1')).not.toBe(reconciliationIdOf('buyer-2'));
  });

  it("is served on every buyer: PUT, the records API's API shape, and nested in gift cards", async () => {
    const res = await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).send({});
    expectJson(res, 200);
    expect(res.body.reconciliation_id).toBe('5M6eGrrw2XGw3LSBPJpxr7');
    const cards = await sb.http.get('/gift-cards?buyer_external_identifier=buyer-ext-0001').set('authorization', sb.auth);
    expect(cards.body.items.length).toBeGreaterThan(0);
    for (const card of cards.body.items) expect(card.buyer.reconciliation_id).toBe('5M6eGrrw2XGw3LSBPJpxr7');
    for (const buyer of store(sb).buyers.all()) expect(buyer.reconciliation_id).toBe(reconciliationIdOf(buyer.id));
  });

  it('is derived for a buyer the records API creates without one, kept when it names its own', async () => {
    const records = '/ns/default/_sandbox/records/buyers';
    const id = '0f0e0d0c-0b0a-4908-8706-050403020100';
    const made = await sb.http.post(records).send({ id, merchant_account_id: 'default' });
    expect(made.status).toBe(201);
    expect(made.body.reconciliation_id).toBe(reconciliationIdOf(id));
    const read = await sb.http.put(`/buyers/${id}`).set('authorization', sb.auth).send({ display_name: 'Made' });
    expect(read.body).toMatchObject({ id, reconciliation_id: reconciliationIdOf(id), display_name: 'Made' });
    const own = await sb.http.post(records).send({ id: '1f0e0d0c-0b0a-4908-8706-050403020100', merchant_account_id: 'default', reconciliation_id: 'mine' });
    expect(own.status).toBe(201);
    expect(own.body.reconciliation_id).toBe('mine');
  });
});

describe('PUT /buyers/{buyer_id}', () => {
  const sb = useFrozenSandbox();
  const put = (id: string, body?: unknown) => {
    const req = sb.http.put(`/buyers/${id}`).set('authorization', sb.auth);
    return body === undefined ? req : req.send(body as object);
  };

  it('merges the given fields, keeps the others and moves updated_at', async () => {
    const res = await put(BUYER, { display_name: 'Janet Doe', account_number: null });
    expectJson(res, 200);
    expect(res.body).toEqual({ ...JANE, display_name: 'Janet Doe', account_number: null, updated_at: FROZEN_AT });
    expect(store(sb).buyers.get(BUYER)).toMatchObject({
      display_name: 'Janet Doe',
      account_number: null,
      external_identifier: 'buyer-ext-0001',
      updated_at: FROZEN_AT,
    });
  });

  it('shows the change in the next request through another operation (nested in gift cards)', async () => {
    await put(BUYER, { external_identifier: 'renamed-ext' });
    const old = await sb.http.get('/gift-cards?buyer_external_identifier=buyer-ext-0001').set('authorization', sb.auth);
    expect(old.body.items).toEqual([]);
    const res = await sb.http.get('/gift-cards?buyer_external_identifier=renamed-ext&limit=100').set('authorization', sb.auth);
    expectJson(res, 200);
    expect(res.body.items.length).toBeGreaterThan(0);
    for (const card of res.body.items) {
      expect(card.buyer).toMatchObject({ ...JANE, external_identifier: 'renamed-ext', updated_at: FROZEN_AT });
      expect(card.buyer.reconciliation_id).toMatch(/^[A-Za-z0-9]{22}$/);
    }
  });

  it('replaces billing_details as a whole, filling absent fields with null', async () => {
    const res = await put(BUYER, { billing_details: { first_name: 'Janet', address: { city: 'Oakland', country: 'US' } } });
    expectJson(res, 200);
    expect(res.body.billing_details).toEqual({
      first_name: 'Janet',
      last_name: null,
      email_address: null,
      phone_number: null,
      tax_id: null,
      address: {
        city: 'Oakland',
        country: 'US',
        postal_code: null,
        state: null,
        state_code: null,
        house_number_or_name: null,
        line1: null,
        line2: null,
        organization: null,
      },
    });
    const cleared = await put(BUYER, { billing_details: null });
    expect(cleared.body).toEqual({ ...JANE, billing_details: null, updated_at: FROZEN_AT });
  });

  it('accepts an empty object: nothing changes but updated_at', async () => {
    sb.deps.namespaces.get().clock.advance(60_000);
    const res = await put(BUYER, {});
    expectJson(res, 200);
    expect(res.body).toEqual({ ...JANE, updated_at: '2026-11-22T10:01:00.000Z' });
  });

  it('accepts lengths 1 and 200, refuses 0 and 201 for each string field', async () => {
    for (const field of ['display_name', 'external_identifier', 'account_number']) {
      expect((await put(BUYER, { [field]: 'x' })).body[field]).toBe('x');
      expect((await put(BUYER, { [field]: 'y'.repeat(200) })).body[field]).toBe('y'.repeat(200));
      expectBadRequest(await put(BUYER, { [field]: '' }), [{ location: 'body', pointer: `/${field}`, type: 'string_too_short' }]);
      expectBadRequest(await put(BUYER, { [field]: 'z'.repeat(201) }), [{ location: 'body', pointer: `/${field}`, type: 'string_too_long' }]);
    }
    expect(store(sb).buyers.get(BUYER)).toMatchObject({ display_name: 'y'.repeat(200), account_number: 'y'.repeat(200) });
  });

  it('reports every problem of one request, path and body together, and changes nothing', async () => {
    const res = await put('not-a-uuid', {
      display_name: 42,
      external_identifier: '',
      billing_details: { address: { country: 'usa' }, tax_id: { value: 'x' } },
    });
    expectBadRequest(res, [
      { location: 'path', pointer: '/buyer_id', type: 'uuid_parsing' },
      { location: 'body', pointer: '/display_name', type: 'string_type' },
      { location: 'body', pointer: '/external_identifier', type: 'string_too_short' },
      { location: 'body', pointer: '/billing_details/address/country', type: 'string_pattern_mismatch' },
      { location: 'body', pointer: '/billing_details/tax_id/kind', type: 'missing' },
    ]);
    const again = await put(BUYER, { billing_details: 'none' });
    expectBadRequest(again, [{ location: 'body', pointer: '/billing_details', type: 'dict_type' }]);
    expect(store(sb).buyers.get(BUYER)).toMatchObject({ display_name: 'Jane Doe', updated_at: JANE.updated_at });
  });

  it('refuses a missing body, malformed JSON, a non-object and a non-JSON content type', async () => {
    expectBadRequest(await put(BUYER), [{ location: 'body', pointer: '', type: 'missing' }]);
    const malformed = await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).set('content-type', 'application/json').send('{"display_name": ');
    expectBadRequest(malformed, [{ location: 'body', pointer: '', type: 'json_invalid' }]);
    expectBadRequest(await put(BUYER, [1, 2]), [{ location: 'body', pointer: '', type: 'dict_type' }]);
    const text = await sb.http.put(`/buyers/${BUYER}`).set('authorization', sb.auth).set('content-type', 'text/plain').send('display_name=x');
    expectBadRequest(text, [{ location: 'header', pointer: '/content-type', type: 'content_type' }]);
    expect(store(sb).buyers.get(BUYER)?.updated_at).toBe(JANE.updated_at);
  });

  it('is 404 for an unknown buyer and for a buyer of another merchant account', async () => {
    expectNotFound(await put('b0000000-0000-4000-8000-0000000000ff', { display_name: 'x' }));
    expectNotFound(await put(WELL_KNOWN.buyers.merchantTwo.id, { display_name: 'x' }));
    expect(store(sb).buyers.get(WELL_KNOWN.buyers.merchantTwo.id)?.display_name).toBe('Joost de Vries');
  });

  it('acts on the merchant account named by x-service-merchant-account-id', async () => {
    const res = await put(WELL_KNOWN.buyers.merchantTwo.id, { display_name: 'Joost' }).set(MERCHANT_HEADER, 'merchant-two');
    expectJson(res, 200);
    expect(res.body).toMatchObject({
      id: WELL_KNOWN.buyers.merchantTwo.id,
      merchant_account_id: 'merchant-two',
      display_name: 'Joost',
      account_number: null,
      updated_at: FROZEN_AT,
    });
    expectNotFound(await put(BUYER, { display_name: 'x' }).set(MERCHANT_HEADER, 'merchant-two'));
  });

  it('is 405 with Allow for another method on the path', async () => {
    // "the API reference serves only PUT on /buyers/{buyer_id}"
    expectMethodNotAllowed(await sb.http.get(`/buyers/${BUYER}`).set('authorization', sb.auth), 'PUT', 'GET', '/buyers/{buyer_id}');
    expectMethodNotAllowed(await sb.http.delete(`/buyers/${BUYER}`).set('authorization', sb.auth), 'PUT', 'DELETE', '/buyers/{buyer_id}');
  });
});
