import { randomUUID } from 'node:crypto';
import { isSubset, grants } from '../../auth/scopes.js';
import { generateKeyPair, keyAlgorithmOf, parsePublicKey, thumbprintOf } from '../../auth/key-material.js';
import { ApiError, type ValidationItem } from '../../http/api-error.js';
import type { ApiKeyPairRecord } from '../../store/records.js';
import type { HandlerContext, HandlerMap } from '../types.js';
import { serializeApiKeyPair } from './serialize.js';

export const apiKeyPairHandlers: HandlerMap = {
  /**
   * Registers a caller's public key, or generates a pair and returns its private key once (never
   * stored). The caller may grant only roles within its own scopes and merchant accounts it can reach.
   */
  async createApiKeyPair(ctx) {
    const { db, body, now, principal } = ctx;
    const algorithm: 'ECDSA' | 'RSA' = body.algorithm ?? 'ECDSA';
    const roles = knownRoles(ctx);
    checkRolesWithinCaller(ctx, roles.flatMap((r) => r.scopes));
    const merchantAccountIds: string[] = [...new Set<string>(body.merchant_account_ids ?? [])];
    checkMerchantAccountsWithinCaller(ctx, merchantAccountIds);

    let publicKeyPem: string;
    let privateKey: string | null = null;
    if (typeof body.public_key === 'string') {
      publicKeyPem = registeredKey(body.public_key, algorithm);
    } else {
      const generated = generateKeyPair(algorithm);
      publicKeyPem = generated.publicKeyPem;
      privateKey = generated.privateKeyPem;
    }
    const thumbprint = await thumbprintOf(publicKeyPem);
    const existing = db.api_key_pairs.find((p) => p.thumbprint === thumbprint);
    if (existing) throw ApiError.duplicate(`An API key pair with this public key exists: ${existing.id}.`, existing.id);

    const caller = principal.keyPair;
    const pair: ApiKeyPairRecord = {
      type: 'api-key-pair',
      id: randomUUID(),
      thumbprint,
      display_name: body.display_name,
      algorithm,
      active: body.active ?? true,
      public_key: publicKeyPem,
      created_at: now,
      updated_at: now,
      last_used_at: null,
      creator: caller ? { type: 'api-key-pair', id: caller.id, display_name: caller.display_name } : null,
      merchant_account_ids: merchantAccountIds,
      role_ids: roles.map((r) => r.id),
    };
    db.api_key_pairs.insert(pair);
    return { body: serializeApiKeyPair(db, pair, privateKey) };
  },
};

function knownRoles({ db, body }: HandlerContext) {
  const ids: string[] = [...new Set<string>(body.role_ids)];
  const missing: ValidationItem[] = [];
  body.role_ids.forEach((id: string, index: number) => {
    if (!db.roles.get(id)) missing.push({ loc: ['body', 'role_ids', String(index)], msg: `Role ${id} does not exist.`, type: 'value_error', input: id, ctx: {} });
  });
  if (missing.length) throw ApiError.unprocessable(missing);
  return ids.map((id) => db.roles.get(id)!);
}

/** The caller's effective scopes are those both its token and its roles grant. */
function checkRolesWithinCaller({ db, principal }: HandlerContext, wanted: string[]): void {
  const caller = principal.keyPair;
  if (!caller) return; // --auth none: the caller holds every scope
  const callerRoleScopes = caller.role_ids.flatMap((id) => db.roles.get(id)?.scopes ?? []);
  const beyond = wanted.filter((scope) => !(isSubset([scope], principal.scopes) && grants(callerRoleScopes, scope)));
  if (beyond.length) {
    throw ApiError.forbidden(`The roles would grant scopes the caller does not hold: ${[...new Set(beyond)].join(', ')}.`);
  }
}

function checkMerchantAccountsWithinCaller({ db, principal }: HandlerContext, wanted: string[]): void {
  for (const id of wanted) {
    if (!db.merchant_accounts.get(id)) throw ApiError.forbidden(`Merchant account '${id.slice(0, 100)}' does not exist or is not accessible.`);
  }
  const limitedTo = principal.keyPair?.merchant_account_ids ?? [];
  if (!limitedTo.length) return;
  if (!wanted.length) throw ApiError.forbidden(`The caller is limited to merchant accounts ${limitedTo.join(', ')} and cannot grant access to all merchant accounts.`);
  const beyond = wanted.filter((id) => !limitedTo.includes(id));
  if (beyond.length) throw ApiError.forbidden(`The caller may not grant access to merchant account ${beyond.join(', ')}.`);
}

/** A registered key must be a PEM ECDSA P-521 public key (the reference allows only those). */
function registeredKey(pem: string, algorithm: string): string {
  const problem = (msg: string): never => {
    throw ApiError.unprocessable([{ loc: ['body', 'public_key'], msg, type: 'value_error', input: pem.length > 200 ? `${pem.slice(0, 200)}...` : pem, ctx: {} }]);
  };
  if (algorithm === 'RSA') {
    throw ApiError.unprocessable([{ loc: ['body', 'algorithm'], msg: 'A public_key can only be registered for an ECDSA pair; omit algorithm or use ECDSA.', type: 'value_error', input: algorithm, ctx: {} }]);
  }
  let key;
  try {
    key = parsePublicKey(pem);
  } catch {
    return problem('public_key is not a PEM-encoded public key.');
  }
  if (keyAlgorithmOf(key) !== 'ECDSA') problem('public_key must be an ECDSA P-521 (ES512) public key.');
  return key.export({ type: 'spki', format: 'pem' }).toString();
}
