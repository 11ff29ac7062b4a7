// The buyer's approval of a payment service token, which the sandbox hosts itself: a token in
// buyer_approval_required has an approval_url on the sandbox (/_sandbox/hosted/approvals/{id}, at the
// address the client reached it at), and the buyer's decision (the page, a control route, or a
// decision planned on the namespace clock) moves it on:
//   approve -> succeeded, decline -> failed, cancel (the buyer abandons) -> failed;
// approval_url becomes null, the outcome is kept on the record, and payment-service-token.updated
// is announced. Only a waiting token can be decided: anything else changes nothing (400).
import { ApiError } from '../../errors/api-error.js';
import type { TimedChanges } from '../../namespace/announce.js';
import type { Namespace } from '../../namespace/namespace.js';
import type { PaymentMethodRecord, PaymentServiceTokenRecord } from '../../store/records.js';
import type { CollectionMap } from '../../store/store.js';

/** Where stored approval URLs point when they are the sandbox's own page (as the served documents' servers url). */
export const STORED_ORIGIN = 'http://127.0.0.1:4010';
export const APPROVAL_PATH = '/_sandbox/hosted/approvals/';
export const COMPLETION_PATH = '/_sandbox/hosted/transactions/';

export const DECISIONS = ['approve', 'decline', 'cancel'] as const;
export type Decision = (typeof DECISIONS)[number];
export type ApprovalOutcome = 'approved' | 'declined' | 'cancelled';

export const OUTCOME_OF: Record<Decision, ApprovalOutcome> = { approve: 'approved', decline: 'declined', cancel: 'cancelled' };
const STATUS_OF: Record<Decision, PaymentServiceTokenRecord['status']> = { approve: 'succeeded', decline: 'failed', cancel: 'failed' };

/** The base of links in what no request asked for (event targets): the stored origin, with the namespace's prefix. */
export const storedBaseOf = (namespace: string) => (namespace === 'default' ? STORED_ORIGIN : `${STORED_ORIGIN}/ns/${namespace}`);

/** The sandbox's approval page of a token, under `base` (origin, and /ns/{name} in a namespace). */
export const approvalUrl = (base: string, tokenId: string) => `${base}${APPROVAL_PATH}${tokenId}`;

/** The sandbox's completion page of a transaction, under `base`. */
export const completionUrl = (base: string, transactionId: string) => `${base}${COMPLETION_PATH}${transactionId}/complete`;

/** A transaction's default_completion_url as shown to a client at `base`: the sandbox's page at that address (one stored elsewhere as stored). */
export function shownCompletionUrl(stored: string, transactionId: string, base: string): string {
  return stored.includes(`${COMPLETION_PATH}${transactionId}/complete`) ? completionUrl(base, transactionId) : stored;
}

/** The id of the token whose sandbox approval page `url` is (whatever its origin), or null. */
export function approvalPageTokenId(url: string | null | undefined): string | null {
  if (!url) return null;
  const at = url.indexOf(APPROVAL_PATH);
  if (at < 0) return null;
  const id = url.slice(at + APPROVAL_PATH.length);
  return /^[0-9a-fA-F-]{36}$/.test(id) ? id.toLowerCase() : null;
}

/**
 * A token's approval_url as the API shows it to a client that reached the sandbox at `base`: the
 * sandbox's page while it waits for the buyer (unless a URL elsewhere was stored on purpose), null
 * once decided.
 */
export function tokenApprovalUrl(t: PaymentServiceTokenRecord, base: string): string | null {
  if (t.status !== 'buyer_approval_required') return t.approval_url;
  if (t.approval_url === null || approvalPageTokenId(t.approval_url) === t.id) return approvalUrl(base, t.id);
  return t.approval_url;
}

/**
 * A payment method's approval_url: one pointing at a token's sandbox page follows that token (the
 * page at the client's address while it waits, null once decided); any other is shown as stored.
 */
export function methodApprovalUrl(db: CollectionMap | null, pm: PaymentMethodRecord, base: string): string | null {
  const tokenId = approvalPageTokenId(pm.approval_url);
  if (tokenId === null) return pm.approval_url;
  const token = db?.payment_service_tokens.get(tokenId);
  return token && token.status === 'buyer_approval_required' ? approvalUrl(base, token.id) : null;
}

/** The waiting token `id` of the namespace, or a 404 naming what to fix. */
export function tokenOf(ns: Namespace, id: string): PaymentServiceTokenRecord {
  const token = ns.store.collections.payment_service_tokens.get(id.toLowerCase());
  if (!token) throw ApiError.notFound(`No payment service token has id ${id.slice(0, 80)} in namespace ${ns.name}.`);
  return token;
}

