// Mints a bearer token the way client libraries do: a short-lived JWT signed with the pair's
// private key, kid = the pair's thumbprint. Used by `payments-sandbox token`, POST /_sandbox/tokens
// and the tests.
import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { jwsAlgorithmOf, keyAlgorithmOf, thumbprintOf } from './key-material.js';

export const ALL_SCOPES = ['*.read', '*.write', 'embed'];

export interface MintOptions {
  privateKeyPem: string;
  scopes?: string[];
  /** Lifetime in seconds (default 3600). */
  ttlSeconds?: number;
  /** Issue time in epoch seconds (default now). */
  issuedAt?: number;
  embed?: Record<string, unknown>;
  checkoutSessionId?: string;
  issuer?: string;
}

export async function mintToken(options: MintOptions): Promise<string> {
  const privateKey = createPrivateKey(options.privateKeyPem);
  const publicKey = createPublicKey(privateKey);
  const algorithm = keyAlgorithmOf(publicKey);
  if (!algorithm) throw new Error('the key is neither ECDSA P-521 nor RSA');
  const iat = options.issuedAt ?? Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { scopes: options.scopes ?? ALL_SCOPES };
  if (options.embed) claims.embed = options.embed;
  if (options.checkoutSessionId) claims.checkout_session_id = options.checkoutSessionId;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: jwsAlgorithmOf(algorithm), kid: await thumbprintOf(publicKey), typ: 'JWT' })
    .setIssuer(options.issuer ?? 'payments-sandbox')
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + (options.ttlSeconds ?? 3600))
    .setJti(randomUUID())
    .sign(privateKey);
}

/** Parses a duration like 30s, 15m, 1h, 2d or a plain number of seconds. */
export function parseTtl(text: string): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(text.trim());
  if (!match) throw new Error(`'${text}' is not a duration: use a number of seconds or 30s, 15m, 1h, 2d`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
