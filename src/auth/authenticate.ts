// Authentication and authorization of a matched operation, as two steps: the bearer token (401),
// then the operation's scope (403) and the merchant account (403). Between them the pipeline may
// create the request's namespace (http/namespace.ts): only a caller with a valid token makes one.
import { ApiError } from '../errors/api-error.js';
import type { Call, Principal } from '../http/call.js';
import type { Step } from '../http/pipeline.js';
import type { Operation } from '../spec/operations.js';
import type { Store } from '../store/store.js';
import { DEFAULT_MERCHANT_ACCOUNT, MERCHANT_ACCOUNT_HEADER, merchantAccountSelector } from './merchant-account.js';
import { ALL_SCOPES } from './mint-token.js';
import { allowedScope, grants, roleScopesOf } from './scopes.js';
import { type TokenCache, unauthorized, type VerifiedToken, verifyToken } from './verify-token.js';

export interface AuthDeps {
  mode: 'jwt' | 'none';
  tokenCache: TokenCache;
  /** Wall clock that token times are checked against (tests may inject one). */
  wallClock?: () => number;
  /** Other header names that choose the merchant account (--merchant-account-header). */
  merchantAccountHeaders?: readonly string[];
}

export function authenticate(deps: AuthDeps): Step {
  const wallClock = deps.wallClock ?? (() => Date.now()); // looked up per call: fake timers apply
  const selectMerchantAccount = merchantAccountSelector(deps.merchantAccountHeaders ?? []);
  // The last Authorization header read, and its token: a client sends the same header request after
  // request, and comparing it costs less than parsing a JWT-long header again.
  let lastHeader: string | undefined;
  let lastToken = '';
  const tokenOf = (header: string | undefined): string => {
    if (header === undefined || header !== lastHeader) {
      lastToken = bearerToken(header);
      lastHeader = header;
    }
    return lastToken;
  };
  return {
    name: 'authenticate',
    requires: ['namespace', 'operation'],
    provides: ['principal'],
    before(call) {
      const operation = call.operation as Operation;
      // 400 for a misnamed merchant account header, before anything else: the request must not run on `default` by mistake.
      selectMerchantAccount(call);
      if (!operation.requiresAuth) {
        // Public operations (Click to Pay) ignore any Authorization header, even an expired token.
        call.principal = { kind: 'anonymous', keyPair: null, scopes: [], claims: {} };
        return;
      }
      if (deps.mode === 'none') {
        call.principal = { kind: 'auth-off', keyPair: null, scopes: [...ALL_SCOPES], claims: {} };
        return;
      }
      const token = tokenOf(call.header('authorization'));
      const verified = verifyToken(token, call.ns.store, deps.tokenCache, wallClock());
      // A token seen before is checked without waiting; a new one waits for its signature check.
      if (verified instanceof Promise) return verified.then((v) => identify(call, v));
      identify(call, verified);
    },
  };
}

function identify(call: Call, verified: VerifiedToken): void {
  call.principal = { kind: 'key-pair', keyPair: verified.pair, scopes: verified.scopes, claims: verified.claims as Record<string, unknown> };
}

/**
 * 403s, after authenticate(): the verified token's pair may call this operation (scope) for this
 * merchant account, which must exist. Records that the pair was used.
 */
export function authorize(): Step {
  return {
    name: 'authorize',
    requires: ['namespace', 'operation', 'principal'],
    before(call) {
      const store = call.ns.store;
      const operation = call.operation as Operation;
      const principal = call.principal as Principal;
      // None when x-service-merchant-account-id was empty: validation refuses that next.
      const merchantAccountId = call.merchantAccountId ?? DEFAULT_MERCHANT_ACCOUNT;
      const header = call.merchantAccountHeader ?? MERCHANT_ACCOUNT_HEADER;
      const pair = principal.keyPair;
      if (principal.kind !== 'key-pair' || !pair) {
        checkMerchantExists(store, merchantAccountId, header);
        return;
      }
      // Authenticated: the pair was used, whether or not this operation is then allowed. Written only
      // when the instant changed: a busy client would otherwise rewrite the record (and, with --data,
      // append it to the change log) on every request of the same millisecond. Incidental: logged
      // with the next append, but no answer waits for the disk for it (a GET stays a read).
      const now = call.ns.clock.nowIso();
      if (pair.last_used_at !== now) store.collections.api_key_pairs.update(pair.id, { last_used_at: now }, { incidental: true });
      checkScope(operation.id, operation.scopes, principal.scopes, roleScopesOf(store.collections.roles, pair.role_ids), pair.id);
      checkMerchantAccess(store, merchantAccountId, pair.merchant_account_ids, pair.id, header);
    },
  };
}

/** `Bearer <token>`: the scheme is case-insensitive and may be followed by several spaces (RFC 7235). */
export function bearerToken(header: string | undefined): string {
  // The common case, "Bearer <jwt>" with one space, without a regular expression.
  if (header?.startsWith('Bearer ') && header.length > 7 && !/\s/.test(header.slice(7))) return header.slice(7);
  const match = /^\s*(\S+)(?:\s+(.*?))?\s*$/.exec(header ?? '');
  if (!match) throw unauthorized('Missing Authorization header: send "Authorization: Bearer <token>".');
  if (match[1].toLowerCase() !== 'bearer') {
    throw unauthorized(`The Authorization header must use the Bearer scheme, not '${match[1].slice(0, 20)}': send "Authorization: Bearer <token>".`);
  }
  const token = match[2] ?? '';
  if (!token) throw unauthorized('The Authorization header has the Bearer scheme but no token: send "Authorization: Bearer <token>".');
  if (/\s/.test(token)) throw unauthorized('The bearer token must be one JWT without spaces: send "Authorization: Bearer <token>".');
  return token;
}

/** Effective scopes = token scopes that the pair's roles also grant; the 403 names the missing scope. */
function checkScope(operationId: string, required: string[], tokenScopes: string[], roleScopes: string[], pairId: string): void {
  if (allowedScope(required, tokenScopes, roleScopes)) return;
  const which = required.map((s) => `'${s}'`).join(' or ');
  const inToken = required.some((s) => grants(tokenScopes, s));
  const reason = inToken
    ? `the token grants it but the roles of API key pair ${pairId} do not`
    : `the token scopes [${tokenScopes.slice(0, 20).join(', ')}] do not include it`;
  throw ApiError.forbidden(`Missing scope ${which}: operation ${operationId} requires it, and ${reason}.`);
}

/**
 * A pair limited to some merchant accounts may act only on those; an empty list means all. `header`:
 * the one that chose the account, named in the 403.
 */
export function checkMerchantAccess(store: Store, merchantAccountId: string, allowed: string[], pairId: string, header = MERCHANT_ACCOUNT_HEADER): void {
  checkMerchantExists(store, merchantAccountId, header);
  if (allowed.length && !allowed.includes(merchantAccountId)) {
    throw ApiError.forbidden(`API key pair ${pairId} may not act on merchant account '${merchantAccountId}'; it is limited to: ${allowed.join(', ')}.`);
  }
}

function checkMerchantExists(store: Store, merchantAccountId: string, header: string): void {
  if (!store.collections.merchant_accounts.get(merchantAccountId)) {
    throw ApiError.forbidden(`Merchant account '${merchantAccountId.slice(0, 100)}' does not exist or is not accessible (header ${header}).`);
  }
}
