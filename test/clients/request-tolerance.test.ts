// What the six official clients send that a strict server could trip on, accepted by the sandbox
// started as for them (the built CLI with the x-gr4vy-merchant-account-id alias), while what the
// real service refuses stays refused. Raw requests wherever a client library would normalise what
// is sent (header letter case, Java's h2c upgrade offer); tokens minted as each client mints them.
// docs/sdk.md ("What each client sends") gives the decisions.
import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { mintToken } from '../../src/auth/mint-token.js';
import { type RunningCli, startCli } from '../cli/support/cli.js';
import { keyPem } from '../support/sandbox.js';
import { Receiver } from '../webhooks/receiver.js';
import { RawConnection, rawRequest } from './raw-http.js';
import { CLIENT_MERCHANT_HEADER, startClientSandbox } from './support.js';

let sandbox: RunningCli;
let token: string;
beforeAll(async () => {
  sandbox = await startClientSandbox();
  token = await mintToken({ privateKeyPem: keyPem('admin') });
}, 120_000);
afterAll(() => sandbox?.stop());

const host = () => new URL(sandbox.url).host;

describe('the merchant account header in any letter case', () => {
  for (const name of ['X-Gr4vy-Merchant-Account-Id', 'X-GR4VY-MERCHANT-ACCOUNT-ID', 'x-gr4vy-merchant-account-id', 'X-Service-Merchant-Account-Id']) {
    it(`${name} (Go sends the canonical case) chooses merchant-two`, async () => {
      const answer = await rawRequest(sandbox.url, [
        'GET /gift-cards?limit=100 HTTP/1.1',
        `Host: ${host()}`,
        `Authorization: Bearer ${token}`,
        `${name}: merchant-two`,
      ]);
      expect(answer.status).toBe(200);
      const cards = JSON.parse(answer.body).items as Array<{ merchant_account_id: string }>;
      expect(cards).toHaveLength(12);
      expect(new Set(cards.map((card) => card.merchant_account_id))).toEqual(new Set(['merchant-two']));
    });
  }

  it('a misnamed header is still a 400 in canonical case, never an answer from default', async () => {
    const answer = await rawRequest(sandbox.url, [
      'GET /gift-cards HTTP/1.1',
      `Host: ${host()}`,
      `Authorization: Bearer ${token}`,
      'X-Merchant-Account-Id: merchant-two',
    ]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).details[0]).toMatchObject({ type: 'header_misnamed' });
  });
});

describe("Java's HTTP client: Upgrade: h2c, HTTP2-Settings and content-length: 0 on a GET", () => {
  it('is answered in HTTP/1.1 at once (no 101, no wait for an upgrade), twice on one connection', async () => {
    const connection = new RawConnection(sandbox.url);
    const get = (path: string) =>
      connection.request([
        `GET ${path} HTTP/1.1`,
        `Host: ${host()}`,
        'Connection: Upgrade, HTTP2-Settings',
        'Upgrade: h2c',
        'HTTP2-Settings: AAEAAEAAAAIAAAABAAMAAABkAAQBAAAAAAUAAEAA',
        'content-length: 0',
        `Authorization: Bearer ${token}`,
        `${CLIENT_MERCHANT_HEADER}: default`,
      ]);
    try {
      const first = await get('/card-scheme-definitions');
      expect(first.statusLine).toMatch(/^HTTP\/1\.1 200 /);
      expect(first.headers.upgrade).toBeUndefined();
      expect(JSON.parse(first.body).items.map((s: { id: string }) => s.id)).toContain('visa');
      const second = await get('/gift-cards?limit=1');
      expect(second.status).toBe(200);
      expect(JSON.parse(second.body).items).toHaveLength(1);
    } finally {
      connection.close();
    }
  });
});

