// Key handling for API key pairs: PEM parsing, RFC 7638 thumbprints and key generation, all through
// node:crypto and jose (no hand-rolled crypto).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { LRUCache } from 'lru-cache';

export type KeyAlgorithm = 'ECDSA' | 'RSA';

/** The JWS algorithm a pair's tokens must be signed with. */
export function jwsAlgorithmOf(algorithm: KeyAlgorithm): 'ES512' | 'RS512' {
  return algorithm === 'RSA' ? 'RS512' : 'ES512';
}

/** Parses a PEM public key; throws a message a caller can act on. */
export function parsePublicKey(pem: string): KeyObject {
  try {
    return createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw new Error('public_key is not a PEM-encoded public key');
  }
}

const SPKI_PEM = /^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----$/;

/**
 * A key a caller registers: exactly one SPKI PEM block ("BEGIN PUBLIC KEY"). Node would also derive
 * a public key from a private key or a certificate; those are refused so that a private key sent by
 * mistake is never accepted (nor echoed back).
 */
export function parseRegisteredPublicKey(pem: string): { key: KeyObject } | { problem: string; secret: boolean } {
  const text = pem.trim();
  if (/PRIVATE KEY-----/.test(text)) {
    return {
      problem: 'public_key holds a private key: send only the public key (SPKI PEM, "-----BEGIN PUBLIC KEY-----"), and keep the private key secret.',
      secret: true,
    };
  }
  if (!SPKI_PEM.test(text)) {
    return { problem: 'public_key is not a PEM-encoded public key: send one "-----BEGIN PUBLIC KEY-----" block (SPKI).', secret: false };
  }
  try {
    return { key: createPublicKey({ key: text, format: 'pem' }) };
  } catch {
    return { problem: 'public_key is a PEM block that does not hold a readable public key.', secret: false };
  }
}

/** Which pair algorithm a key belongs to, or null when it is neither ECDSA P-521 nor RSA. */
export function keyAlgorithmOf(key: KeyObject): KeyAlgorithm | null {
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'secp521r1') return 'ECDSA';
  if (key.asymmetricKeyType === 'rsa') return 'RSA';
  return null;
}

export function publicKeyPemOf(privateKeyPem: string): string {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString();
}

/** RFC 7638 JWK thumbprint (SHA-256, base64url) of a public key: the `kid` of its tokens. */
export async function thumbprintOf(publicKey: KeyObject | string): Promise<string> {
  const key = typeof publicKey === 'string' ? parsePublicKey(publicKey) : publicKey;
  return calculateJwkThumbprint(await exportJWK(key), 'sha256');
}

const misread = new LRUCache<string, { kids: string[] }>({ max: 10_000 });

/** A coordinate as a client that lost leading zero bytes sends it: all dropped (gr4vy-go before v1.12.97), or one put back (gr4vy-php). */
function misreadCoordinates(coordinate: string): string[] {
  const bytes = Buffer.from(coordinate, 'base64url');
  const first = bytes.findIndex((b) => b !== 0);
  if (first <= 0) return [];
  const dropped = bytes.subarray(first);
  const onePutBack = Buffer.concat([Buffer.alloc(1), dropped]);
  return [...new Set([dropped, onePutBack].filter((b) => b.length < bytes.length).map((b) => b.toString('base64url')))];
}

/**
 * The kids a client computes for an ECDSA public key when it loses leading zero bytes of x or y
 * (a coordinate starts with one about every other time, with two one time in 512: three keys in four
 * have one in x or y, one in 256 two): never accepted (RFC 7638 keeps all 66
 * bytes), recognised only so that the 401 can say what went wrong. Cached per PEM: asked for on
 * every unknown kid.
 */
export function misreadThumbprints(publicKeyPem: string): string[] {
  const cached = misread.get(publicKeyPem);
  if (cached) return cached.kids;
  let jwk: { crv?: string; kty?: string; x?: string; y?: string };
  try {
    jwk = parsePublicKey(publicKeyPem).export({ format: 'jwk' });
  } catch {
    return []; // not a key at all: no kid could have come from it
  }
  const { crv, kty, x, y } = jwk;
  const kids: string[] = [];
  if (x !== undefined && y !== undefined) {
    const xs = [x, ...misreadCoordinates(x)];
    const ys = [y, ...misreadCoordinates(y)];
    for (const mx of xs)
      for (const my of ys) {
        if (mx === x && my === y) continue;
        kids.push(
          createHash('sha256')
            .update(JSON.stringify({ crv, kty, x: mx, y: my }))
            .digest('base64url'),
        );
      }
  }
  misread.set(publicKeyPem, { kids });
  return kids;
}

/** Generates a fresh pair: ECDSA on P-521 or 2048-bit RSA; the private key as PKCS#8 PEM. */
export function generateKeyPair(algorithm: KeyAlgorithm): { publicKeyPem: string; privateKeyPem: string } {
  const pair = algorithm === 'RSA' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-521' });
  return {
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
