// Security under fuzzing: tampered tokens (header, claims, signature, structure, other keys, alg
// confusion) are always a 401, never a 2xx or 5xx; no private key, token or admin token ever
// appears in a response, a log line or the journal; scenario and namespace names taken from
// requests cannot reach files outside their folders.
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { keyPem, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { errorBodyProblems, operations, type RawResponse, ROOT, send } from './support.js';

const ADMIN_TOKEN = 'admin-token-s3cret-4010';
const lines: string[] = [];
const responses: Array<{ path: string; text: string }> = [];
let sb: RunningSandbox;
let token: string;

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const parts = (jwt: string) => jwt.split('.');
const decoded = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** Every API answer goes through here, so the secret check sees all of them. */
async function call(method: string, path: string, headers: Record<string, string | string[]>, body: string | null = null): Promise<RawResponse> {
  const res = await send(sb.url, { method, path, headers: { 'x-sandbox-admin-token': ADMIN_TOKEN, ...headers }, body });
  responses.push({ path, text: res.text });
  return res;
}

beforeAll(async () => {
  const out = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  // The production logger, at its most talkative level.
  sb = await startSandbox({ validateResponses: true, adminToken: ADMIN_TOKEN, logger: createLogger({ logLevel: 'trace', logFormat: 'json' }, { out }) });
  token = await sb.token();
});
afterAll(() => sb.close());

const authOps = operations().filter((op) => op.requiresAuth && op.method === 'GET' && !op.path.includes('{'));

/** Ways to break a valid token; each result must be refused. */
function tampered(valid: string): fc.Arbitrary<{ kind: string; jwt: string }> {
  const [h, p, s] = parts(valid);
  const header = decoded(h);
  const claims = decoded(p);
  const now = Math.floor(Date.now() / 1000);
  const flip = (text: string, at: number) => {
    const i = at % text.length;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const next = alphabet[(alphabet.indexOf(text[i]) + 1) % alphabet.length];
    return text.slice(0, i) + next + text.slice(i + 1);
  };
  const adminPublicPem = createPublicKey(keyPem('admin')).export({ type: 'spki', format: 'pem' }).toString();
  const hmac = (alg: 'HS256' | 'HS512', secret: string, hdr: object, body: object) => {
    const input = `${b64(hdr)}.${b64(body)}`;
    return `${input}.${createHmac(alg === 'HS256' ? 'sha256' : 'sha512', secret)
      .update(input)
      .digest('base64url')}`;
  };
  return fc.oneof(
    fc.nat().map((at) => ({ kind: 'signature bit', jwt: `${h}.${p}.${flip(s, at)}` })),
    fc.nat({ max: s.length - 1 }).map((n) => ({ kind: 'signature truncated', jwt: `${h}.${p}.${s.slice(0, n)}` })),
    fc
      .constantFrom('none', 'HS256', 'HS512', 'ES256', 'ES384', 'RS512', 'PS512', 'EdDSA', '', 'es512')
      .map((alg) => ({ kind: `alg ${alg}`, jwt: `${b64({ ...header, alg })}.${p}.${alg === 'none' ? '' : s}` })),
    fc
      .oneof(fc.string({ maxLength: 50 }), fc.constantFrom('', '../../fixtures/keys/admin', WELL_KNOWN.keyPairs.readOnly.id))
      .map((kid) => ({ kind: `kid ${kid.slice(0, 20)}`, jwt: `${b64({ ...header, kid })}.${p}.${s}` })),
    fc.constant({ kind: 'no kid', jwt: `${b64({ alg: header.alg, typ: 'JWT' })}.${p}.${s}` }),
    fc
      .record({ scopes: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }), exp: fc.integer({ min: now - 1e6, max: now + 1e9 }) })
      .map((c) => ({ kind: 'claims edited', jwt: `${h}.${b64({ ...claims, ...c })}.${s}` })),
    fc
      .constantFrom('HS256', 'HS512')
      .map((alg) => ({ kind: `${alg} with the public key as secret`, jwt: hmac(alg as 'HS256', adminPublicPem, { ...header, alg }, claims) })),
    fc
      .constantFrom(
        `${h}.${p}`,
        `${h}.${p}.${s}.x`,
        `${h}..${s}`,
        `.${p}.${s}`,
        `${h}.${p}.`,
        '...',
        `${h}.!!!.${s}`,
        `${b64('not json')}.${p}.${s}`,
        `${b64([1])}.${p}.${s}`,
        `${h}.${b64('"str"')}.${s}`,
      )
      .map((jwt) => ({ kind: 'structure', jwt })),
    fc
      .string({ maxLength: 80 })
      .filter((t) => /^[\x21-\x7e]+$/.test(t))
      .map((jwt) => ({ kind: 'garbage', jwt })),
  );
}

