// Verifies a bearer JWT against the API key pairs of the store. Pure apart from the cache: no
// request or response objects here. Token times are checked against the wall clock (clients mint
// tokens with real time), never against the sandbox clock, which tests may move by days.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ApiError } from '../http/api-error.js';
import type { ApiKeyPairRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { jwsAlgorithmOf } from './key-material.js';

export const CLOCK_SKEW_SECONDS = 30;

export interface VerifiedToken {
  pair: ApiKeyPairRecord;
  scopes: string[];
  claims: JWTPayload;
}

interface CacheEntry {
  pairId: string;
  publicKey: string;
  claims: JWTPayload;
  scopes: string[];
}

/**
 * Verified tokens, kept until they expire. An entry is only a shortcut past the signature check:
 * the pair must still exist with the same public key and be active, and the token must still be
 * within its validity window, exactly as a full verification would require.
 */
export class TokenCache {
  private entries = new Map<string, CacheEntry>();
  constructor(private readonly max = 10_000) {}

  get(token: string): CacheEntry | undefined {
    return this.entries.get(token);
  }

  set(token: string, entry: CacheEntry): void {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(token, entry);
  }

  delete(token: string): void {
    this.entries.delete(token);
  }
}

const keyCache = new WeakMap<ApiKeyPairRecord, { pem: string; key: KeyObject }>();

function publicKeyOf(pair: ApiKeyPairRecord): KeyObject {
  const cached = keyCache.get(pair);
  if (cached && cached.pem === pair.public_key) return cached.key;
  const key = createPublicKey(pair.public_key);
  keyCache.set(pair, { pem: pair.public_key, key });
  return key;
}

function findPair(store: Store, kid: string): ApiKeyPairRecord | undefined {
  return store.collections.api_key_pairs.find((p) => p.thumbprint === kid);
}

function checkTimes(claims: JWTPayload, nowSeconds: number): void {
  if (typeof claims.exp === 'number' && claims.exp <= nowSeconds - CLOCK_SKEW_SECONDS) throw ApiError.unauthorized('The bearer token has expired: mint a fresh one.');
  if (typeof claims.nbf === 'number' && claims.nbf > nowSeconds + CLOCK_SKEW_SECONDS) throw ApiError.unauthorized('The bearer token is not valid yet (nbf is in the future).');
}

function scopesOf(claims: JWTPayload): string[] {
  const scopes = claims.scopes;
  if (scopes === undefined) return [];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) {
    throw ApiError.unauthorized('The bearer token claim "scopes" must be an array of strings.');
  }
  return scopes as string[];
}

export async function verifyToken(token: string, store: Store, cache: TokenCache, nowMs = Date.now()): Promise<VerifiedToken> {
  const nowSeconds = Math.floor(nowMs / 1000);
  const hit = cache.get(token);
  if (hit) {
    const pair = store.collections.api_key_pairs.get(hit.pairId);
    if (pair && pair.public_key === hit.publicKey && pair.active) {
      checkTimes(hit.claims, nowSeconds);
      return { pair, scopes: hit.scopes, claims: hit.claims };
    }
    cache.delete(token); // fall through to a full verification, which gives the precise reason
  }

  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw ApiError.unauthorized('The bearer token is not a well-formed JWT.');
  }
  const alg = String(header.alg ?? '');
  if (alg === 'none' || alg.toUpperCase().startsWith('HS')) throw ApiError.unauthorized(`The bearer token algorithm ${alg} is not accepted: sign with ES512 (ECDSA pairs) or RS512 (RSA pairs).`);
  if (typeof header.kid !== 'string' || !header.kid) throw ApiError.unauthorized('The bearer token header has no kid: set it to the API key pair thumbprint.');
  const pair = findPair(store, header.kid);
  if (!pair) throw ApiError.unauthorized(`No API key pair has the thumbprint ${header.kid.slice(0, 100)} (the token kid).`);
  if (!pair.active) throw ApiError.unauthorized(`The API key pair ${pair.id} is inactive.`);
  const expected = jwsAlgorithmOf(pair.algorithm);
  if (alg !== expected) throw ApiError.unauthorized(`The bearer token is signed with ${alg}, but API key pair ${pair.id} (${pair.algorithm}) requires ${expected}.`);

  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, publicKeyOf(pair), {
      algorithms: [expected],
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: new Date(nowMs),
      requiredClaims: ['exp'],
    }));
  } catch (err) {
    throw ApiError.unauthorized(reasonOf(err));
  }
  const scopes = scopesOf(claims);
  cache.set(token, { pairId: pair.id, publicKey: pair.public_key, claims, scopes });
  return { pair, scopes, claims };
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'The bearer token has expired: mint a fresh one.';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'The bearer token signature does not match the API key pair of its kid.';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return 'The bearer token is not valid yet (nbf is in the future).';
    if (err.claim === 'exp') return 'The bearer token has no valid exp claim.';
    return `The bearer token claim ${err.claim} is invalid: ${err.reason}.`;
  }
  if (err instanceof joseErrors.JWTInvalid || err instanceof joseErrors.JWSInvalid) return 'The bearer token is not a well-formed JWT.';
  return 'The bearer token could not be verified.';
}
