// POST /api-key-pairs: what a caller may grant (roles within its scopes, merchant accounts within
// its reach), duplicate public keys, and the one-time private key.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/mint-token.js';
import { expectErrorBody, keyPem, startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { calls, createPair } from './support.js';

const { admin, readOnly, embed, buyersEditor } = WELL_KNOWN.roles;

describe('POST /api-key-pairs grants and duplicates', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb?.server.close());

  const post = (auth: string, body: object) => sb.http.post('/api-key-pairs').set('authorization', auth).send(body);
  const adminWith = async (scopes: string[]) => `Bearer ${await tokenFor('admin', { scopes })}`;
  const pairCount = () => sb.deps.namespaces.get().store.collections.api_key_pairs.size;

  function expect403(res: { status: number; body: any }, message: RegExp): void {
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 403, 'forbidden');
    expect(res.body.message).toMatch(message);
  }

  describe('roles must be within the caller effective scopes', () => {
    it('refuses a read-only role to a token without *.read, naming the scope', async () => {
      const before = pairCount();
      const auth = await adminWith(['api-key-pairs.write', 'buyers.write']);
      expect403(
        await post(auth, { display_name: 'x', role_ids: [readOnly.id] }),
        /^Role 'read-only' \(a1000000-0000-4000-8000-000000000002\) grants scopes the caller does not hold: \*\.read\./,
      );
      expect403(await post(auth, { display_name: 'x', role_ids: [buyersEditor.id] }), /grants scopes the caller does not hold: payment-methods.read\./);
      expect403(await post(await adminWith(['*.write']), { display_name: 'x', role_ids: [embed.id] }), /Role 'embed'.*: embed\./);
      expect(pairCount()).toBe(before);
    });

    it('allows a role whose every scope the token and the caller roles grant', async () => {
      const auth = await adminWith(['api-key-pairs.write', 'buyers.write', 'payment-methods.read']);
      const body = await createPair(sb, auth, { display_name: 'Editor by narrow token', role_ids: [buyersEditor.id] });
      expect(body.roles).toEqual([
        {
          type: 'role',
          id: buyersEditor.id,
          name: 'buyers-editor',
          slug: 'buyers-editor',
          description: 'Grants buyers.write, payment-methods.read.',
          permissions: { allow: ['buyers.write', 'payment-methods.read'] },
          assignable_to: ['user', 'api-key-pair'],
          applies_to: [],
          is_standalone_assignable: true,
        },
      ]);
      // *.write in the token covers buyers.write, but a single scope never covers a wildcard role.
      expect((await post(await adminWith(['*.write', 'payment-methods.read']), { display_name: 'y', role_ids: [buyersEditor.id] })).status).toBe(201);
      expect403(await post(await adminWith(['*.write', 'buyers.read', 'gift-cards.read']), { display_name: 'z', role_ids: [readOnly.id] }), /: \*\.read\./);
    });

    it("holds the caller's roles to the same rule, whatever its token says", async () => {
      // A role that may create pairs and edit buyers, nothing else (no fixture role is that narrow).
      const roles = sb.deps.namespaces.get().store.collections.roles;
      const at = '2026-01-01T00:00:00.000Z';
      roles.insert({
        type: 'role',
        id: 'a1000000-0000-4000-8000-0000000000a1',
        name: 'pair-maker',
        scopes: ['api-key-pairs.write', 'buyers.write'],
        created_at: at,
        updated_at: at,
      });
      roles.insert({
        type: 'role',
        id: 'a1000000-0000-4000-8000-0000000000a2',
        name: 'buyer-writer',
        scopes: ['buyers.write'],
        created_at: at,
        updated_at: at,
      });
      const maker = await createPair(sb, sb.auth, { display_name: 'Pair maker', role_ids: ['a1000000-0000-4000-8000-0000000000a1'] });
      const full = `Bearer ${await mintToken({ privateKeyPem: maker.private_key, scopes: ['*.read', '*.write', 'embed'] })}`;
      expect403(await post(full, { display_name: 'x', role_ids: [readOnly.id] }), /Role 'read-only'.*: \*\.read\./);
      expect403(await post(full, { display_name: 'x', role_ids: [embed.id] }), /Role 'embed'.*: embed\./);
      expect403(await post(full, { display_name: 'x', role_ids: [buyersEditor.id] }), /Role 'buyers-editor'.*: payment-methods.read\./);
      expect403(
        await post(full, { display_name: 'x', role_ids: ['a1000000-0000-4000-8000-0000000000a2', admin.id] }),
        /Role 'admin'.*: \*\.read, \*\.write, embed\./,
      );
      const ok = await createPair(sb, full, { display_name: 'Buyer writer', role_ids: ['a1000000-0000-4000-8000-0000000000a2'] });
      expect(ok.creator).toEqual({ id: maker.id, name: 'Pair maker', email_address: null, thumbprint: maker.thumbprint });
      const narrow = `Bearer ${await mintToken({ privateKeyPem: maker.private_key, scopes: ['api-key-pairs.write'] })}`;
      expect403(await post(narrow, { display_name: 'x', role_ids: ['a1000000-0000-4000-8000-0000000000a2'] }), /Role 'buyer-writer'.*: buyers.write\./);
    });
  });

  describe('merchant accounts must be within the caller reach', () => {
    let limited: string;
    beforeAll(async () => {
      const pair = await createPair(sb, sb.auth, { display_name: 'Admin limited to default', role_ids: [admin.id], merchant_account_ids: ['default'] });
      limited = `Bearer ${await mintToken({ privateKeyPem: pair.private_key })}`;
    });

    it('a caller limited to default may grant default only', async () => {
      const ok = await createPair(sb, limited, { display_name: 'Default only', role_ids: [readOnly.id], merchant_account_ids: ['default'] });
      expect(ok.merchant_accounts).toEqual([
        { type: 'merchant-account', id: 'default', display_name: 'Default', created_at: '2025-01-02T09:00:00.000Z', updated_at: '2025-01-02T09:00:00.000Z' },
      ]);
      expect403(
        await post(limited, { display_name: 'x', role_ids: [readOnly.id], merchant_account_ids: ['default', 'merchant-two'] }),
        /may not grant access to merchant account 'merchant-two'; it is limited to: default\./,
      );
      expect403(await post(limited, { display_name: 'x', role_ids: [readOnly.id], merchant_account_ids: [] }), /cannot grant access to all merchant accounts/);
      expect403(await post(limited, { display_name: 'x', role_ids: [readOnly.id] }), /cannot grant access to all merchant accounts/);
    });

    it('a limited caller cannot act on another account at all', async () => {
      const res = await sb.http
        .post('/api-key-pairs')
        .set('authorization', limited)
        .set('x-service-merchant-account-id', 'merchant-two')
        .send({ display_name: 'x', role_ids: [readOnly.id] });
      expect403(res, /may not act on merchant account 'merchant-two'/);
    });

    it('nobody may grant a merchant account that does not exist', async () => {
      expect403(
        await post(sb.auth, { display_name: 'x', role_ids: [readOnly.id], merchant_account_ids: ['nowhere'] }),
        /^Merchant account 'nowhere' does not exist or is not accessible to the caller\.$/,
      );
      expect403(await post(limited, { display_name: 'x', role_ids: [readOnly.id], merchant_account_ids: ['nowhere'] }), /Merchant account 'nowhere'/);
    });
  });

  describe('duplicate public keys', () => {
    it('answers 409 duplicate_record with the id of the pair that has the key', async () => {
      const pem = generateKeyPairSync('ec', { namedCurve: 'P-521' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
      const first = await createPair(sb, sb.auth, { display_name: 'First', role_ids: [readOnly.id], public_key: pem });
      const before = pairCount();
      const again = await post(sb.auth, { display_name: 'Second', role_ids: [readOnly.id], public_key: pem.replace(/\n/g, '\r\n') });
      expect(again.status).toBe(409);
      expectErrorBody(again.body, 409, 'duplicate_record');
      expect(again.body.resource_id).toBe(first.id);
      expect(again.body.message).toContain(first.id);
      expect(pairCount()).toBe(before);
    });

    it('detects the public key of a fixture pair', async () => {
      const pem = createPublicKey(keyPem('read-only')).export({ type: 'spki', format: 'pem' }).toString();
      const res = await post(sb.auth, { display_name: 'Copy', role_ids: [readOnly.id], public_key: pem });
      expect(res.status).toBe(409);
      expect(res.body.resource_id).toBe(WELL_KNOWN.keyPairs.readOnly.id);
    });
  });

  describe('the private key is returned once', () => {
    it('is stored nowhere, and no later response carries it', async () => {
      const body = await createPair(sb, sb.auth, { display_name: 'Secret keeper', role_ids: [admin.id] });
      const keyBody = body.private_key.split('\n').slice(1, -2).join('');
      expect(keyBody.length).toBeGreaterThan(100);
      const store = sb.deps.namespaces.get().store;
      const stored = JSON.stringify(store.data);
      expect(stored).toContain(body.id);
      expect(stored).not.toContain(keyBody);
      expect(stored).not.toContain(keyBody.slice(0, 64));
      expect(Object.keys(store.collections.api_key_pairs.get(body.id)!)).not.toContain('private_key');
      const next = await calls.read(sb, `Bearer ${await mintToken({ privateKeyPem: body.private_key })}`);
      expect(next.status).toBe(200);
      expect(JSON.stringify(next.body)).not.toContain(keyBody.slice(0, 64));
      const dup = await post(sb.auth, {
        display_name: 'Same key again',
        role_ids: [admin.id],
        public_key: createPublicKey(body.private_key).export({ type: 'spki', format: 'pem' }).toString(),
      });
      expect(dup.status).toBe(409);
      expect(JSON.stringify(dup.body)).not.toContain(keyBody.slice(0, 64));
    });
  });
});