describe('tampered tokens', () => {
  it('are always 401 unauthorized with the Error body, never 2xx or 5xx', { timeout: process.env.SOAK ? 320_000 : 20_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(tampered(token), fc.constantFrom(...authOps), async ({ jwt }, op) => {
        const res = await call(op.method, op.path, { authorization: `Bearer ${jwt}` });
        expect(res.status, `${op.id} ${jwt.slice(0, 60)}`).toBe(401);
        expect(errorBodyProblems(res)).toEqual([]);
        expect(res.json.code).toBe('unauthorized');
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.text).not.toContain(jwt.length > 20 ? jwt.slice(-20) : '\u0000never'); // the token is not echoed
      }),
      { seed: 4010, numRuns: process.env.SOAK ? 5_000 : 120, interruptAfterTimeLimit: process.env.SOAK ? 300_000 : 10_000 },
    );
  });

  it('refuses properly signed tokens that break a rule: expired, not yet valid, inactive pair, unknown key with a known kid', async () => {
    const now = Math.floor(Date.now() / 1000);
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey;
    const adminKid = decoded(parts(token)[0]).kid;
    const candidates = [
      await tokenFor('admin', { issuedAt: now - 7200, ttlSeconds: 3600 }),
      await tokenFor('admin', { issuedAt: now + 3600 }),
      await tokenFor('inactive'),
      await new SignJWT({ scopes: ['*.read'] }).setProtectedHeader({ alg: 'ES512', kid: adminKid }).setIssuedAt().setExpirationTime('5m').sign(stranger),
      await new SignJWT({ scopes: ['*.read'] })
        .setProtectedHeader({ alg: 'ES512', kid: adminKid })
        .setIssuedAt()
        .sign(createPrivateKey(keyPem('admin'))), // no exp
    ];
    for (const jwt of candidates) {
      const res = await call('GET', '/connections', { authorization: `Bearer ${jwt}` });
      expect(res.status).toBe(401);
      expect(res.json.code).toBe('unauthorized');
    }
  });
});

