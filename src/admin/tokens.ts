// POST /_sandbox/tokens: a bearer token for a key pair of the namespace, so test code and tools that
// cannot sign JWTs can still call the API. Without a private key, the well-known pairs' key files
// (fixtures/keys) are used.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultKeysDir } from '../../fixtures/keys-dir.js';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { publicKeyPemOf, thumbprintOf } from '../auth/key-material.js';
import { mintToken } from '../auth/mint-token.js';
import { ApiError } from '../errors/api-error.js';
import type { AdminHandlerMap } from './types.js';

const KEY_FILES = new Map<string, string>(Object.values(WELL_KNOWN.keyPairs).map((p) => [p.id, p.keyFile]));

export const tokenHandlers: AdminHandlerMap = {
  async createToken({ ns, body }) {
    const request = (body ?? {}) as { key_pair_id?: string; private_key?: string; scopes?: string[]; ttl_seconds?: number };
    const keyPairId = request.key_pair_id ?? WELL_KNOWN.keyPairs.admin.id;
    const pair = ns.store.collections.api_key_pairs.get(keyPairId);
    if (!pair) throw ApiError.notFound(`There is no API key pair ${keyPairId.slice(0, 100)} in namespace ${ns.name}.`);
    const privateKeyPem = request.private_key ?? wellKnownKey(keyPairId);
    let thumbprint: string;
    try {
      thumbprint = await thumbprintOf(publicKeyPemOf(privateKeyPem));
    } catch {
      throw bad('/private_key', 'private_key is not a PEM-encoded private key.');
    }
    if (thumbprint !== pair.thumbprint) throw bad('/private_key', `private_key does not belong to API key pair ${pair.id}.`);
    const ttlSeconds = request.ttl_seconds ?? 3600;
    const issuedAt = Math.floor(Date.now() / 1000);
    const token = await mintToken({ privateKeyPem, scopes: request.scopes, ttlSeconds, issuedAt });
    return { body: { token, expires_at: new Date((issuedAt + ttlSeconds) * 1000).toISOString(), key_pair_id: pair.id, thumbprint } };
  },
};

function wellKnownKey(keyPairId: string): string {
  const file = KEY_FILES.get(keyPairId);
  if (!file) throw bad('/private_key', `API key pair ${keyPairId} has no well-known key file: send its private_key (PEM).`);
  return readFileSync(join(defaultKeysDir(), file), 'utf8');
}

function bad(pointer: string, message: string): ApiError {
  return ApiError.badRequest(message, [{ location: 'body', pointer, type: 'value_error', message }]);
}
