// Authentication and authorization of a matched operation: the bearer token (401), the operation's
// scope (403) and the merchant account (403), in that order.
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../http/api-error.js';
import type { Principal, SandboxEnv } from '../http/env.js';
import type { Store } from '../store/store.js';
import { allowedScope } from './scopes.js';
import { verifyToken, type TokenCache } from './verify-token.js';

export const MERCHANT_ACCOUNT_HEADER = 'x-service-merchant-account-id';
export const DEFAULT_MERCHANT_ACCOUNT = 'default';

export interface AuthDeps {
  mode: 'jwt' | 'none';
  tokenCache: TokenCache;
}

export function authenticate(deps: AuthDeps): MiddlewareHandler<SandboxEnv> {
  return async function authenticateRequest(c, next) {
    const operation = c.var.operation;
    const store = c.var.ns.store;
    const merchantAccountId = c.req.header(MERCHANT_ACCOUNT_HEADER) || DEFAULT_MERCHANT_ACCOUNT;
    let principal: Principal;

    if (!operation.requiresAuth) {
      // Public operations (Click to Pay) ignore any Authorization header, even an expired token.
      principal = { kind: 'anonymous', keyPair: null, scopes: [], claims: {} };
    } else if (deps.mode === 'none') {
      principal = { kind: 'auth-off', keyPair: null, scopes: ['*.read', '*.write', 'embed'], claims: {} };
    } else {
      const token = bearerToken(c.req.header('authorization'));
      const verified = await verifyToken(token, store, deps.tokenCache);
      const pair = verified.pair;
      const roleScopes = pair.role_ids.flatMap((id) => store.collections.roles.get(id)?.scopes ?? []);
      if (!allowedScope(operation.scopes, verified.scopes, roleScopes)) {
        const which = operation.scopes.map((s) => `'${s}'`).join(' or ');
        const lacking = operation.scopes.some((s) => allowedScope([s], verified.scopes, ['*.read', '*.write', 'embed']))
          ? "the API key pair's roles do not grant it"
          : 'the token scopes do not include it';
        throw ApiError.forbidden(`This operation (${operation.id}) requires the scope ${which}; ${lacking}.`);
      }
      checkMerchantAccess(store, merchantAccountId, pair.merchant_account_ids, pair.id);
      store.collections.api_key_pairs.update(pair.id, { last_used_at: c.var.ns.clock.nowIso() });
      principal = { kind: 'key-pair', keyPair: pair, scopes: verified.scopes, claims: verified.claims as Record<string, unknown> };
    }
    if (principal.kind !== 'key-pair' && !store.collections.merchant_accounts.get(merchantAccountId)) {
      throw merchantRefused(merchantAccountId);
    }
    c.set('principal', principal);
    c.set('merchantAccountId', merchantAccountId);
    await next();
  };
}

function bearerToken(header: string | undefined): string {
  if (!header) throw ApiError.unauthorized('Missing Authorization header: send "Authorization: Bearer <token>".');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw ApiError.unauthorized('The Authorization header must be "Bearer <token>".');
  return match[1];
}

/** A pair limited to some merchant accounts may act only on those; an empty list means all. */
export function checkMerchantAccess(store: Store, merchantAccountId: string, allowed: string[], pairId: string): void {
  if (!store.collections.merchant_accounts.get(merchantAccountId)) throw merchantRefused(merchantAccountId);
  if (allowed.length && !allowed.includes(merchantAccountId)) {
    throw ApiError.forbidden(`The API key pair ${pairId} may not act on merchant account '${merchantAccountId}'.`);
  }
}

function merchantRefused(id: string): ApiError {
  return ApiError.forbidden(`Merchant account '${id.slice(0, 100)}' does not exist or is not accessible.`);
}
