// uuids are taken in any letter case (and with the urn:uuid: prefix the uuid format allows), and
// answered and stored in lower case: every uuid path parameter, the uuid query filters, role_ids and
// checkout_session_id. Each call is made once with the ids as stored and once upper-cased, from the
// same state: same status, same body, same state afterwards.
import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { canonicalizeAt, canonicalUuid, EVERY_ITEM, uuidPaths } from '../../src/spec/uuid-fields.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectJson, expectNoContent, expectNotFound, FROZEN_AT, freezeClock, MERCHANT_HEADER, UUID, useFrozenSandbox } from './support.js';

const WK = WELL_KNOWN;
const upper = (id: string) => id.toUpperCase();
/** Upper-case hex digits in a mixed-case uuid, e.g. c1000000-...-00000000000A. */
const mixed = (id: string) => id.replace(/[a-f0-9]/g, (ch, i) => (i % 2 ? ch.toUpperCase() : ch));

describe('uuids in any letter case', () => {
  const sb = useFrozenSandbox();

  /** The namespace back to the fixtures, clock frozen at FROZEN_AT. */
  const fresh = () => {
    sb.deps.namespaces.reset('default');
    freezeClock(sb);
  };
  const snapshot = async () => (await sb.http.get('/_sandbox/snapshot')).text;

  /**
   * Runs `call` with the ids as given (lower case) and then with `transform`ed ids, each from the
   * fixtures: both answers and the states they leave must be equal. Returns the second answer.
   */
  async function sameWithIds(call: (id: (raw: string) => string) => Promise<Response>, transform = upper): Promise<Response> {
    fresh();
    const lower = await call((raw) => raw);
    const stateAfterLower = await snapshot();
    fresh();
    const other = await call(transform);
    expect(other.status, JSON.stringify(other.body)).toBe(lower.status);
    expect(other.headers['content-type']).toBe(lower.headers['content-type']);
    // Links to the sandbox's hosted pages name the address each request reached (supertest listens anew each time).
    expect(withoutOrigin(other)).toBe(withoutOrigin(lower));
    expect(await snapshot()).toBe(stateAfterLower);
    return other;
  }
  const withoutOrigin = (res: Response) => res.text.replaceAll(new URL((res as any).request.url).origin, 'http://sandbox');
  const api = () => sb.http;
  const auth = () => sb.auth;

  it('PUT /buyers/{buyer_id}: updates the buyer and answers its id in lower case', async () => {
    const rename = (id: (raw: string) => string) =>
      api()
        .put(`/buyers/${id(WK.buyers.default.id)}`)
        .set('authorization', auth())
        .send({ display_name: 'Ada' });
    // Upper case, mixed case, and the urn:uuid: form the uuid format allows (in upper case too).
    for (const transform of [upper, mixed, (raw: string) => `URN:UUID:${raw.toUpperCase()}`]) {
      const res = await sameWithIds(rename, transform);
      expectJson(res, 200);
      expect(res.body).toMatchObject({ id: WK.buyers.default.id, display_name: 'Ada', updated_at: FROZEN_AT });
    }
  });

  it('every other uuid path parameter finds its record', async () => {
    const PM = WK.paymentMethods.card.id;
    const tokens = await sameWithIds((id) =>
      api()
        .get(`/payment-methods/${id(PM)}/payment-service-tokens`)
        .set('authorization', auth()),
    );
    expectJson(tokens, 200);
    expect(tokens.body.items).toHaveLength(3);
    for (const t of tokens.body.items) {
      expect(t.payment_method_id).toBe(PM);
      expect(t.id).toMatch(UUID);
    }

    const transaction = await sameWithIds((id) =>
      api()
        .post(`/transactions/${id(WK.transactions.default.id)}/session?token=${WK.transactions.default.sessionToken}`)
        .set('authorization', auth())
        .send({ payload: { step: 2 } }),
    );
    expectJson(transaction, 200);
    expect(transaction.body.session_data.step).toBe(2);

    const authentications = await sameWithIds((id) =>
      api()
        .get(`/vault-forward/configs/${id(WK.vaultForwardConfigs.default.id)}/authentications`)
        .set('authorization', auth()),
    );
    expect(authentications.body.items.map((a: any) => a.id)).toEqual([WK.vaultForwardAuthentications.primary.id, WK.vaultForwardAuthentications.secondary.id]);

    const execution = await sameWithIds((id) =>
      api()
        .get(`/report-executions/${id(WK.reportExecutions.pending.id)}`)
        .set('authorization', auth()),
    );
    expectJson(execution, 200);
    expect(execution.body).toMatchObject({ id: WK.reportExecutions.pending.id, report: { id: WK.reports.daily.id } });

    const deletions = [
      ['/checkout/sessions', WK.checkoutSessions.default.id],
      ['/anti-fraud-services', WK.antiFraudServices.default.id],
      ['/apple-pay-certificates', WK.applePayCertificates.default.id],
      ['/webhook-subscriptions', WK.webhookSubscriptions.default.id],
    ] as const;
    for (const [path, recordId] of deletions) {
      expectNoContent(
        await sameWithIds((id) =>
          api()
            .delete(`${path}/${id(recordId)}`)
            .set('authorization', auth()),
        ),
      );
      // Deleted under its upper-case id: gone in either case.
      expectNotFound(await api().delete(`${path}/${recordId}`).set('authorization', auth()));
      expectNotFound(
        await api()
          .delete(`${path}/${upper(recordId)}`)
          .set('authorization', auth()),
      );
    }
  });

  it('POST .../network-tokens/{id}/cryptogram: both path ids in any case', async () => {
    fresh();
    const path = (pm: string, nt: string) => `/payment-methods/${pm}/network-tokens/${nt}/cryptogram`;
    const res = await api()
      .post(path(upper(WK.paymentMethods.card.id), mixed(WK.networkTokens.active.id)))
      .set('authorization', auth())
      .send({ merchant_initiated: true });
    expectJson(res, 201);
    expect(Object.keys(res.body).sort()).toEqual(['cryptogram', 'type']);
    expect(res.body.type).toBe('network-token-cryptogram');
    // A token of another payment method stays a 404 in any case.
    expectNotFound(
      await api()
        .post(path(upper(WK.paymentMethods.card.id), upper(WK.networkTokens.otherMethod.id)))
        .set('authorization', auth())
        .send({ merchant_initiated: true }),
    );
  });

  it('uuid query filters: buyer_id of gift cards and payment methods, payment_service_id', async () => {
    const buyer = WK.buyers.default.id;
    const cards = await sameWithIds((id) =>
      api()
        .get(`/gift-cards?buyer_id=${id(buyer)}&limit=100`)
        .set('authorization', auth()),
    );
    expectJson(cards, 200);
    expect(cards.body.items.length).toBeGreaterThan(5);
    for (const card of cards.body.items) expect(card.buyer.id).toBe(buyer);

    const methods = await sameWithIds((id) =>
      api()
        .get(`/buyers/payment-methods?buyer_id=${id(buyer)}`)
        .set('authorization', auth()),
    );
    expectJson(methods, 200);
    expect(methods.body.items).toHaveLength(6);

    const stripe = WK.paymentServices.stripe.id;
    const tokens = await sameWithIds((id) =>
      api()
        .get(`/payment-methods/${WK.paymentMethods.card.id}/payment-service-tokens?payment_service_id=${id(stripe)}`)
        .set('authorization', auth()),
    );
    expect(tokens.body.items.map((t: any) => [t.id, t.payment_service_id])).toEqual([[WK.paymentServiceTokens.stripe.id, stripe]]);
  });

  it('body uuids: role_ids of a new key pair, checkout_session_id of Click to Pay', async () => {
    fresh();
    const created = await api()
      .post('/api-key-pairs')
      .set('authorization', auth())
      .send({ display_name: 'Upper roles', role_ids: [upper(WK.roles.readOnly.id), mixed(WK.roles.embed.id)] });
    expectJson(created, 201);
    expect(created.body.roles.map((r: any) => r.id)).toEqual([WK.roles.readOnly.id, WK.roles.embed.id]);
    const stored = await sb.http.get(`/_sandbox/records/api_key_pairs/${created.body.id}?shape=stored`);
    expect(stored.body.role_ids).toEqual([WK.roles.readOnly.id, WK.roles.embed.id]);

    const clickToPay = await sameWithIds((id) =>
      api()
        .post('/digital-wallets/click-to-pay/session')
        .send({ checkout_session_id: id(WK.checkoutSessions.default.id) }),
    );
    expect(clickToPay.body).toEqual({ digital_payment_application_id: 'sandbox-dpa-default', digital_payment_application_name: 'Default' });
  });

  it('keeps refusing what is not a uuid, and records of other merchant accounts, in any case', async () => {
    fresh();
    expectBadRequest(
      await api()
        .put(`/buyers/${upper(WK.buyers.default.id)}X`)
        .set('authorization', auth())
        .send({}),
      [{ location: 'path', pointer: '/buyer_id', type: 'uuid_parsing' }],
    );
    expectBadRequest(await api().get('/gift-cards?buyer_id=B0000000-0000-4000-8000-00000000000G').set('authorization', auth()), [
      { location: 'query', pointer: '/buyer_id', type: 'uuid_parsing' },
    ]);
    const missing = await api().put('/buyers/B0000000-0000-4000-8000-0000000000FF').set('authorization', auth()).send({});
    expectNotFound(missing);
    expect(missing.body.message).toContain('b0000000-0000-4000-8000-0000000000ff');
    expectNotFound(
      await api()
        .put(`/buyers/${upper(WK.buyers.merchantTwo.id)}`)
        .set('authorization', auth())
        .send({}),
    );
    const two = await api()
      .put(`/buyers/${upper(WK.buyers.merchantTwo.id)}`)
      .set('authorization', auth())
      .set(MERCHANT_HEADER, 'merchant-two')
      .send({});
    expectJson(two, 200);
    expect(two.body.id).toBe(WK.buyers.merchantTwo.id);
  });

  it('the journal keeps the path as the client sent it', async () => {
    fresh();
    await sb.http.delete('/_sandbox/requests');
    await api()
      .put(`/buyers/${upper(WK.buyers.default.id)}`)
      .set('authorization', auth())
      .send({ display_name: 'Ada' });
    const journal = await sb.http.get('/_sandbox/requests?operation_id=updateBuyer');
    expect(journal.body.items[0].path).toBe(`/buyers/${upper(WK.buyers.default.id)}`);
    expect(journal.body.items[0].response_body.id).toBe(WK.buyers.default.id);
  });

  it('the records API stores the uuids a record schema declares in lower case', async () => {
    fresh();
    const id = 'B0000000-0000-4000-8000-0000000000AB';
    const created = await sb.http.post('/_sandbox/records/buyers').send({ id, display_name: 'Upper' });
    expect(created.status).toBe(201);
    expect(created.body.id).toBe(id.toLowerCase());
    const token = await sb.http
      .post('/_sandbox/records/payment_service_tokens')
      .send({ payment_method_id: upper(WK.paymentMethods.card.id), payment_service_id: upper(WK.paymentServices.adyen.id), token: 'tok_upper' });
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    expect(token.body).toMatchObject({ payment_method_id: WK.paymentMethods.card.id, payment_service_id: WK.paymentServices.adyen.id });
    // The API finds the buyer by either case.
    expectJson(await api().put(`/buyers/${id}`).set('authorization', auth()).send({ display_name: 'Found' }), 200);
    expectJson(await api().put(`/buyers/${id.toLowerCase()}`).set('authorization', auth()).send({ display_name: 'Found' }), 200);
    expect((await sb.http.post('/_sandbox/records/buyers').send({ id: id.toLowerCase() })).status).toBe(409);
  });
});

