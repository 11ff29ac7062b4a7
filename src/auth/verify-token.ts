// Verifies a bearer JWT against the API key pairs of the store. Pure apart from the cache: no
// request or response objects here. Token times are checked against the wall clock (clients mint
// tokens with real time), never against the sandbox clock, which tests may move by days.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, type JWTPayload, errors as joseErrors, jwtVerify, type ProtectedHeaderParameters } from 'jose';
import { LRUCache } from 'lru-cache';
import { ApiError } from '../errors/api-error.js';
import type { ApiKeyPairRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { jwsAlgorithmOf, misreadThumbprints } from './key-material.js';

export const CLOCK_SKEW_SECONDS = 30;

export interface VerifiedToken {
  pair: ApiKeyPairRecord;
  scopes: string[];
  claims: JWTPayload;
}

interface CacheEntry {
  /** The token's header fields, so a cache hit needs no decoding. */
  kid: string;
  alg: string;
  pairId: string;
  publicKey: string;
  claims: JWTPayload;
  scopes: string[];
}

/**
 * Tokens whose signature was verified, kept until they expire (lru-cache: the least recently used
 * goes when it is full, an expired one when its time is up). An entry only spares the signature
 * check: every other rule (known kid, active pair, matching alg, same public key, exp/nbf) is
 * checked again on each use, so the cache never accepts what a full verification would refuse.
 */
export class TokenCache {
  private readonly entries: LRUCache<string, CacheEntry>;
  /**
   * The last token looked up, checked first: a client sends one token for many requests, and
   * comparing two strings costs less than hashing a JWT-long key for the map on every request.
   */
  private last: { token: string; entry: CacheEntry } | null = null;
  private readonly verifying = new Map<string, { pairId: string; publicKey: string; result: Promise<VerifiedToken> }>();
  constructor(max = 10_000) {
    this.entries = new LRUCache({ max });
  }

  get size(): number {
    return this.entries.size;
  }

  get(token: string): CacheEntry | undefined {
    if (this.last && this.last.token === token) return this.last.entry;
    const entry = this.entries.get(token);
    if (entry) this.last = { token, entry };
    return entry;
  }

  set(token: string, entry: CacheEntry, nowSeconds: number): void {
    // Kept until the token expires (with the skew every check allows); a token without exp, until it is the least recently used.
    const exp = entry.claims.exp;
    const ttl = typeof exp === 'number' ? (exp + CLOCK_SKEW_SECONDS - nowSeconds) * 1000 : 0;
    if (typeof exp === 'number' && ttl <= 0) return; // expired already: nothing to spare
    this.entries.set(token, entry, { ttl });
    this.last = null;
  }

  delete(token: string): void {
    this.entries.delete(token);
    this.last = null;
  }

  /**
   * The signature check of `token` against `pair`, run once for concurrent first uses: a client
   * that opens 50 connections at once sends its new token on each before any check has finished,
   * and 50 checks of an ES512 signature held a cold sandbox's first answers back by most of a
   * second. A waiter gets its own namespace's pair back, the claims of the one check.
   */
  verifyOnce(token: string, pair: ApiKeyPairRecord, verify: () => Promise<VerifiedToken>): Promise<VerifiedToken> {
    const running = this.verifying.get(token);
    if (running && running.pairId === pair.id && running.publicKey === pair.public_key) {
      return running.result.then(({ scopes, claims }) => ({ pair, scopes, claims }));
    }
    const check = { pairId: pair.id, publicKey: pair.public_key, result: verify() };
    this.verifying.set(token, check);
    const forget = () => {
      if (this.verifying.get(token) === check) this.verifying.delete(token);
    };
    check.result.then(forget, forget);
    return check.result;
  }
}

/** 401 with the RFC 6750 challenge, so generic HTTP clients know a bearer token is expected. */
export function unauthorized(message: string): ApiError {
  return new ApiError(401, 'unauthorized', message, [], { headers: { 'www-authenticate': 'Bearer' } });
}

const keyCache = new WeakMap<ApiKeyPairRecord, { pem: string; key: KeyObject }>();

function publicKeyOf(pair: ApiKeyPairRecord): KeyObject {
  const cached = keyCache.get(pair);
  if (cached && cached.pem === pair.public_key) return cached.key;
  const key = createPublicKey(pair.public_key);
  keyCache.set(pair, { pem: pair.public_key, key });
  return key;
}

function isExpired(claims: JWTPayload, nowSeconds: number): boolean {
  return typeof claims.exp === 'number' && claims.exp <= nowSeconds - CLOCK_SKEW_SECONDS;
}

/** The same rules jose applies (exp <= now - skew is expired, nbf > now + skew is early). */
function checkTimes(claims: JWTPayload, nowSeconds: number): void {
  if (isExpired(claims, nowSeconds)) throw unauthorized(EXPIRED);
  if (typeof claims.nbf === 'number' && claims.nbf > nowSeconds + CLOCK_SKEW_SECONDS) throw unauthorized(NOT_YET_VALID);
}

// gr4vy-php's SDK builder mints one 30-second token when the client is built: the hint names it.
const EXPIRED =
  'The bearer token has expired (exp is more than 30 s in the past): mint a fresh one for each request (a client that mints a single token when it is built, as the gr4vy-php builder does, must be built again).';
const NOT_YET_VALID = 'The bearer token is not valid yet (nbf is more than 30 s in the future): check the clock of the machine that minted it.';

function scopesOf(claims: JWTPayload): string[] {
  const scopes = claims.scopes;
  if (scopes === undefined) return [];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) {
    throw unauthorized('The bearer token claim "scopes" must be an array of strings.');
  }
  return scopes as string[];
}

