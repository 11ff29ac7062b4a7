// POST /api-key-pairs, the basics: generated and registered pairs, every field, the new pair
// authenticating, duplicates, and the 400/422 cases of the create request.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/mint-token.js';
import { expectErrorBody, keyPem, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { expectBadRequest, expectForbidden, expectJson, expectUnprocessable, FROZEN_AT, store, UUID, useFrozenSandbox } from './support.js';

const ROLES = WELL_KNOWN.roles;
const p521 = () => generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
const thumbprintOf = async (pem: string) => calculateJwkThumbprint(await exportJWK(createPublicKey(pem)), 'sha256');

describe('POST /api-key-pairs', () => {
  const sb = useFrozenSandbox();
  const create = (body: unknown, auth = sb.auth) =>
    sb.http
      .post('/api-key-pairs')
      .set('authorization', auth)
      .send(body as object);

  it('generates an ECDSA pair by default and returns its private key once, every field', async () => {
    const res = await create({ display_name: 'CI key', role_ids: [ROLES.readOnly.id] });
    expectJson(res, 201);
    expect(res.body).toEqual({
      type: 'api-key-pair',
      id: res.body.id,
      thumbprint: res.body.thumbprint,
      display_name: 'CI key',
      algorithm: 'ECDSA',
      active: true,
      private_key: res.body.private_key,
      created_at: FROZEN_AT,
      updated_at: FROZEN_AT,
      last_used_at: null,
      creator: { id: WELL_KNOWN.keyPairs.admin.id, name: 'Admin key', email_address: null, thumbprint: 'mxNzY1gShoXq51ggGtEDr65Z08tTYILhhV6eJw04B6E' },
      merchant_accounts: [],
      roles: [
        {
          type: 'role',
          id: ROLES.readOnly.id,
          name: 'read-only',
          slug: 'read-only',
          description: 'Grants *.read.',
          permissions: { allow: ['*.read'] },
          assignable_to: ['user', 'api-key-pair'],
          applies_to: [],
          is_standalone_assignable: true,
        },
      ],
    });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/);
    const stored = store(sb).api_key_pairs.get(res.body.id)!;
    expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
    expect(res.body.thumbprint).toBe(await thumbprintOf(stored.public_key));

    // The new pair authenticates within its role: reads pass, writes are 403.
    const token = `Bearer ${await mintToken({ privateKeyPem: res.body.private_key })}`;
    expectJson(await sb.http.get('/card-scheme-definitions').set('authorization', token), 200);
    expect(store(sb).api_key_pairs.get(res.body.id)!.last_used_at).toBe(FROZEN_AT);
    expectForbidden(
      await sb.http
        .post('/reports')
        .set('authorization', token)
        .send({ name: 'x', schedule: 'once', schedule_enabled: true, spec: { model: 'transactions', params: {} } }),
    );
  });

  it('shows a user creator with its name and no thumbprint, a key pair creator with its thumbprint', async () => {
    const res = await create({ display_name: 'Made by Dana', role_ids: [ROLES.readOnly.id] });
    expectJson(res, 201);
    const user = WELL_KNOWN.users.dashboardUser;
    store(sb).api_key_pairs.update(res.body.id, { creator: { type: 'user', id: user.id, display_name: user.name } });
    const shown = await sb.http.get(`/_sandbox/records/api_key_pairs/${res.body.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.creator).toEqual({ id: user.id, name: 'Dana Dashboard', email_address: null, thumbprint: null });
    store(sb).api_key_pairs.update(res.body.id, { creator: { type: 'api-key-pair', id: WELL_KNOWN.keyPairs.readOnly.id, display_name: null } });
    const byPair = (await sb.http.get(`/_sandbox/records/api_key_pairs/${res.body.id}`)).body.creator;
    const readOnlyPair = store(sb).api_key_pairs.get(WELL_KNOWN.keyPairs.readOnly.id)!;
    // A creator without a display name is named by its id.
    expect(byPair).toEqual({ id: readOnlyPair.id, name: readOnlyPair.id, email_address: null, thumbprint: readOnlyPair.thumbprint });
  });

  it('generates an RSA pair whose RS512 tokens work', async () => {
    const res = await create({ display_name: 'RSA CI', role_ids: [ROLES.admin.id], algorithm: 'RSA', active: true, merchant_account_ids: ['merchant-two'] });
    expectJson(res, 201);
    expect(res.body).toMatchObject({ algorithm: 'RSA', merchant_accounts: [{ type: 'merchant-account', id: 'merchant-two', display_name: 'Merchant Two' }] });
    const token = `Bearer ${await mintToken({ privateKeyPem: res.body.private_key })}`;
    expectJson(await sb.http.get('/connections').set('authorization', token).set('x-service-merchant-account-id', 'merchant-two'), 200);
    expectForbidden(await sb.http.get('/connections').set('authorization', token));
  });

  it('registers a caller-owned P-521 public key without returning a private key, and refuses it twice', async () => {
    const pem = p521();
    const res = await create({ display_name: 'Own key', role_ids: [ROLES.embed.id], public_key: pem, active: false });
    expectJson(res, 201);
    expect(res.body).toMatchObject({ private_key: null, algorithm: 'ECDSA', active: false, thumbprint: await thumbprintOf(pem) });
    const again = await create({ display_name: 'Own key again', role_ids: [ROLES.embed.id], public_key: pem });
    expectJson(again, 409);
    expectErrorBody(again.body, 409, 'duplicate_record');
    expect(again.body.resource_id).toBe(res.body.id);
    const adminPublic = createPublicKey(keyPem('admin')).export({ type: 'spki', format: 'pem' }).toString();
    const taken = await create({ display_name: 'Admin copy', role_ids: [ROLES.embed.id], public_key: adminPublic });
    expect(taken.body.resource_id).toBe(WELL_KNOWN.keyPairs.admin.id);
  });

  it('is 422 for an unknown role and for a public key that is not an ECDSA P-521 PEM key', async () => {
    const unknown = 'a1000000-0000-4000-8000-0000000000ff';
    expectUnprocessable(await create({ display_name: 'k', role_ids: [ROLES.readOnly.id, unknown] }), [{ loc: ['body', 'role_ids', '1'], input: unknown }]);
    expectUnprocessable(await create({ display_name: 'k', role_ids: [ROLES.readOnly.id], public_key: 'not a key' }), [
      { loc: ['body', 'public_key'], input: 'not a key' },
    ]);
    const p256 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expectUnprocessable(await create({ display_name: 'k', role_ids: [ROLES.readOnly.id], public_key: p256 }), [{ loc: ['body', 'public_key'], input: p256 }]);
    expectUnprocessable(await create({ display_name: 'k', role_ids: [ROLES.readOnly.id], public_key: p521(), algorithm: 'RSA' }), [
      { loc: ['body', 'algorithm'], input: 'RSA' },
    ]);
    expect(store(sb).api_key_pairs.size).toBe(4);
  });

  it('accepts display_name lengths 1 and 200, refuses 0 and 201', async () => {
    expectJson(await create({ display_name: 'k', role_ids: [ROLES.embed.id] }), 201);
    expectJson(await create({ display_name: 'k'.repeat(200), role_ids: [ROLES.embed.id] }), 201);
    expectBadRequest(await create({ display_name: '', role_ids: [ROLES.embed.id] }), [
      { location: 'body', pointer: '/display_name', type: 'string_too_short' },
    ]);
    expectBadRequest(await create({ display_name: 'k'.repeat(201), role_ids: [ROLES.embed.id] }), [
      { location: 'body', pointer: '/display_name', type: 'string_too_long' },
    ]);
  });

  it('reports every schema problem at once: missing, extra, wrong types, enum, items', async () => {
    expectBadRequest(await create({}), [
      { location: 'body', pointer: '/display_name', type: 'missing' },
      { location: 'body', pointer: '/role_ids', type: 'missing' },
    ]);
    expectBadRequest(await create({ display_name: 7, role_ids: [], algorithm: 'DSA', active: 'yes', merchant_account_ids: 'default', scopes: ['*'] }), [
      { location: 'body', pointer: '/display_name', type: 'string_type' },
      { location: 'body', pointer: '/role_ids', type: 'too_short' },
      { location: 'body', pointer: '/algorithm', type: 'enum' },
      { location: 'body', pointer: '/active', type: 'bool_type' },
      { location: 'body', pointer: '/merchant_account_ids', type: 'list_type' },
      { location: 'body', pointer: '/scopes', type: 'extra_forbidden' },
    ]);
    expectBadRequest(await create({ display_name: 'k', role_ids: ['admin'], public_key: 5 }), [
      { location: 'body', pointer: '/role_ids/0', type: 'uuid_parsing' },
      { location: 'body', pointer: '/public_key', type: 'string_type' },
    ]);
    expect(store(sb).api_key_pairs.size).toBe(4);
  });

  it('is 403 when the roles exceed the caller or the merchant account is unknown', async () => {
    const narrow = `Bearer ${await tokenFor('admin', { scopes: ['api-key-pairs.write'] })}`;
    expectForbidden(await create({ display_name: 'k', role_ids: [ROLES.readOnly.id] }, narrow));
    expectForbidden(await create({ display_name: 'k', role_ids: [ROLES.embed.id], merchant_account_ids: ['no-such-account'] }));
    expect(store(sb).api_key_pairs.size).toBe(4);
  });
});