describe('uuid fields of a schema (src/spec/uuid-fields.ts)', () => {
  const docs: Record<string, any> = {
    'a.json': {
      components: {
        schemas: {
          Node: {
            type: 'object',
            properties: { id: { type: 'string', format: 'uuid' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
          },
          Ref: { $ref: 'b.json#/components/schemas/Other' },
        },
      },
    },
    'b.json': {
      components: { schemas: { Other: { oneOf: [{ $ref: '#/components/schemas/Id' }, { type: 'null' }] }, Id: { type: 'string', format: 'uuid' } } },
    },
  };
  const resolve = (ref: string, base: string) => {
    const [file, pointer] = ref.startsWith('#') ? [base, ref] : [ref.slice(0, ref.indexOf('#')), ref.slice(ref.indexOf('#'))];
    const schema = pointer
      .slice(2)
      .split('/')
      .reduce((node: any, part: string) => node?.[part], docs[file]);
    return { schema, base: file };
  };

  it('finds nested fields, array items and refs into another document; a recursive ref is not followed again', () => {
    const schema = {
      type: 'object',
      properties: {
        node: { $ref: '#/components/schemas/Node' },
        ids: { type: 'array', items: { $ref: '#/components/schemas/Ref' } },
        plain: { type: 'string' },
      },
    };
    expect(uuidPaths(schema, 'a.json', resolve)).toEqual([
      ['node', 'id'],
      ['ids', EVERY_ITEM],
    ]);
    // The same schema one level in: its own field, and the recursion stops at the next Node.
    expect(uuidPaths({ $ref: '#/components/schemas/Node' }, 'a.json', resolve)).toEqual([['id']]);
  });

  it('brings only valid uuids at those paths to lower case, leaving everything else as it is', () => {
    const U = 'B0000000-0000-4000-8000-0000000000AB';
    const body: any = { node: { id: U, children: [{ id: U }, null, 'x', { id: 7 }] }, ids: [U, 3], plain: U };
    canonicalizeAt(body, [
      ['node', 'id'],
      ['node', 'children', EVERY_ITEM, 'id'],
      ['ids', EVERY_ITEM],
      ['absent', 'id'],
    ]);
    const l = U.toLowerCase();
    expect(body).toEqual({ node: { id: l, children: [{ id: l }, null, 'x', { id: 7 }] }, ids: [l, 3], plain: U });
    expect(canonicalUuid(`urn:uuid:${U}`)).toBe(l);
    expect(canonicalUuid(l)).toBe(l);
    expect(canonicalUuid('not-a-uuid')).toBe('not-a-uuid');
    expect(canonicalUuid(`xxx:yyyy:${U}`)).toBe(`xxx:yyyy:${U}`);
  });
});
