import { randomUUID } from 'node:crypto';
import { generateKeyPair, keyAlgorithmOf, parseRegisteredPublicKey, thumbprintOf } from '../../auth/key-material.js';
import { grants, roleScopesOf } from '../../auth/scopes.js';
import { ApiError, type ValidationItem } from '../../errors/api-error.js';
import type { ApiKeyPairRecord, RoleRecord } from '../../store/records.js';
import type { HandlerContext, HandlerMap } from '../types.js';
import { serializeApiKeyPair } from './serialize.js';

export const apiKeyPairHandlers: HandlerMap = {
  /**
   * Registers a caller's public key, or generates a pair and returns its private key once (never
   * stored). Checks in order: meaning of the body (422), what the caller may grant (403), an existing
   * pair with the same public key (409).
   */
  async createApiKeyPair(ctx) {
    const { db, body, now, principal } = ctx;
    const algorithm: 'ECDSA' | 'RSA' = body.algorithm ?? 'ECDSA';
    const problems: ValidationItem[] = [];
    const roles = knownRoles(ctx, problems);
    const registered = typeof body.public_key === 'string' ? registeredKey(body.public_key, algorithm, problems) : null;
    if (problems.length) throw ApiError.unprocessable(problems);

    checkRolesWithinCaller(ctx, roles);
    const merchantAccountIds: string[] = [...new Set<string>(body.merchant_account_ids ?? [])];
    checkMerchantAccountsWithinCaller(ctx, merchantAccountIds);

    let publicKeyPem: string;
    let privateKey: string | null = null;
    if (registered) {
      publicKeyPem = registered;
    } else {
      const generated = generateKeyPair(algorithm);
      publicKeyPem = generated.publicKeyPem;
      privateKey = generated.privateKeyPem;
    }
    const thumbprint = await thumbprintOf(publicKeyPem);
    const existing = db.api_key_pairs.find((p) => p.thumbprint === thumbprint);
    if (existing)
      throw ApiError.duplicate(`An API key pair with this public key already exists: ${existing.id}. Register another key or use that pair.`, existing.id);

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
    ctx.announce({ name: 'api-key-pair.created', collection: 'api_key_pairs', record: pair }); // the event's target never holds the private key
    // The private key exists only in this response: it is not in the record, nor anywhere else.
    return { body: serializeApiKeyPair(db, pair, privateKey) };
  },
};

/** The roles named by role_ids (each once); an unknown id is a 422 item pointing at its index. */
function knownRoles({ db, body }: HandlerContext, problems: ValidationItem[]): RoleRecord[] {
  const roles = new Map<string, RoleRecord>();
  (body.role_ids as string[]).forEach((id, index) => {
    const role = db.roles.get(id);
    if (role) roles.set(id, role);
    else problems.push({ loc: ['body', 'role_ids', String(index)], msg: `Role ${id} does not exist.`, type: 'value_error', input: id, ctx: {} });
  });
  return [...roles.values()];
}

/**
 * A caller may assign only roles whose scopes are within its own effective scopes (token scopes its
 * roles also grant). A wildcard in a role needs the same wildcard in both.
 */
function checkRolesWithinCaller({ db, principal }: HandlerContext, roles: RoleRecord[]): void {
  const caller = principal.keyPair;
  if (!caller) return; // auth: none, the caller holds every scope
  const callerRoleScopes = roleScopesOf(db.roles, caller.role_ids);
  for (const role of roles) {
    const beyond = role.scopes.filter((scope) => !(grants(principal.scopes, scope) && grants(callerRoleScopes, scope)));
    if (beyond.length) {
      throw ApiError.forbidden(
        `Role '${role.name}' (${role.id}) grants scopes the caller does not hold: ${beyond.join(', ')}. A caller may assign only roles within its own scopes.`,
      );
    }
  }
}

function checkMerchantAccountsWithinCaller({ db, principal }: HandlerContext, wanted: string[]): void {
  for (const id of wanted) {
    if (!db.merchant_accounts.get(id)) throw ApiError.forbidden(`Merchant account '${id.slice(0, 100)}' does not exist or is not accessible to the caller.`);
  }
  const limitedTo = principal.keyPair?.merchant_account_ids ?? [];
  if (!limitedTo.length) return;
  if (!wanted.length) {
    throw ApiError.forbidden(
      `The caller is limited to merchant accounts ${limitedTo.join(', ')} and cannot grant access to all merchant accounts (empty merchant_account_ids); list some of its accounts.`,
    );
  }
  const beyond = wanted.filter((id) => !limitedTo.includes(id));
  if (beyond.length)
    throw ApiError.forbidden(`The caller may not grant access to merchant account '${beyond.join("', '")}'; it is limited to: ${limitedTo.join(', ')}.`);
}

/** A registered key must be a PEM ECDSA P-521 public key (the reference allows only those); returns its SPKI PEM. */
function registeredKey(pem: string, algorithm: string, problems: ValidationItem[]): string | null {
  if (algorithm === 'RSA') {
    problems.push({
      loc: ['body', 'algorithm'],
      msg: 'A public_key can only be registered for an ECDSA (P-521) pair: omit algorithm or send ECDSA, or omit public_key to have an RSA pair generated.',
      type: 'value_error',
      input: algorithm,
      ctx: {},
    });
    return null;
  }
  const parsed = parseRegisteredPublicKey(pem);
  const problem = (msg: string, secret = false) => {
    const input = secret ? '[redacted: a private key]' : pem.length > 200 ? `${pem.slice(0, 200)}...` : pem;
    problems.push({ loc: ['body', 'public_key'], msg, type: 'value_error', input, ctx: {} });
    return null;
  };
  if ('problem' in parsed) return problem(parsed.problem, parsed.secret);
  if (keyAlgorithmOf(parsed.key) !== 'ECDSA') {
    const found =
      parsed.key.asymmetricKeyType === 'ec'
        ? `an EC key on ${parsed.key.asymmetricKeyDetails?.namedCurve ?? 'another curve'}`
        : `a ${parsed.key.asymmetricKeyType ?? 'different'} key`;
    return problem(`public_key must be an ECDSA P-521 (ES512) public key; this is ${found}.`);
  }
  return parsed.key.export({ type: 'spki', format: 'pem' }).toString();
}