describe('request date-times (the control API clock): fraction digits and offsets', () => {
  let inNewYork: RunningCli;
  beforeAll(async () => {
    // The machine's zone must not matter: the sandbox runs in New York, no offset still means UTC.
    inNewYork = await startCli(['--port', '0', '--log-level', 'warn'], { env: { TZ: 'America/New_York' } });
  }, 60_000);
  afterAll(() => inNewYork?.stop());

  const setClock = (now: string) =>
    fetch(`${inNewYork.url}/ns/dates/_sandbox/clock`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ now, frozen: true }),
    });

  const accepted: Array<[string, string, string]> = [
    ['3 digits (TypeScript)', '2026-11-22T10:00:00.123Z', '2026-11-22T10:00:00.123Z'],
    ['6 digits (Python)', '2026-11-22T10:00:00.123456+00:00', '2026-11-22T10:00:00.123Z'],
    ['7 digits (C#)', '2026-11-22T10:00:00.1234567Z', '2026-11-22T10:00:00.123Z'],
    ['9 digits (Go)', '2026-11-22T11:00:00.123456789+01:00', '2026-11-22T10:00:00.123Z'],
    ["no offset (Python's naive isoformat): UTC", '2026-11-22T10:00:00.123456', '2026-11-22T10:00:00.123Z'],
    ['no fraction, no offset', '2026-11-22T10:00:00', '2026-11-22T10:00:00.000Z'],
  ];
  for (const [what, sent, stored] of accepted) {
    it(`${what}: ${sent} is ${stored}`, async () => {
      const res = await setClock(sent);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ now: stored, frozen: true });
      const read = await (await fetch(`${inNewYork.url}/ns/dates/_sandbox/clock`)).json();
      expect(read.now).toBe(stored);
    });
  }

  for (const sent of ['2026-11-22T10:00:00.1234567890Z', '2026-11-22T10:00:00+0100', '2026-11-22', '22/11/2026 10:00', '2026-13-01T00:00:00Z']) {
    it(`refuses ${sent} with a 400 pointing at /now`, async () => {
      const res = await setClock(sent);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body).toMatchObject({ type: 'error', code: 'bad_request', status: 400 });
      expect(body.details[0]).toMatchObject({ location: 'body', pointer: '/now' });
    });
  }
});

/** A GET of the card schemes with `bearer`: its status and body. */
async function schemes(bearer: string, ns = 'tokens'): Promise<{ status: number; body: { message?: string; items?: unknown[] }; challenge: string | null }> {
  const res = await fetch(`${sandbox.url}/ns/${ns}/card-scheme-definitions`, { headers: { authorization: `Bearer ${bearer}` } });
  return { status: res.status, body: await res.json(), challenge: res.headers.get('www-authenticate') };
}

describe('tokens as the other clients mint them', () => {
  it("C#: the literal placeholder in iss and a one-hour lifetime are accepted (iss is not checked, as the real service's clients imply)", async () => {
    const csharp = await mintToken({ privateKeyPem: keyPem('admin'), issuer: 'speakeasy-sdk/csharp X.X.X X.X.X X.X.X Gr4vy', ttlSeconds: 3600 });
    expect(await schemes(csharp)).toMatchObject({ status: 200, body: { items: expect.any(Array) } });
  });

  it('PHP: the one 30-second token minted at build time works within the 30 s of skew, then is a 401 that says why', async () => {
    const now = Math.floor(Date.now() / 1000);
    const builtRecently = await mintToken({ privateKeyPem: keyPem('admin'), issuer: 'speakeasy-sdk/php', issuedAt: now - 45, ttlSeconds: 30 });
    expect((await schemes(builtRecently)).status).toBe(200); // exp 15 s ago: inside the skew
    const builtAMinuteAgo = await mintToken({ privateKeyPem: keyPem('admin'), issuer: 'speakeasy-sdk/php', issuedAt: now - 61, ttlSeconds: 30 });
    const refused = await schemes(builtAMinuteAgo);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/^Bearer/);
    expect(refused.body).toMatchObject({ type: 'error', code: 'unauthorized', status: 401 });
    expect(refused.body.message).toMatch(/has expired.*mint a fresh one for each request.*gr4vy-php builder.*built again/);
  });
});

/** P-521 keys until one whose x coordinate starts with a zero byte (about every other key). */
function keyWithZeroLeadingX(): { privateKey: KeyObject; publicPem: string; x: Buffer; y: Buffer } {
  for (;;) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
    const jwk = publicKey.export({ format: 'jwk' });
    const x = Buffer.from(jwk.x as string, 'base64url');
    if (x[0] === 0)
      return { privateKey, publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(), x, y: Buffer.from(jwk.y as string, 'base64url') };
  }
}

/** RFC 7638: the members crv, kty, x, y in that order, no spaces, SHA-256, base64url. */
const thumbprint = (x: Buffer, y: Buffer) =>
  createHash('sha256')
    .update(JSON.stringify({ crv: 'P-521', kty: 'EC', x: x.toString('base64url'), y: y.toString('base64url') }))
    .digest('base64url');

const misreadMessage = (kid: string, pair: { id: string; thumbprint: string }) =>
  `The token kid '${kid}' is the thumbprint of API key pair ${pair.id}'s key computed without leading zero bytes of its x or y coordinate; ` +
  `RFC 7638 keeps them (every coordinate is 66 bytes), so its kid is '${pair.thumbprint}'. ` +
  'gr4vy-go before v1.12.97 drops them and gr4vy-php puts back only one: upgrade the client, or use a key whose coordinates start with at most one zero byte.';