/** The token's alg and kid, decoded from its header. */
function headerOf(token: string): { alg: string; kid: string } {
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw unauthorized('The bearer token is not a well-formed JWT (three base64url parts: header.payload.signature).');
  }
  const alg = typeof header.alg === 'string' ? header.alg : '';
  if (alg === '' || alg.toLowerCase() === 'none' || alg.toUpperCase().startsWith('HS')) {
    throw unauthorized(`The bearer token algorithm '${alg.slice(0, 20)}' is not accepted: sign with ES512 (ECDSA pairs) or RS512 (RSA pairs).`);
  }
  if (typeof header.kid !== 'string' || !header.kid) throw unauthorized('The bearer token header has no kid: set it to the API key pair thumbprint.');
  return { alg, kid: header.kid };
}

/** An unknown kid; one computed from a pair's key with leading zero bytes of a coordinate lost is named as such. */
function unknownKidMessage(kid: string, store: Store): string {
  const near = store.collections.api_key_pairs.find((p) => p.algorithm === 'ECDSA' && misreadThumbprints(p.public_key).includes(kid));
  if (!near) return `No API key pair has the thumbprint '${kid.slice(0, 100)}' (the token kid).`;
  return (
    `The token kid '${kid}' is the thumbprint of API key pair ${near.id}'s key computed without leading zero bytes of its x or y coordinate; ` +
    `RFC 7638 keeps them (every coordinate is 66 bytes), so its kid is '${near.thumbprint}'. ` +
    'gr4vy-go before v1.12.97 drops them and gr4vy-php puts back only one: upgrade the client, or use a key whose coordinates start with at most one zero byte.'
  );
}

/** Checks that need no signature, on every request: known kid, active pair, the alg of that pair. */
function pairOf(kid: string, alg: string, store: Store): { pair: ApiKeyPairRecord; alg: 'ES512' | 'RS512' } {
  const pair = store.collections.api_key_pairs.find((p) => p.thumbprint === kid);
  if (!pair) throw unauthorized(unknownKidMessage(kid, store));
  if (!pair.active) throw unauthorized(`The API key pair ${pair.id} is inactive: activate it or use another pair.`);
  const expected = jwsAlgorithmOf(pair.algorithm);
  if (alg !== expected) {
    throw unauthorized(`The bearer token is signed with ${alg.slice(0, 20)}, but API key pair ${pair.id} (${pair.algorithm}) requires ${expected}.`);
  }
  return { pair, alg: expected };
}

/**
 * Verifies `token` against the store's key pairs at wall-clock time `nowMs`. exp is required;
 * nbf and exp allow 30 s of clock skew. Synchronous for a token already verified (the cache), so
 * the request path waits for nothing then.
 */
export function verifyToken(token: string, store: Store, cache: TokenCache, nowMs = Date.now()): VerifiedToken | Promise<VerifiedToken> {
  const nowSeconds = Math.floor(nowMs / 1000);
  const hit = cache.get(token);
  const header = hit ?? headerOf(token);
  const { pair, alg } = pairOf(header.kid, header.alg, store);

  if (hit && hit.pairId === pair.id && hit.publicKey === pair.public_key) {
    checkTimes(hit.claims, nowSeconds);
    return { pair, scopes: hit.scopes, claims: hit.claims };
  }
  if (hit) cache.delete(token); // the pair behind the kid changed: verify again from scratch
  return cache.verifyOnce(token, pair, () => verifySignature(token, header, pair, alg, cache, nowMs));
}

async function verifySignature(
  token: string,
  header: { kid: string; alg: string },
  pair: ApiKeyPairRecord,
  alg: 'ES512' | 'RS512',
  cache: TokenCache,
  nowMs: number,
): Promise<VerifiedToken> {
  const nowSeconds = Math.floor(nowMs / 1000);
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, publicKeyOf(pair), {
      algorithms: [alg],
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: new Date(nowMs),
      requiredClaims: ['exp'],
    }));
  } catch (err) {
    throw unauthorized(reasonOf(err));
  }
  const scopes = scopesOf(claims);
  cache.set(token, { kid: header.kid, alg: header.alg, pairId: pair.id, publicKey: pair.public_key, claims, scopes }, nowSeconds);
  return { pair, scopes, claims };
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return EXPIRED;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'The bearer token signature does not match the public key of the API key pair named by its kid.';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return NOT_YET_VALID;
    if (err.claim === 'exp') return 'The bearer token needs a numeric exp claim (clients mint 30-second tokens).';
    return `The bearer token claim ${err.claim} is invalid: ${err.reason}.`;
  }
  if (err instanceof joseErrors.JWTInvalid || err instanceof joseErrors.JWSInvalid)
    return 'The bearer token is not a well-formed JWT (its payload must be a JSON object).';
  return 'The bearer token could not be verified.';
}