/** Why a decision on `token` changes nothing, or null when it is waiting for the buyer. */
export function notWaiting(token: PaymentServiceTokenRecord): string | null {
  if (token.status === 'buyer_approval_required') return null;
  const outcome = token.approval_outcome ? ` (the buyer ${token.approval_outcome} it at ${token.updated_at})` : '';
  return `Payment service token ${token.id} is ${token.status}${outcome}: only a token in buyer_approval_required waits for the buyer, so nothing changed.`;
}

/**
 * The buyer's decision on a waiting token, at `atMs` on the namespace clock (NaN: now): the token's
 * new status, announced. A 400 when it is not waiting.
 */
export function decide(ns: Namespace, tokenId: string, decision: Decision, atMs = Number.NaN): PaymentServiceTokenRecord {
  const token = tokenOf(ns, tokenId);
  const problem = notWaiting(token);
  if (problem) {
    throw ApiError.badRequest(problem, [{ location: 'path', pointer: '/token_id', type: 'token_not_waiting', message: `The token is ${token.status}.` }]);
  }
  const at = Number.isNaN(atMs) ? ns.clock.nowIso() : new Date(atMs).toISOString();
  const updated = ns.store.collections.payment_service_tokens.update(token.id, {
    status: STATUS_OF[decision],
    approval_url: null,
    approval_outcome: OUTCOME_OF[decision],
    approval_plan: null,
    updated_at: at,
  }) as PaymentServiceTokenRecord;
  ns.announce({
    name: 'payment-service-token.updated',
    merchantAccountId: updated.merchant_account_id,
    collection: 'payment_service_tokens',
    record: updated,
    atMs,
  });
  return updated;
}

/** Plans the buyer's decision on a waiting token for `dueMs` on the namespace clock (catchUpApprovals carries it out). */
export function planDecision(ns: Namespace, tokenId: string, decision: Decision, dueMs: number): PaymentServiceTokenRecord {
  const token = tokenOf(ns, tokenId);
  const problem = notWaiting(token);
  if (problem) {
    throw ApiError.badRequest(problem, [{ location: 'path', pointer: '/token_id', type: 'token_not_waiting', message: `The token is ${token.status}.` }]);
  }
  return ns.store.collections.payment_service_tokens.update(token.id, {
    approval_plan: { decision, due_at: new Date(dueMs).toISOString() },
  }) as PaymentServiceTokenRecord;
}

/** Carries out the planned decisions that fell due by now on the namespace clock, each at its instant. */
export function catchUpApprovals(ns: Namespace): void {
  const tokens = ns.store.collections.payment_service_tokens;
  const now = ns.clock.now();
  for (const token of tokens.where((t) => t.approval_plan != null)) {
    const plan = token.approval_plan as NonNullable<PaymentServiceTokenRecord['approval_plan']>;
    const due = Date.parse(plan.due_at);
    if (due > now) continue;
    if (token.status === 'buyer_approval_required') decide(ns, token.id, plan.decision, due);
    else tokens.update(token.id, { approval_plan: null });
  }
}

/** When the next planned decision falls due on the namespace clock, or null. */
export function nextApprovalAt(ns: Namespace): number | null {
  let next = Number.POSITIVE_INFINITY;
  for (const token of ns.store.collections.payment_service_tokens.all()) {
    if (!token.approval_plan || token.status !== 'buyer_approval_required') continue;
    const due = Date.parse(token.approval_plan.due_at);
    if (due < next) next = due;
  }
  return Number.isFinite(next) ? next : null;
}

/** Planned decisions as changes that come by themselves on the namespace clock, for webhooks to wait on. */
export function approvalTimedChanges(ns: Namespace): TimedChanges {
  let seen = { changes: -1, collection: null as object | null, at: null as number | null };
  return {
    catchUp: () => catchUpApprovals(ns),
    nextChangeAt() {
      const tokens = ns.store.collections.payment_service_tokens;
      if (seen.collection !== tokens || seen.changes !== tokens.changeCount) {
        seen = { changes: tokens.changeCount, collection: tokens, at: nextApprovalAt(ns) };
      }
      return seen.at;
    },
    movedBy: (collection) => collection === 'payment_service_tokens',
  };
}

/** A redirect URL the page may send the buyer to: http or https only (checked where it is set). */
export function redirectUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not an absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `uses ${parsed.protocol.slice(0, 20)}: the buyer is sent back only to an http or https URL`;
  if (parsed.username || parsed.password) return 'carries a user name or password: leave them out';
  return null;
}

/** Where the page sends the buyer after a decision: the token's redirect URL with the outcome in its query, or null. */
export function redirectAfter(token: PaymentServiceTokenRecord): string | null {
  if (!token.redirect_url || !token.approval_outcome || redirectUrlProblem(token.redirect_url)) return null;
  const url = new URL(token.redirect_url);
  url.searchParams.set('outcome', token.approval_outcome);
  url.searchParams.set('payment_service_token_id', token.id);
  url.searchParams.set('status', token.status);
  return url.href;
}
