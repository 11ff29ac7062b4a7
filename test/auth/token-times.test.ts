// Token lifetime (exp/nbf with 30 s of skew, against a pinned wall clock), the verified-token cache
// (never accepts what verification refuses) and last_used_at (sandbox clock).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mintToken } from '../../src/auth/mint-token.js';
import { CLOCK_SKEW_SECONDS, TokenCache } from '../../src/auth/verify-token.js';
import { expectErrorBody, keyPem, startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { calls, createPair, pairRecord, privateKeyOf, signRaw, thumbprintOfPem } from './support.js';

const PINNED_MS = Date.UTC(2026, 10, 22, 10, 0, 0, 400); // mid-second, so second truncation is visible
const NOW = Math.floor(PINNED_MS / 1000);

describe('token times and the token cache', () => {
  let sb: TestSandbox;
  let adminKid: string;
  beforeAll(async () => {
    sb = await startTestSandbox();
    adminKid = await thumbprintOfPem(keyPem('admin'));
  });
  afterAll(() => sb?.server.close());
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: PINNED_MS });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const bearer = (token: string) => `Bearer ${token}`;
  const admin = (times: { exp?: number | null; nbf?: number | null }) => signRaw({ key: privateKeyOf('admin'), alg: 'ES512', kid: adminKid, ...times });

  async function expect401(auth: string, message: RegExp): Promise<void> {
    const res = await calls.read(sb, auth);
    expect(res.status).toBe(401);
    expectErrorBody(res.body, 401, 'unauthorized');
    expect(res.body.message).toMatch(message);
  }

  describe('exp and nbf with 30 s of skew', () => {
    it('accepts a token expired 29 s ago, refuses one expired 31 s (and exactly 30 s) ago', async () => {
      expect((await calls.read(sb, bearer(await admin({ exp: NOW - 29, nbf: NOW - 100 })))).status).toBe(200);
      await expect401(bearer(await admin({ exp: NOW - 31, nbf: NOW - 100 })), /has expired/);
      await expect401(bearer(await admin({ exp: NOW - 30, nbf: NOW - 100 })), /has expired/);
    });

    it('accepts nbf 29 s (and 30 s) in the future, refuses 31 s', async () => {
      expect((await calls.read(sb, bearer(await admin({ nbf: NOW + 29, exp: NOW + 90 })))).status).toBe(200);
      expect((await calls.read(sb, bearer(await admin({ nbf: NOW + 30, exp: NOW + 90 })))).status).toBe(200);
      await expect401(bearer(await admin({ nbf: NOW + 31, exp: NOW + 90 })), /not valid yet/);
    });

    it('accepts tokens minted with issuedAt offsets the same way', async () => {
      const old = await mintToken({ privateKeyPem: keyPem('admin'), issuedAt: NOW - 60 - 29, ttlSeconds: 60 });
      expect((await calls.read(sb, bearer(old))).status).toBe(200);
      const tooOld = await mintToken({ privateKeyPem: keyPem('admin'), issuedAt: NOW - 60 - 31, ttlSeconds: 60 });
      await expect401(bearer(tooOld), /has expired/);
    });

    it('checks times against the wall clock, not the sandbox clock', async () => {
      const ns = sb.deps.namespaces.get();
      ns.clock.set(PINNED_MS + 10 * 86_400_000);
      try {
        expect((await calls.read(sb, bearer(await admin({ exp: NOW + 30 })))).status).toBe(200);
      } finally {
        ns.clock.reset();
      }
    });
  });

  describe('the cache never accepts what verification refuses', () => {
    it('refuses a cached token once it expires', async () => {
      const token = await admin({ exp: NOW + 10 });
      expect((await calls.read(sb, bearer(token))).status).toBe(200);
      vi.setSystemTime(PINNED_MS + 39_000); // exp = now - 29: still inside the skew
      expect((await calls.read(sb, bearer(token))).status).toBe(200);
      vi.setSystemTime(PINNED_MS + 41_000); // exp = now - 31
      await expect401(bearer(token), /has expired/);
    });

    it('refuses a cached token after its pair is deactivated, and accepts it again once reactivated', async () => {
      const created = await createPair(sb, bearer(await tokenFor('admin')), { display_name: 'Deactivated later', role_ids: [WELL_KNOWN.roles.admin.id] });
      const token = await mintToken({ privateKeyPem: created.private_key, ttlSeconds: 300 });
      expect((await calls.read(sb, bearer(token))).status).toBe(200);
      const pairs = sb.deps.namespaces.get().store.collections.api_key_pairs;
      pairs.update(created.id, { active: false });
      await expect401(bearer(token), new RegExp(`API key pair ${created.id} is inactive`));
      pairs.update(created.id, { active: true });
      expect((await calls.read(sb, bearer(token))).status).toBe(200);
    });

    it('refuses a cached token after its pair is deleted', async () => {
      const created = await createPair(sb, bearer(await tokenFor('admin')), { display_name: 'Deleted later', role_ids: [WELL_KNOWN.roles.admin.id] });
      const token = await mintToken({ privateKeyPem: created.private_key, ttlSeconds: 300 });
      expect((await calls.read(sb, bearer(token))).status).toBe(200);
      sb.deps.namespaces.get().store.collections.api_key_pairs.remove(created.id);
      await expect401(bearer(token), /No API key pair has the thumbprint/);
    });

    it('refuses a cached token after the public key of its pair is replaced (same thumbprint kept)', async () => {
      const created = await createPair(sb, bearer(await tokenFor('admin')), { display_name: 'Rekeyed later', role_ids: [WELL_KNOWN.roles.admin.id] });
      const token = await mintToken({ privateKeyPem: created.private_key, ttlSeconds: 300 });
      expect((await calls.read(sb, bearer(token))).status).toBe(200);
      const otherKey = pairRecord(sb, WELL_KNOWN.keyPairs.readOnly.id)!.public_key;
      sb.deps.namespaces.get().store.collections.api_key_pairs.update(created.id, { public_key: otherKey });
      await expect401(bearer(token), /signature does not match/);
    });

    it('refuses a cached token in a namespace where its pair does not exist', async () => {
      const created = await createPair(sb, bearer(await tokenFor('admin')), { display_name: 'Only in default', role_ids: [WELL_KNOWN.roles.admin.id] });
      const token = await mintToken({ privateKeyPem: created.private_key, ttlSeconds: 300 });
      expect((await calls.read(sb, bearer(token))).status).toBe(200);
      const res = await sb.http.get('/card-scheme-definitions').set('authorization', bearer(token)).set('x-sandbox-namespace', 'auth-cache-other');
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/No API key pair has the thumbprint/);
    });
  });

  describe('concurrent first uses of a token', () => {
    // A client opening many connections at once sends a new token on each before any signature
    // check has finished: one check serves them all, and each still gets its own namespace's answer.
    const concurrently = <T>(n: number, call: () => Promise<T>) => Promise.all(Array.from({ length: n }, call));

    it('answers 20 concurrent first uses of a new token 200 each, and caches it once', async () => {
      const token = await admin({ exp: NOW + 60 });
      const before = sb.deps.tokenCache.size;
      const answers = await concurrently(20, () => calls.read(sb, bearer(token)));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(sb.deps.tokenCache.size).toBe(before + 1);
    });

    it('answers 20 concurrent first uses of a badly signed token 401 each, and checks it again on the next use', async () => {
      const forged = await signRaw({ key: privateKeyOf('read-only'), alg: 'ES512', kid: adminKid, exp: NOW + 60 });
      const before = sb.deps.tokenCache.size;
      const answers = await concurrently(20, () => calls.read(sb, bearer(forged)));
      for (const res of answers) {
        expect(res.status).toBe(401);
        expectErrorBody(res.body, 401, 'unauthorized');
        expect(res.body.message).toBe('The bearer token signature does not match the public key of the API key pair named by its kid.');
      }
      expect(sb.deps.tokenCache.size).toBe(before);
      await expect401(bearer(forged), /signature does not match/);
    });

    it('shares no check between namespaces whose pair under that kid has another public key', async () => {
      const created = await createPair(sb, bearer(await tokenFor('admin')), { display_name: 'Two keys', role_ids: [WELL_KNOWN.roles.admin.id] });
      const token = await mintToken({ privateKeyPem: created.private_key, ttlSeconds: 300 });
      const other = sb.deps.namespaces.admit('auth-concurrent-other');
      const record = pairRecord(sb, created.id)!;
      other.store.collections.api_key_pairs.insert({ ...record, public_key: pairRecord(sb, WELL_KNOWN.keyPairs.readOnly.id)!.public_key });
      const inOther = () => sb.http.get('/card-scheme-definitions').set('authorization', bearer(token)).set('x-sandbox-namespace', 'auth-concurrent-other');
      const answers = await Promise.all([calls.read(sb, bearer(token)), inOther(), calls.read(sb, bearer(token)), inOther()]);
      expect(answers.map((r) => r.status)).toEqual([200, 401, 200, 401]);
      expect(answers[1].body.message).toMatch(/signature does not match/);
    });
  });

  describe('TokenCache.verifyOnce', () => {
    const pair = (publicKey: string) => ({ ...pairRecord(sb, WELL_KNOWN.keyPairs.admin.id)!, public_key: publicKey });

    it('runs one check for concurrent uses of a token and pair, another for another key, and a new one once settled', async () => {
      const cache = new TokenCache();
      let checks = 0;
      const verify = (p: ReturnType<typeof pair>) => async () => {
        checks++;
        await new Promise((resolve) => setImmediate(resolve));
        return { pair: p, scopes: ['a'], claims: { exp: NOW + 60 } };
      };
      const a = pair('key A');
      const a2 = pair('key A'); // the same pair as another namespace holds it: same id and key, its own object
      const b = pair('key B');
      const [first, second, third] = await Promise.all([
        cache.verifyOnce('t', a, verify(a)),
        cache.verifyOnce('t', a2, verify(a2)),
        cache.verifyOnce('t', b, verify(b)),
      ]);
      expect(checks).toBe(2);
      expect(first.pair).toBe(a);
      expect(second.pair).toBe(a2);
      expect(second.scopes).toEqual(['a']);
      expect(third.pair).toBe(b);
      await cache.verifyOnce('t', a, verify(a));
      expect(checks).toBe(3);
    });

    it('gives a failed check to every waiter, and forgets it', async () => {
      const cache = new TokenCache();
      const a = pair('key A');
      let checks = 0;
      const failing = async () => {
        checks++;
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('bad signature');
      };
      const results = await Promise.allSettled([cache.verifyOnce('t', a, failing), cache.verifyOnce('t', a, failing)]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(checks).toBe(1);
      await expect(cache.verifyOnce('t', a, failing)).rejects.toThrow('bad signature');
      expect(checks).toBe(2);
    });
  });

  describe('last_used_at', () => {
    it('records the sandbox clock on the pair at each authenticated request, even a refused one', async () => {
      const ns = sb.deps.namespaces.get();
      const before = pairRecord(sb, WELL_KNOWN.keyPairs.readOnly.id)!;
      const updatedAt = before.updated_at;
      ns.clock.freeze(Date.parse('2031-05-06T07:08:09.000Z'));
      try {
        expect((await calls.read(sb, bearer(await tokenFor('read-only')))).status).toBe(200);
        expect(pairRecord(sb, WELL_KNOWN.keyPairs.readOnly.id)!.last_used_at).toBe('2031-05-06T07:08:09.000Z');
        ns.clock.set(Date.parse('2031-05-06T08:00:00.000Z'));
        expect((await calls.updateBuyer(sb, bearer(await tokenFor('read-only')))).status).toBe(403);
        const after = pairRecord(sb, WELL_KNOWN.keyPairs.readOnly.id)!;
        expect(after.last_used_at).toBe('2031-05-06T08:00:00.000Z');
        expect(after.updated_at).toBe(updatedAt);
      } finally {
        ns.clock.reset();
      }
    });

    it('does not touch last_used_at on a refused token', async () => {
      expect(pairRecord(sb, WELL_KNOWN.keyPairs.inactive.id)!.last_used_at).toBeNull();
      expect((await calls.read(sb, bearer(await tokenFor('inactive')))).status).toBe(401);
      expect(pairRecord(sb, WELL_KNOWN.keyPairs.inactive.id)!.last_used_at).toBeNull();
      const before = pairRecord(sb, WELL_KNOWN.keyPairs.admin.id)!.last_used_at;
      expect((await calls.read(sb, bearer(await signRaw({ key: privateKeyOf('rsa'), alg: 'RS512', kid: adminKid })))).status).toBe(401);
      expect(pairRecord(sb, WELL_KNOWN.keyPairs.admin.id)!.last_used_at).toBe(before);
    });
  });
});