/** A public key whose x starts with two zero bytes (one coordinate in 512; y starts with none). */
const TWO_ZERO_BYTES_X = `-----BEGIN PUBLIC KEY-----
MIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQAABGWhF6Zni7OaP/jBu5Y48CwxF1b
2lET7yp3GUPXx4ikD9pEITvszw6VfXFbu2lzV7unQONebz9tVZh4bfCghRwBp1l6
awenzE7oUHRiHW+7uk48oehhFNfjsMwf8BpGdXWMHg4rWlH3179jyHog3VB3SNsh
4XV5VB7UrHDIM3iTyt0=
-----END PUBLIC KEY-----
`;

describe('the token kid: the RFC 7638 thumbprint of the P-521 key, leading zero bytes kept', () => {
  it('accepts the full thumbprint; the kid of a client that drops the zero bytes (old Go) is a 401 naming the right one', async () => {
    const { privateKey, publicPem, x, y } = keyWithZeroLeadingX();
    const registered = await fetch(`${sandbox.url}/ns/kids/api-key-pairs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'zero byte', role_ids: [WELL_KNOWN.roles.admin.id], public_key: publicPem }),
    });
    expect(registered.status).toBe(201);
    const pair = await registered.json();
    expect(pair.thumbprint).toBe(thumbprint(x, y));

    const sign = (kid: string) =>
      new SignJWT({ scopes: ['*.read'] }).setProtectedHeader({ alg: 'ES512', kid }).setIssuedAt().setExpirationTime('30s').sign(privateKey);
    expect((await schemes(await sign(pair.thumbprint), 'kids')).status).toBe(200);

    const oldGoKid = thumbprint(x.subarray(x.findIndex((b) => b !== 0)), y.subarray(y.findIndex((b) => b !== 0)));
    expect(oldGoKid).not.toBe(pair.thumbprint);
    const refused = await schemes(await sign(oldGoKid), 'kids');
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe(misreadMessage(oldGoKid, pair));
    const unknown = await schemes(await sign('not-a-thumbprint'), 'kids');
    expect(unknown.body.message).toBe("No API key pair has the thumbprint 'not-a-thumbprint' (the token kid).");
  });

  it("PHP's kid for a coordinate with two leading zero bytes (one put back) is the same 401", async () => {
    const registered = await fetch(`${sandbox.url}/ns/kids/api-key-pairs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'two zero bytes', role_ids: [WELL_KNOWN.roles.admin.id], public_key: TWO_ZERO_BYTES_X }),
    });
    expect(registered.status).toBe(201);
    const pair = await registered.json();
    const jwk = createPublicKey(TWO_ZERO_BYTES_X).export({ format: 'jwk' });
    const x = Buffer.from(jwk.x as string, 'base64url');
    const y = Buffer.from(jwk.y as string, 'base64url');
    expect([x.length, x[0], x[1], y[0] !== 0]).toEqual([66, 0, 0, true]);
    expect(pair.thumbprint).toBe(thumbprint(x, y));
    const phpKid = thumbprint(x.subarray(1), y); // 65 bytes: PHP pads one zero byte back, not two
    // The kid is looked up before the signature is checked: any ES512 signature shows the answer.
    const signed = await new SignJWT({ scopes: ['*.read'] })
      .setProtectedHeader({ alg: 'ES512', kid: phpKid })
      .setIssuedAt()
      .setExpirationTime('30s')
      .sign(createPrivateKey(keyPem('admin')));
    const refused = await schemes(signed, 'kids');
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe(misreadMessage(phpKid, pair));
  });
});

describe('the webhook timestamp: Java signs the raw header string, the others the parsed integer', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(() => receiver?.close());

  it('is a plain decimal integer, so both computations give the signature sent', async () => {
    const control = `${sandbox.url}/ns/hooks/_sandbox`;
    const post = (path: string, body: unknown) =>
      fetch(`${control}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const subscription = await (await post('/records/webhook_subscriptions', { url: receiver.url })).json();
    receiver.trust(subscription.secret);
    for (let i = 0; i < 3; i++) expect((await post('/events', { name: 'buyer.updated' })).status).toBe(201);
    for (const { headers, body } of await receiver.waitFor(3, 'buyer.updated')) {
      const raw = headers['x-service-timestamp'] as string;
      expect(raw).toMatch(/^[1-9]\d{9}$/); // unix seconds: no sign, no leading zero, no fraction, no space
      const hmac = (timestamp: string) => createHmac('sha256', subscription.secret).update(`${timestamp}.${body}`).digest('hex');
      expect(hmac(raw)).toBe(headers['x-service-signature']); // Java: the raw header string
      expect(hmac(String(Number.parseInt(raw, 10)))).toBe(headers['x-service-signature']); // TS, Python, Go, C#, PHP
    }
  });
});