describe('secrets', () => {
  it('never appear in responses, log lines or the journal, apart from the one-time private key', async () => {
    const created = await call(
      'POST',
      '/api-key-pairs',
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      JSON.stringify({ display_name: 'secret holder', role_ids: [WELL_KNOWN.roles.readOnly.id] }),
    );
    expect(created.status).toBe(201);
    const privateKey: string = created.json.private_key;
    expect(privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const newToken = await new SignJWT({ scopes: ['*.read'] })
      .setProtectedHeader({ alg: 'ES512', kid: created.json.thumbprint })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(createPrivateKey(privateKey));
    // The new pair works, and its token and key travel through errors, control routes and the journal.
    expect((await call('GET', '/connections', { authorization: `Bearer ${newToken}` })).status).toBe(200);
    expect((await call('POST', '/reports', { authorization: `Bearer ${newToken}`, 'content-type': 'application/json' }, '{}')).status).toBe(403);
    await call('GET', '/connections', { authorization: `Bearer ${token}x` });
    await call('GET', '/connections', { authorization: [`Bearer ${token}`, `Bearer ${newToken}`] });
    await call('GET', '/_sandbox/snapshot', {});
    await call('GET', '/_sandbox/records/api_key_pairs', {});
    const journal = await call('GET', '/_sandbox/requests?limit=1000', {});
    expect(journal.status).toBe(200);
    expect(journal.json.items.length).toBeGreaterThan(5);

    const keyBody = (pem: string) => pem.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'));
    const secrets = [
      token,
      newToken,
      ADMIN_TOKEN,
      ...keyBody(privateKey),
      ...(['admin', 'read-only', 'inactive', 'rsa'] as const).flatMap((k) => keyBody(keyPem(k))),
    ];
    const leaks = (text: string) => secrets.filter((secret) => text.includes(secret)).map((s) => s.slice(0, 16));
    for (const { path, text } of responses) {
      if (text === created.text) continue; // the creation answer carries the private key, once
      expect(leaks(text), `response of ${path}`).toEqual([]);
      expect(text, `response of ${path}`).not.toMatch(/BEGIN (EC |RSA )?PRIVATE KEY/);
    }
    expect(leaks(journal.text)).toEqual([]);
    expect(journal.text).toContain('[redacted]');
    expect(lines.length).toBeGreaterThan(10);
    expect(leaks(lines.join(''))).toEqual([]);
    expect(lines.join('')).not.toMatch(/PRIVATE KEY/);
  });
});

describe('a private key sent by mistake', () => {
  it('as public_key is not echoed by the 422, and the journal does not keep it', async () => {
    const { privateKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-521',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const body = JSON.stringify({ display_name: 'oops', role_ids: [WELL_KNOWN.roles.readOnly.id], public_key: privateKey });
    const res = await call('POST', '/api-key-pairs', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].input).toBe('[redacted: a private key]');
    const secretLine = privateKey.split('\n')[2];
    expect(res.text).not.toContain(secretLine);
    const journal = await call('GET', '/_sandbox/requests?limit=1000', {});
    expect(journal.status).toBe(200);
    expect(journal.text.includes(secretLine), 'the journal holds the private key').toBe(false);
  });
});

describe('names taken from requests', () => {
  const traversal = [
    '../../package.json',
    '../package.json',
    '/etc/passwd',
    '..',
    'rate-limited/../server-error',
    '..%2F..%2Fpackage.json',
    'scenarios/rate-limited.yaml',
    'rate-limited.yaml',
    '.\\..\\package.json',
    'C:\\Windows\\win.ini',
  ];
  const packageText = readFileSync(join(ROOT, 'package.json'), 'utf8');

  it('scenario names are only looked up among the loaded scenarios: a path is an unknown scenario', async () => {
    for (const name of traversal) {
      const res = await call('GET', '/connections', { authorization: `Bearer ${token}`, 'x-sandbox-scenario': name });
      expect(res.status, name).toBe(400);
      expect(res.json.details[0].type).toBe('unknown_scenario');
      expect(res.text).not.toContain('devDependencies');
      expect(res.text).not.toContain(packageText.slice(0, 40));
      const activate = await call('PUT', '/_sandbox/scenarios/active', { 'content-type': 'application/json' }, JSON.stringify({ scenarios: [name] }));
      expect(activate.status, name).toBe(400);
    }
  });

  it('namespace names that look like paths are refused and create no such namespace', async () => {
    const names = ['../x', '..', '.', 'a/b', '..\\x', '%2e%2e', '-x', '', 'x'.repeat(65)];
    for (const name of names) {
      const byHeader = await call('GET', '/connections', { authorization: `Bearer ${token}`, 'x-sandbox-namespace': name });
      if (name === '') {
        expect(byHeader.status).toBe(200); // an empty header means the default namespace
      } else {
        expect(byHeader.status, JSON.stringify(name)).toBe(400);
        expect(byHeader.json.details[0].pointer).toBe('/x-sandbox-namespace');
      }
      const byPath = await call('GET', `/ns/${encodeURIComponent(name)}/connections`, { authorization: `Bearer ${token}` });
      // A dot segment is refused before the URL parser could resolve it (/ns/../connections would be /connections).
      expect(name === '..' || name === '.' ? [400] : [400, 404], JSON.stringify(name)).toContain(byPath.status);
      expect(errorBodyProblems(byPath)).toEqual([]);
    }
    for (const ns of sb.deps.namespaces.list()) {
      expect(ns.name).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
      expect(names).not.toContain(ns.name);
    }
  });

  it('control-API collection names cannot name files', async () => {
    for (const name of ['..%2F..%2Fpackage.json', '__proto__', 'constructor', 'buyers%2F..', '..']) {
      const res = await call('GET', `/_sandbox/records/${name}`, {});
      expect([400, 404], name).toContain(res.status);
      expect(errorBodyProblems(res)).toEqual([]);
      expect(res.text).not.toContain('devDependencies');
    }
  });
});
