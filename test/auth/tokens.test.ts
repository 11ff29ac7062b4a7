// 401 causes of the bearer token: header shape, algorithm, kid, signature, pair state, claims.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, keyPem, startTestSandbox, type TestSandbox, tokenFor } from '../support/sandbox.js';
import { calls, privateKeyOf, signRaw, thumbprintOfPem, unsignedToken } from './support.js';

describe('bearer token verification', () => {
  let sb: TestSandbox;
  let adminKid: string;
  let rsaKid: string;
  beforeAll(async () => {
    sb = await startTestSandbox();
    adminKid = await thumbprintOfPem(keyPem('admin'));
    rsaKid = await thumbprintOfPem(keyPem('rsa'));
  });
  afterAll(() => sb?.server.close());

  async function expect401(auth: string | undefined, messagePart: RegExp): Promise<void> {
    const req = sb.http.get('/card-scheme-definitions');
    const res = await (auth === undefined ? req : req.set('authorization', auth));
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expectErrorBody(res.body, 401, 'unauthorized');
    expect(res.body.details).toEqual([]);
    expect(res.body.message).toMatch(messagePart);
  }

  describe('Authorization header', () => {
    it('accepts a token from the admin key (ES512) and from the RSA key (RS512)', async () => {
      expect((await calls.read(sb, `Bearer ${await tokenFor('admin')}`)).status).toBe(200);
      expect((await calls.read(sb, `Bearer ${await tokenFor('rsa')}`)).status).toBe(200);
    });

    it('accepts the scheme in any case and several spaces before the token', async () => {
      const token = await tokenFor('admin');
      expect((await calls.read(sb, `bearer ${token}`)).status).toBe(200);
      expect((await calls.read(sb, `BEARER ${token}`)).status).toBe(200);
      expect((await calls.read(sb, `Bearer    ${token}`)).status).toBe(200);
    });

    it('refuses a missing or empty header', async () => {
      await expect401(undefined, /Missing Authorization header/);
      await expect401('', /Missing Authorization header/);
    });

    it('refuses another scheme, a scheme without token and a token with spaces', async () => {
      const token = await tokenFor('admin');
      await expect401(`Basic ${token}`, /Bearer scheme, not 'Basic'/);
      await expect401(token, /must use the Bearer scheme/);
      await expect401('Bearer', /no token/);
      await expect401(`Bearer ${token} extra`, /without spaces/);
    });

    it('refuses a value that is not a JWT', async () => {
      await expect401('Bearer not-a-jwt', /not a well-formed JWT/);
      await expect401('Bearer a.b.c', /not a well-formed JWT/);
    });
  });

  describe('algorithm and kid', () => {
    it('refuses alg none even with the kid of an active pair', async () => {
      await expect401(`Bearer ${unsignedToken(adminKid)}`, /algorithm 'none' is not accepted/);
    });

    it('refuses HS512 with the kid of a pair, even keyed with its public key', async () => {
      const secret = new TextEncoder().encode(sb.deps.namespaces.get().store.collections.api_key_pairs.find((p) => p.thumbprint === adminKid)!.public_key);
      await expect401(`Bearer ${await signRaw({ key: secret, alg: 'HS512', kid: adminKid })}`, /algorithm 'HS512' is not accepted/);
      await expect401(`Bearer ${await signRaw({ key: secret, alg: 'HS256', kid: rsaKid })}`, /algorithm 'HS256' is not accepted/);
    });

    it('refuses an RSA pair token signed ES512 and an ECDSA pair token signed RS512', async () => {
      const es512ForRsa = await signRaw({ key: privateKeyOf('admin'), alg: 'ES512', kid: rsaKid });
      await expect401(`Bearer ${es512ForRsa}`, /signed with ES512, but API key pair a0000000-0000-4000-8000-000000000004 \(RSA\) requires RS512/);
      const rs512ForEcdsa = await signRaw({ key: privateKeyOf('rsa'), alg: 'RS512', kid: adminKid });
      await expect401(`Bearer ${rs512ForEcdsa}`, /signed with RS512, but API key pair a0000000-0000-4000-8000-000000000001 \(ECDSA\) requires ES512/);
    });

    it('refuses the right kid signed by a different key of the same kind', async () => {
      const other = await signRaw({ key: privateKeyOf('read-only'), alg: 'ES512', kid: adminKid });
      await expect401(`Bearer ${other}`, /signature does not match/);
    });

    it('refuses an unknown kid and a token without kid', async () => {
      await expect401(
        `Bearer ${await signRaw({ key: privateKeyOf('admin'), alg: 'ES512', kid: 'no-such-thumbprint' })}`,
        /No API key pair has the thumbprint 'no-such-thumbprint'/,
      );
      await expect401(`Bearer ${await signRaw({ key: privateKeyOf('admin'), alg: 'ES512' })}`, /has no kid/);
    });

    it('refuses a valid signature by an inactive pair', async () => {
      await expect401(`Bearer ${await tokenFor('inactive')}`, /API key pair a0000000-0000-4000-8000-000000000003 is inactive/);
    });
  });

  describe('claims', () => {
    it('requires exp', async () => {
      await expect401(`Bearer ${await signRaw({ key: privateKeyOf('admin'), alg: 'ES512', kid: adminKid, exp: null })}`, /needs a numeric exp claim/);
    });

    it('refuses scopes that are not an array of strings', async () => {
      const bad = await signRaw({ key: privateKeyOf('admin'), alg: 'ES512', kid: adminKid, claims: { scopes: 'buyers.read' } });
      await expect401(`Bearer ${bad}`, /"scopes" must be an array of strings/);
    });

    it('treats a token without scopes as having none: 403 on a scoped operation', async () => {
      const res = await calls.read(sb, `Bearer ${await signRaw({ key: privateKeyOf('admin'), alg: 'ES512', kid: adminKid, claims: { scopes: undefined } })}`);
      expect(res.status).toBe(403);
      expectErrorBody(res.body, 403, 'forbidden');
      expect(res.body.message).toMatch(/Missing scope 'card-scheme-definitions.read'/);
    });
  });

  it('answers 401 before validating the body', async () => {
    const res = await sb.http.post('/api-key-pairs').send({ nonsense: true });
    expect(res.status).toBe(401);
    expectErrorBody(res.body, 401, 'unauthorized');
  });
});
