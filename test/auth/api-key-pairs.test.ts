// POST /api-key-pairs: generated (ECDSA, RSA) and registered pairs, each usable at once, and the
// 400/422 answers to a body of the wrong shape or meaning.
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/mint-token.js';
import { expectErrorBody, keyPem, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { calls, createPair, pairRecord, thumbprintOfPem } from './support.js';

const CREATED_AT = '2030-02-03T04:05:06.000Z';
const ADMIN_ROLE = {
  type: 'role',
  id: WELL_KNOWN.roles.admin.id,
  name: 'admin',
  slug: 'admin',
  description: 'Grants *.read, *.write, embed.',
  permissions: { allow: ['*.read', '*.write', 'embed'] },
  assignable_to: ['user', 'api-key-pair'],
  applies_to: [],
  is_standalone_assignable: true,
};
/** The admin key pair as a creator: its display name and its thumbprint (of fixtures/keys/admin.pem). */
const ADMIN_CREATOR = { id: WELL_KNOWN.keyPairs.admin.id, name: 'Admin key', email_address: null, thumbprint: 'mxNzY1gShoXq51ggGtEDr65Z08tTYILhhV6eJw04B6E' };

describe('POST /api-key-pairs', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
    sb.deps.namespaces.get().clock.freeze(Date.parse(CREATED_AT));
  });
  afterAll(() => sb?.server.close());

  const post = (body: unknown) =>
    sb.http
      .post('/api-key-pairs')
      .set('authorization', sb.auth)
      .send(body as object);

  describe('generated pairs', () => {
    it('generates an ECDSA P-521 pair, returns its PKCS#8 private key and a token signed with it works', async () => {
      const body = await createPair(sb, sb.auth, { display_name: 'Generated ECDSA', role_ids: [WELL_KNOWN.roles.admin.id] });
      expect(body.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/);
      const key = createPrivateKey(body.private_key);
      expect(key.asymmetricKeyType).toBe('ec');
      expect(key.asymmetricKeyDetails?.namedCurve).toBe('secp521r1');
      expect(body).toEqual({
        type: 'api-key-pair',
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        thumbprint: await thumbprintOfPem(body.private_key),
        display_name: 'Generated ECDSA',
        algorithm: 'ECDSA',
        active: true,
        private_key: body.private_key,
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
        last_used_at: null,
        creator: ADMIN_CREATOR,
        merchant_accounts: [],
        roles: [ADMIN_ROLE],
      });
      const res = await calls.read(sb, `Bearer ${await mintToken({ privateKeyPem: body.private_key, ttlSeconds: 30 })}`);
      expect(res.status).toBe(200);
      expect(pairRecord(sb, body.id)!.last_used_at).toBe(CREATED_AT);
    });

    it('generates an RSA pair whose RS512 tokens work', async () => {
      const body = await createPair(sb, sb.auth, { display_name: 'Generated RSA', role_ids: [WELL_KNOWN.roles.admin.id], algorithm: 'RSA' });
      expect(body.algorithm).toBe('RSA');
      expect(createPrivateKey(body.private_key).asymmetricKeyType).toBe('rsa');
      expect(body.thumbprint).toBe(await thumbprintOfPem(body.private_key));
      const token = await mintToken({ privateKeyPem: body.private_key });
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'RS512', kid: body.thumbprint });
      expect((await calls.read(sb, `Bearer ${token}`)).status).toBe(200);
    });

    it('creates an inactive pair whose tokens are refused', async () => {
      const body = await createPair(sb, sb.auth, { display_name: 'Born inactive', role_ids: [WELL_KNOWN.roles.admin.id], active: false });
      expect(body.active).toBe(false);
      const res = await calls.read(sb, `Bearer ${await mintToken({ privateKeyPem: body.private_key })}`);
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/inactive/);
    });

    it('lists merchant accounts and roles once each, in the order given', async () => {
      const body = await createPair(sb, sb.auth, {
        display_name: 'Two accounts',
        role_ids: [WELL_KNOWN.roles.embed.id, WELL_KNOWN.roles.readOnly.id, WELL_KNOWN.roles.embed.id],
        merchant_account_ids: ['merchant-two', 'default', 'merchant-two'],
      });
      expect(body.merchant_accounts).toEqual([
        {
          type: 'merchant-account',
          id: 'merchant-two',
          display_name: 'Merchant Two',
          created_at: '2025-01-02T09:00:00.000Z',
          updated_at: '2025-01-02T09:00:00.000Z',
        },
        { type: 'merchant-account', id: 'default', display_name: 'Default', created_at: '2025-01-02T09:00:00.000Z', updated_at: '2025-01-02T09:00:00.000Z' },
      ]);
      expect(body.roles.map((r: any) => r.name)).toEqual(['embed', 'read-only']);
    });
  });

  describe('registered public keys', () => {
    it('registers an ECDSA P-521 public key: no private_key, and the caller-signed token works', async () => {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
      const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
      const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const body = await createPair(sb, sb.auth, {
        display_name: 'Registered',
        role_ids: [WELL_KNOWN.roles.admin.id],
        public_key: publicPem,
        algorithm: 'ECDSA',
      });
      expect(body.private_key).toBeNull();
      expect(body.algorithm).toBe('ECDSA');
      expect(body.thumbprint).toBe(await thumbprintOfPem(publicPem));
      expect(pairRecord(sb, body.id)!.public_key).toBe(publicPem);
      expect((await calls.read(sb, `Bearer ${await mintToken({ privateKeyPem: privatePem })}`)).status).toBe(200);
    });

    it('accepts public_key null as "generate one"', async () => {
      const body = await createPair(sb, sb.auth, { display_name: 'Null key', role_ids: [WELL_KNOWN.roles.admin.id], public_key: null });
      expect(typeof body.private_key).toBe('string');
    });
  });

  describe('422 for a body whose meaning is wrong', () => {
    async function expect422(body: unknown, loc: string[], msg: RegExp) {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body.detail).toHaveLength(1);
      const [item] = res.body.detail;
      expect(Object.keys(item).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
      expect(item.loc).toEqual(loc);
      expect(item.type).toBe('value_error');
      expect(item.msg).toMatch(msg);
      return item;
    }
    const base = { display_name: 'Bad', role_ids: [WELL_KNOWN.roles.admin.id] };
    const spki = (key: ReturnType<typeof generateKeyPairSync>['publicKey']) => key.export({ type: 'spki', format: 'pem' }).toString();

    it('refuses an RSA or P-256 public key', async () => {
      await expect422(
        { ...base, public_key: spki(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey) },
        ['body', 'public_key'],
        /must be an ECDSA P-521 \(ES512\) public key; this is a rsa key/,
      );
      await expect422(
        { ...base, public_key: spki(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey) },
        ['body', 'public_key'],
        /this is an EC key on prime256v1/,
      );
    });

    it('refuses garbage and a PEM block that holds no key', async () => {
      const item = await expect422({ ...base, public_key: 'not a key' }, ['body', 'public_key'], /not a PEM-encoded public key/);
      expect(item.input).toBe('not a key');
      await expect422(
        { ...base, public_key: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----' },
        ['body', 'public_key'],
        /does not hold a readable public key/,
      );
    });

    it('refuses a private key sent as public_key without echoing it', async () => {
      const item = await expect422({ ...base, public_key: keyPem('admin') }, ['body', 'public_key'], /holds a private key/);
      expect(item.input).toBe('[redacted: a private key]');
    });

    it('refuses algorithm RSA together with a public_key', async () => {
      const pem = publicPemOf('admin');
      const item = await expect422({ ...base, algorithm: 'RSA', public_key: pem }, ['body', 'algorithm'], /only be registered for an ECDSA/);
      expect(item.input).toBe('RSA');
    });

    it('refuses an unknown role id, pointing at its index', async () => {
      const missing = 'a1000000-0000-4000-8000-0000000000ff';
      const item = await expect422({ display_name: 'x', role_ids: [missing] }, ['body', 'role_ids', '0'], new RegExp(`Role ${missing} does not exist`));
      expect(item.input).toBe(missing);
      const res = await post({ display_name: 'x', role_ids: [WELL_KNOWN.roles.admin.id, missing], public_key: 'junk' });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: any) => d.loc)).toEqual([
        ['body', 'role_ids', '1'],
        ['body', 'public_key'],
      ]);
    });
  });

  describe('400 for a body of the wrong shape', () => {
    async function expect400(body: unknown, detail: { pointer: string; type: string }) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'bad_request');
      expect(res.body.details).toEqual([expect.objectContaining({ location: 'body', ...detail })]);
    }

    it('refuses an unknown property', () =>
      expect400({ display_name: 'x', role_ids: [WELL_KNOWN.roles.admin.id], private_key: 'x' }, { pointer: '/private_key', type: 'extra_forbidden' }));
    it('refuses a display_name of 0 or 201 characters', async () => {
      await expect400({ display_name: '', role_ids: [WELL_KNOWN.roles.admin.id] }, { pointer: '/display_name', type: 'string_too_short' });
      await expect400({ display_name: 'x'.repeat(201), role_ids: [WELL_KNOWN.roles.admin.id] }, { pointer: '/display_name', type: 'string_too_long' });
      expect((await post({ display_name: 'x'.repeat(200), role_ids: [WELL_KNOWN.roles.admin.id] })).status).toBe(201);
    });
    it('refuses an empty role_ids', () => expect400({ display_name: 'x', role_ids: [] }, { pointer: '/role_ids', type: 'too_short' }));
    it('refuses a bad algorithm', () =>
      expect400({ display_name: 'x', role_ids: [WELL_KNOWN.roles.admin.id], algorithm: 'DSA' }, { pointer: '/algorithm', type: 'enum' }));
  });
});

function publicPemOf(name: 'admin'): string {
  return createPublicKey(keyPem(name)).export({ type: 'spki', format: 'pem' }).toString();
}
