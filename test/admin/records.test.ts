import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { publicKeyPemOf, thumbprintOf } from '../../src/auth/key-material.js';
import { COLLECTION_NAMES } from '../../src/store/records.js';
import { expectErrorBody, keyPem, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';

describe('records API', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));
  const records = (path: string) => `/_sandbox/records/${path}`;

  it('lists every collection with totals and pagination', async () => {
    for (const name of COLLECTION_NAMES) {
      const res = await sb.http.get(records(`${name}?limit=2&offset=1`));
      expect(res.status, name).toBe(200);
      const stored = sb.deps.namespaces.get('default').store.collections[name].all();
      expect(res.body.total, name).toBe(stored.length);
      expect(res.body.limit).toBe(2);
      expect(res.body.offset).toBe(1);
      expect(
        res.body.items.map((r: { id: string }) => r.id),
        name,
      ).toEqual(stored.slice(1, 3).map((r) => r.id));
    }
  });

  it('returns records in the API shape by default and as stored with shape=stored', async () => {
    const id = WELL_KNOWN.giftCards.default.id;
    const api = await sb.http.get(`/gift-cards?limit=100`).set('authorization', sb.auth);
    const fromApi = api.body.items.find((g: { id: string }) => g.id === id);
    const viaRecords = await sb.http.get(records(`gift_cards/${id}`));
    expect(viaRecords.status).toBe(200);
    expect(viaRecords.body).toEqual(fromApi);
    const stored = await sb.http.get(records(`gift_cards/${id}?shape=stored`));
    expect(stored.body.buyer_id).toBe(WELL_KNOWN.buyers.default.id);
    expect(stored.body.buyer).toBeUndefined();

    const buyer = await sb.http.put(`/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).send({});
    expect(buyer.status).toBe(200);
    expect((await sb.http.get(records(`buyers/${WELL_KNOWN.buyers.default.id}`))).body).toEqual(buyer.body);
    const pair = await sb.http.get(records(`api_key_pairs/${WELL_KNOWN.keyPairs.admin.id}`));
    expect(pair.body.private_key).toBeNull();
    expect(pair.body.public_key).toBeUndefined();
    expect(pair.body.roles[0]).toMatchObject({ type: 'role', id: WELL_KNOWN.roles.admin.id });
  });

  it('filters by merchant_account_id, and refuses it on collections without one', async () => {
    const res = await sb.http.get(records('buyers?merchant_account_id=merchant-two&limit=1000'));
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    expect(res.body.items.every((b: { merchant_account_id: string }) => b.merchant_account_id === 'merchant-two')).toBe(true);
    const bad = await sb.http.get(records('roles?merchant_account_id=default'));
    expect(bad.status).toBe(400);
    expectErrorBody(bad.body, 400, 'bad_request');
    expect(bad.body.details[0]).toMatchObject({ location: 'query', pointer: '/merchant_account_id' });
  });

  it('rejects an unknown collection and bad paging with 400', async () => {
    const res = await sb.http.get(records('dragons'));
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.details[0]).toMatchObject({ location: 'path', pointer: '/collection', type: 'enum' });
    const paging = await sb.http.get(records('buyers?limit=0&offset=-1'));
    expect(paging.status).toBe(400);
    expect(paging.body.details.map((d: { pointer: string }) => d.pointer).sort()).toEqual(['/limit', '/offset']);
  });

  it('creates a record with defaults from the namespace clock, visible through the API', async () => {
    const res = await sb.http.post(records('webhook_subscriptions')).send({ url: 'https://hooks.example/a' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      type: 'webhook-subscription',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      merchant_account_id: 'default',
      url: 'https://hooks.example/a',
      active: true,
      secret: expect.stringMatching(/^[0-9a-f]{64}$/), // generated: the control API is where it is read
      created_at: expect.any(String),
      updated_at: res.body.created_at,
    });
    expect((await sb.http.get(records(`webhook_subscriptions/${res.body.id}`))).body).toEqual(res.body);
    const del = await sb.http.delete(`/webhook-subscriptions/${res.body.id}`).set('authorization', sb.auth);
    expect(del.status).toBe(204);
  });

  it('creates a gift card from ids and serves it expanded', async () => {
    const body = {
      id: 'f1000000-0000-4000-8000-0000000000aa',
      buyer_id: WELL_KNOWN.buyers.default.id,
      gift_card_service_id: WELL_KNOWN.giftCardServices.default.id,
      bin: '123456',
      sub_bin: '78',
      last4: '4242',
      expiration_date: '2030-01-01T00:00:00.000Z',
      last_used_at: '2026-01-01T00:00:00.000Z',
      cit_last_used_at: '2026-01-01T00:00:00.000Z',
      created_at: '2026-01-02T00:00:00.000Z',
    };
    const res = await sb.http.post(records('gift_cards')).send(body);
    expect(res.status).toBe(201);
    expect(res.body.buyer.id).toBe(WELL_KNOWN.buyers.default.id);
    expect(res.body.gift_card_service.id).toBe(WELL_KNOWN.giftCardServices.default.id);
    expect(res.body.usage_count).toBe(0);
    expect(res.body.updated_at).toBe('2026-01-02T00:00:00.000Z');
    const list = await sb.http.get(`/gift-cards?buyer_id=${WELL_KNOWN.buyers.default.id}&limit=100`).set('authorization', sb.auth);
    expect(list.body.items.map((g: { id: string }) => g.id)).toContain(body.id);

    const dup = await sb.http.post(records('gift_cards')).send(body);
    expect(dup.status).toBe(409);
    expectErrorBody(dup.body, 409, 'duplicate_record');
    expect(dup.body.resource_id).toBe(body.id);
  });

  it('answers a record breaking its schema with 400 and one detail per problem', async () => {
    const before = (await sb.http.get(records('webhook_subscriptions'))).body.total;
    const res = await sb.http.post(records('webhook_subscriptions')).send({ url: 'not a url', colour: 'red', merchant_account_id: 7 });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    const byPointer = Object.fromEntries(res.body.details.map((d: { pointer: string; type: string }) => [d.pointer, d.type]));
    expect(byPointer).toEqual({ '/url': 'url_parsing', '/colour': 'extra_forbidden', '/merchant_account_id': 'string_type' });
    const array = await sb.http.post(records('buyers')).send([1]);
    expect(array.status).toBe(400);
    expect((await sb.http.get(records('webhook_subscriptions'))).body.total).toBe(before);
  });

  it('answers references to missing records with 422', async () => {
    const res = await sb.http.post(records('gift_cards')).send({
      buyer_id: 'nobody',
      gift_card_service_id: WELL_KNOWN.giftCardServices.default.id,
      merchant_account_id: 'nowhere',
      bin: '1',
      sub_bin: '2',
      last4: '0000',
      expiration_date: '2030-01-01T00:00:00.000Z',
      last_used_at: '2026-01-01T00:00:00.000Z',
      cit_last_used_at: '2026-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['body.merchant_account_id', 'body.buyer_id']);
  });

  it('patches by merging top-level fields and keeps the id', async () => {
    const id = WELL_KNOWN.buyers.default.id;
    const res = await sb.http.patch(records(`buyers/${id}`)).send({ display_name: 'Patched', updated_at: '2027-05-05T00:00:00.000Z' });
    expect(res.status).toBe(200);
    expect(res.body.display_name).toBe('Patched');
    expect(res.body.updated_at).toBe('2027-05-05T00:00:00.000Z');
    const api = await sb.http.put(`/buyers/${id}`).set('authorization', sb.auth).send({ account_number: 'acc-1' });
    expect(api.body.display_name).toBe('Patched');
    const idChange = await sb.http.patch(records(`buyers/${id}`)).send({ id: 'other' });
    expect(idChange.status).toBe(400);
    expect(idChange.body.details[0]).toMatchObject({ pointer: '/id', type: 'frozen_field' });
    const badType = await sb.http.patch(records(`buyers/${id}`)).send({ display_name: 5 });
    expect(badType.status).toBe(400);
    expect((await sb.http.get(records(`buyers/${id}`))).body).toMatchObject({ display_name: 'Patched', account_number: 'acc-1' });
    expect((await sb.http.patch(records('buyers/missing')).send({})).status).toBe(404);
  });

  it('creates and patches card scheme definitions, which have no timestamps, without adding any', async () => {
    const created = await sb.http.post(records('card_scheme_definitions?shape=stored')).send({
      type: 'card-scheme-definition',
      id: 'records-test-scheme',
      icon_url: 'https://cdn.payments-sandbox.example/icons/rt.svg',
      display_name: 'Records Test',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      type: 'card-scheme-definition',
      id: 'records-test-scheme',
      icon_url: 'https://cdn.payments-sandbox.example/icons/rt.svg',
      display_name: 'Records Test',
    });
    const patched = await sb.http.patch(records('card_scheme_definitions/records-test-scheme')).send({ display_name: 'Records Test Renamed' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, display_name: 'Records Test Renamed' });
    expect(sb.deps.namespaces.get().store.collections.card_scheme_definitions.get('records-test-scheme')).toEqual(patched.body);
    // Timestamps sent to a kind without them are still refused by its schema.
    const stamped = await sb.http.patch(records('card_scheme_definitions/records-test-scheme')).send({ updated_at: '2027-01-01T00:00:00.000Z' });
    expect(stamped.status).toBe(400);
    expect(stamped.body.details).toEqual([expect.objectContaining({ location: 'body', pointer: '/updated_at', type: 'extra_forbidden' })]);
    expect(sb.deps.namespaces.get().store.collections.card_scheme_definitions.get('records-test-scheme')).toEqual(patched.body);
  });

  it('refuses to delete a record that others still name (422), and deletes it once they are gone', async () => {
    const BUYER = 'b2000000-0000-4000-8000-0000000000cc';
    const CARD = 'f3000000-0000-4000-8000-0000000000cc';
    const jane = (await sb.http.get(records(`buyers/${WELL_KNOWN.buyers.default.id}`))).body;
    expect((await sb.http.post(records('buyers')).send({ ...jane, id: BUYER })).status).toBe(201);
    const card = (await sb.http.get(records(`gift_cards/${WELL_KNOWN.giftCards.default.id}?shape=stored`))).body;
    expect((await sb.http.post(records('gift_cards')).send({ ...card, id: CARD, buyer_id: BUYER })).status).toBe(201);

    const refused = await sb.http.delete(records(`buyers/${BUYER}`));
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      detail: [
        {
          loc: ['path', 'record_id'],
          msg: `1 gift_cards record still names this record in buyer_id (${CARD}): delete it, or point buyer_id at another record, first.`,
          type: 'value_error',
          input: BUYER,
          ctx: { collection: 'gift_cards', field: 'buyer_id', count: 1 },
        },
      ],
    });
    // Nothing changed: the buyer is there, and its card still shows it.
    expect((await sb.http.get(records(`buyers/${BUYER}`))).status).toBe(200);
    const listed = await sb.http.get(`/gift-cards?buyer_id=${BUYER}`).set('authorization', sb.auth);
    expect(listed.body.items.map((g: any) => [g.id, g.buyer.id])).toEqual([[CARD, BUYER]]);

    expect((await sb.http.delete(records(`gift_cards/${CARD}`))).status).toBe(204);
    expect((await sb.http.delete(records(`buyers/${BUYER}`))).status).toBe(204);
    expect((await sb.http.get(records(`buyers/${BUYER}`))).status).toBe(404);
  });

  it('names every collection and field that still refers, with a count and the first ids', async () => {
    const janeId = WELL_KNOWN.buyers.default.id;
    const db = sb.deps.namespaces.get().store.collections;
    const janesCards = db.gift_cards.where((g) => g.buyer_id === janeId).map((g) => g.id);
    expect(janesCards.length).toBeGreaterThan(3);
    const refused = await sb.http.delete(records(`buyers/${janeId}`));
    expect(refused.status).toBe(422);
    const cards = refused.body.detail.find((d: any) => d.ctx.collection === 'gift_cards');
    expect(cards).toEqual({
      loc: ['path', 'record_id'],
      msg: `${janesCards.length} gift_cards records still name this record in buyer_id (${janesCards.slice(0, 3).join(', ')}, and ${janesCards.length - 3} more): delete them, or point buyer_id at another record, first.`,
      type: 'value_error',
      input: janeId,
      ctx: { collection: 'gift_cards', field: 'buyer_id', count: janesCards.length },
    });
    for (const item of refused.body.detail) {
      expect(item.loc).toEqual(['path', 'record_id']);
      const referring = (db as any)[item.ctx.collection].where((r: any) => r[item.ctx.field] === janeId);
      expect(item.ctx.count).toBe(referring.length);
    }
    expect(db.buyers.get(janeId)).toBeDefined();

    // A merchant account that records belong to: each of those collections is named.
    const merchant = await sb.http.delete(records('merchant_accounts/merchant-two'));
    expect(merchant.status).toBe(422);
    expect(merchant.body.detail.map((d: any) => d.ctx.field)).toContain('merchant_account_id');
    expect(merchant.body.detail.map((d: any) => d.ctx.collection)).toEqual(expect.arrayContaining(['buyers', 'gift_cards']));
    expect(db.merchant_accounts.get('merchant-two')).toBeDefined();
  });

  it('deletes a record (204), then 404', async () => {
    const id = WELL_KNOWN.applePayCertificates.default.id;
    expect((await sb.http.delete(records(`apple_pay_certificates/${id}`))).status).toBe(204);
    const again = await sb.http.delete(records(`apple_pay_certificates/${id}`));
    expect(again.status).toBe(404);
    expectErrorBody(again.body, 404, 'not_found');
    const get = await sb.http.get(records(`apple_pay_certificates/${id}`));
    expect(get.status).toBe(404);
  });

  it('registers an API key pair from a public key, computing thumbprint and algorithm', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const res = await sb.http.post(records('api_key_pairs')).send({ display_name: 'CI key', public_key: pem, role_ids: [WELL_KNOWN.roles.readOnly.id] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: 'api-key-pair',
      algorithm: 'ECDSA',
      thumbprint: await thumbprintOf(pem),
      private_key: null,
      active: true,
      merchant_accounts: [],
    });
    const dup = await sb.http.post(records('api_key_pairs')).send({ display_name: 'again', public_key: publicKeyPemOf(keyPem('admin')) });
    expect(dup.status).toBe(409);
    expect(dup.body.resource_id).toBe(WELL_KNOWN.keyPairs.admin.id);
    const notKey = await sb.http.post(records('api_key_pairs')).send({ display_name: 'x', public_key: 'nope' });
    expect(notKey.status).toBe(422);
    expect(notKey.body.detail[0].loc).toEqual(['body', 'public_key']);
    const fresh = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const badRole = await sb.http.post(records('api_key_pairs')).send({ display_name: 'x', public_key: fresh, role_ids: ['missing'] });
    expect(badRole.status).toBe(422);
    expect(badRole.body.detail[0].loc).toEqual(['body', 'role_ids', '0']);
  });
});