describe('TokenCache', () => {
  const entry = (pairId: string) => ({ kid: 'k', alg: 'ES512', pairId, publicKey: 'pk', claims: { exp: 2_000_000_000 }, scopes: [] });

  it('answers a repeated token from its last lookup, and forgets it when the token is dropped', () => {
    const cache = new TokenCache(10);
    const a = entry('a');
    const b = entry('b');
    cache.set('token-a', a, 0);
    cache.set('token-b', b, 0);
    expect(cache.get('token-a')).toBe(a);
    expect(cache.get('token-a')).toBe(a); // the last-lookup path
    expect(cache.get('token-b')).toBe(b);
    cache.delete('token-b');
    expect(cache.get('token-b')).toBeUndefined();
    expect(cache.get('token-a')).toBe(a);
    cache.delete('token-a');
    expect(cache.get('token-a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('never grows past its size, dropping the least recently used token', () => {
    const cache = new TokenCache(2);
    cache.set('first', entry('f'), 0);
    cache.set('second', entry('s'), 0);
    expect(cache.get('first')?.pairId).toBe('f'); // used: 'second' is now the least recently used
    cache.set('third', entry('t'), 0);
    expect(cache.get('second')).toBeUndefined();
    expect(cache.get('first')?.pairId).toBe('f');
    expect(cache.get('third')?.pairId).toBe('t');
    expect(cache.size).toBe(2);
  });

  it('keeps a token until it expires (with the allowed skew), and never one already expired', async () => {
    const cache = new TokenCache(10);
    cache.set('expired', { ...entry('e'), claims: { exp: 100 } }, 100 + CLOCK_SKEW_SECONDS);
    expect(cache.get('expired')).toBeUndefined();
    expect(cache.size).toBe(0);
    // 50 ms left: gone once they have passed, whoever asks.
    cache.set('soon', { ...entry('s'), claims: { exp: 1_000 } }, 1_000 + CLOCK_SKEW_SECONDS - 0.05);
    expect(cache.get('soon')?.pairId).toBe('s');
    cache.set('other', entry('o'), 0);
    // Each look goes past the last-lookup shortcut (which holds a token whose times are checked on every use anyway).
    const gone = () => cache.get('other') !== undefined && cache.get('soon') === undefined;
    const deadline = Date.now() + 5_000;
    while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(gone()).toBe(true);
    expect(cache.get('other')?.pairId).toBe('o');
  });
});
