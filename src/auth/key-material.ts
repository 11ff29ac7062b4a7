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

const stripped = new LRUCache<string, { kid: string | null }>({ max: 10_000 });

/**
 * The kid of an ECDSA public key computed by a client that drops the leading zero bytes of x or y
 * (gr4vy-go before v1.12.97; about half of all P-521 keys have one), or null when neither starts
 * with a zero byte. Never accepted (RFC 7638 keeps the full 66 bytes): recognised only so the 401
 * can say what went wrong. Cached per PEM: it is asked for on every unknown kid.
 */
export function strippedCoordinateThumbprint(publicKeyPem: string): string | null {
  const cached = stripped.get(publicKeyPem);
  if (cached) return cached.kid;
  let jwk: { crv?: string; kty?: string; x?: string; y?: string };
  try {
    jwk = parsePublicKey(publicKeyPem).export({ format: 'jwk' });
  } catch {
    return null; // not a key at all: no kid could have come from it
  }
  if (jwk.x === undefined || jwk.y === undefined) return null;
  const strip = (coordinate: string) => {
    const bytes = Buffer.from(coordinate, 'base64url');
    const first = bytes.findIndex((b) => b !== 0);
    return bytes.subarray(first === -1 ? bytes.length : first).toString('base64url');
  };
  const x = strip(jwk.x);
  const y = strip(jwk.y);
  const kid =
    x === jwk.x && y === jwk.y
      ? null
      : createHash('sha256')
          .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x, y }))
          .digest('base64url');
  stripped.set(publicKeyPem, { kid });
  return kid;
}

/** Generates a fresh pair: ECDSA on P-521 or 2048-bit RSA; the private key as PKCS#8 PEM. */
export function generateKeyPair(algorithm: KeyAlgorithm): { publicKeyPem: string; privateKeyPem: string } {
  const pair = algorithm === 'RSA' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-521' });
  return {
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
