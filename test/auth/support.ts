// Helpers of the auth tests: raw JWT signing (to build tokens that mintToken would never make),
// requests each needing a known scope, and key pair creation through the API.
import { createPrivateKey, createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, SignJWT } from 'jose';
import { expect } from 'vitest';
import { type KeyName, keyPem, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function privateKeyOf(name: KeyName): KeyObject {
  return createPrivateKey(keyPem(name));
}

/** RFC 7638 thumbprint computed independently of the sandbox code (jose on the exported JWK). */
export async function thumbprintOfPem(pem: string): Promise<string> {
  return calculateJwkThumbprint(await exportJWK(createPublicKey(pem)), 'sha256');
}

export interface RawToken {
  key: KeyObject | Uint8Array;
  alg: string;
  kid?: string;
  claims?: Record<string, unknown>;
  /** Epoch seconds; `null` leaves the claim out. */
  exp?: number | null;
  nbf?: number | null;
}

/** A token signed exactly as told: any alg, any kid, any times. */
export function signRaw(options: RawToken): Promise<string> {
  const now = nowSeconds();
  const jwt = new SignJWT({ scopes: ['*.read', '*.write', 'embed'], ...options.claims })
    .setProtectedHeader({ alg: options.alg, typ: 'JWT', ...(options.kid ? { kid: options.kid } : {}) })
    .setIssuedAt(now)
    .setJti(randomUUID())
    .setIssuer('auth-tests');
  const exp = options.exp === undefined ? now + 60 : options.exp;
  const nbf = options.nbf === undefined ? now : options.nbf;
  if (exp !== null) jwt.setExpirationTime(exp);
  if (nbf !== null) jwt.setNotBefore(nbf);
  return jwt.sign(options.key);
}

/** An unsigned (alg none) token: header and payload, empty signature. */
export function unsignedToken(kid: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = nowSeconds();
  return `${part({ alg: 'none', typ: 'JWT', kid })}.${part({ scopes: ['*.read', '*.write'], iat: now, nbf: now, exp: now + 60 })}.`;
}

/** Requests each needing one scope, with a valid body: the status shows what auth allowed. */
export const calls = {
  /** card-scheme-definitions.read */
  read: (sb: TestSandbox, auth: string, account?: string) => withAccount(sb.http.get('/card-scheme-definitions').set('authorization', auth), account),
  /** buyers.write */
  updateBuyer: (sb: TestSandbox, auth: string, account?: string) =>
    withAccount(sb.http.put(`/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', auth).send({ display_name: 'Auth test buyer' }), account),
  /** reports.write */
  createReport: (sb: TestSandbox, auth: string, account?: string) =>
    withAccount(
      sb.http
        .post('/reports')
        .set('authorization', auth)
        .send({ name: 'Auth test report', schedule: 'once', schedule_enabled: false, spec: { model: 'transactions', params: {} } }),
      account,
    ),
  /** payment-methods.read or embed */
  listPaymentMethods: (sb: TestSandbox, auth: string) => sb.http.get('/buyers/payment-methods').set('authorization', auth),
  /** digital-wallets.write or embed */
  googlePaySession: (sb: TestSandbox, auth: string) =>
    sb.http.post('/digital-wallets/google/session').set('authorization', auth).send({ origin_domain: 'shop.example.com' }),
  /** gift-cards.read */
  listGiftCards: (sb: TestSandbox, auth: string) => sb.http.get('/gift-cards').set('authorization', auth),
};

function withAccount<T extends { set(name: string, value: string): T }>(req: T, account?: string): T {
  return account === undefined ? req : req.set('x-service-merchant-account-id', account);
}

/** POST /api-key-pairs as `auth`; expects 201 and returns the body. */
export async function createPair(sb: TestSandbox, auth: string, body: Record<string, unknown>): Promise<any> {
  const res = await sb.http.post('/api-key-pairs').set('authorization', auth).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export function pairRecord(sb: TestSandbox, id: string) {
  return sb.deps.namespaces.get().store.collections.api_key_pairs.get(id);
}
