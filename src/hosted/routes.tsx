// The sandbox's hosted pages, plain Hono routes like the console's (no operation document describes
// HTML), served without the admin token: a buyer's browser opens them from an approval_url or a
// default_completion_url, which carry the namespace's /ns/{name} prefix.
//  - GET  /_sandbox/hosted/approvals/{token_id}: the token's approval page (three buttons while it waits, else its outcome);
//  - POST /_sandbox/hosted/approvals/{token_id}: the buyer's decision (form: decision, version), then 303 to the
//    token's redirect_url with the outcome in its query, or back to the page, which shows the outcome;
//  - GET  /_sandbox/hosted/transactions/{transaction_id}/complete: the transaction's status.
// Every request is journaled like an API call (a buyer's visit is part of the flow under test).
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { Child } from 'hono/jsx';
import { callOf, type SandboxEnv } from '../http/call.js';
import { whenRecorded } from '../http/dispatch.js';
import type { Namespace } from '../namespace/namespace.js';
import {
  APPROVAL_PATH,
  COMPLETION_PATH,
  catchUpApprovals,
  DECISIONS,
  type Decision,
  decide,
  notWaiting,
  redirectAfter,
} from '../resources/payment-methods/approval.js';
import { type ApprovalFacts, ApprovalForm, ApprovalOutcomePage, CompletionPage, HostedProblem, HostedShell } from './pages.js';

const HEADERS = {
  'cache-control': 'no-store',
  // An approval page inside another site's frame could be clicked through without the buyer knowing.
  'content-security-policy': "frame-ancestors 'none'; form-action 'self' http: https:",
  'x-frame-options': 'DENY',
  // The token's page address reaches no other site; same-origin (not no-referrer, under which a browser sends
  // `Origin: null` with the page's own form, which the own-origin step refuses) keeps it for the page's posts.
  'referrer-policy': 'same-origin',
};

/** `before`: the sandbox's first steps, the namespace step, ownership in a shared sandbox, and the journal. */
export function hostedRoutes(before: MiddlewareHandler<SandboxEnv>[]): Hono<SandboxEnv> {
  const routes = new Hono<SandboxEnv>();
  routes.on(['GET', 'HEAD', 'POST'], [`${APPROVAL_PATH}:token_id`], ...before);
  routes.on(['GET', 'HEAD'], [`${COMPLETION_PATH}:transaction_id/complete`], ...before);

  routes.get(`${APPROVAL_PATH}:token_id`, function showApprovalPage(c) {
    const found = findToken(c);
    if ('problem' in found) return found.problem;
    const { ns, facts } = found;
    // A planned decision that fell due was carried out just now: answered once it is recorded, as the API's reads are.
    if (notWaiting(facts.token) === null)
      return whenRecorded(ns.store, page(c, ns, 'Approve this payment method?', <ApprovalForm facts={facts} action={pagePath(c)} />));
    // Decided: the outcome; never waited (processing, paused, ...): said so, 409.
    return whenRecorded(
      ns.store,
      page(c, ns, 'Approval', <ApprovalOutcomePage facts={facts} back={consoleApprovals(c)} />, facts.token.approval_outcome ? 200 : 409),
    );
  });

  routes.post(`${APPROVAL_PATH}:token_id`, async function decideOnPage(c) {
    const found = findToken(c);
    if ('problem' in found) return found.problem;
    const { ns, facts } = found;
    const form = await formOf(c);
    const decision = form.decision;
    if (typeof decision !== 'string' || !(DECISIONS as readonly string[]).includes(decision)) {
      const message = `The form's decision must be one of ${DECISIONS.join(', ')}; got ${typeof decision === 'string' ? `'${decision.slice(0, 40)}'` : 'none'}. Nothing changed.`;
      return page(c, ns, 'Bad request', <HostedProblem title="Bad request" message={message} />, 400);
    }
    // A second post of the same page (a replay, a double click) finds the token moved on; a stale tab finds it changed: nothing changes, and the page says so.
    if (notWaiting(facts.token) !== null) {
      const outcome = facts.token.approval_outcome;
      const why = outcome ? `This post changed nothing: the approval was already ${outcome} at ${facts.token.updated_at}.` : 'This post changed nothing.';
      return page(c, ns, 'Approval', <ApprovalOutcomePage facts={facts} note={why} back={consoleApprovals(c)} />, 409);
    }
    if (form.version !== facts.token.updated_at) {
      const why = 'This post changed nothing: the token changed since this page was made. Decide again on the page as it is now.';
      return page(c, ns, 'Approve this payment method?', <ApprovalForm facts={facts} action={pagePath(c)} note={why} />, 409);
    }
    const token = decide(ns, facts.token.id, decision as Decision);
    // The buyer is sent on once the decision is recorded (a data file's change log, a shared sandbox's Redis), as an API answer is.
    return whenRecorded(ns.store, c.body(null, 303, { ...HEADERS, location: redirectAfter(token) ?? pagePath(c) }));
  });

  routes.get(`${COMPLETION_PATH}:transaction_id/complete`, function showCompletionPage(c) {
    const call = callOf(c);
    const id = c.req.param('transaction_id').toLowerCase();
    const transaction = call.ns.admitted ? call.ns.store.collections.transactions.get(id) : undefined;
    if (!transaction) {
      const message = `No transaction has id ${id.slice(0, 80)} in namespace ${call.namespaceName}. A default_completion_url in a namespace starts with /ns/{name}/.`;
      return page(c, call.ns, 'Not found', <HostedProblem title="Transaction not found" message={message} />, 404);
    }
    return page(c, call.ns, 'Payment', <CompletionPage transaction={transaction} />);
  });
  return routes;
}

/** The token of the address with what its page shows, or the 404 page. */
function findToken(c: Context<SandboxEnv>): { ns: Namespace; facts: ApprovalFacts } | { problem: Response } {
  const call = callOf(c);
  const ns = call.ns;
  const id = c.req.param('token_id') ?? '';
  // A namespace never created has no token, and opening a page must not create it.
  if (ns.admitted) catchUpApprovals(ns); // a decision planned on the namespace clock happens first
  const db = ns.store.collections;
  const token = ns.admitted ? db.payment_service_tokens.get(id.toLowerCase()) : undefined;
  if (!token) {
    const message = `No payment service token has id ${id.slice(0, 80)} in namespace ${call.namespaceName}. Open the approval_url exactly as the API gave it: in a namespace it starts with /ns/{name}/. Nothing changed.`;
    return { problem: page(c, ns, 'Not found', <HostedProblem title="Payment service token not found" message={message} />, 404) };
  }
  const merchant = db.merchant_accounts.get(token.merchant_account_id);
  const service = db.payment_services.get(token.payment_service_id);
  const facts: ApprovalFacts = {
    token,
    merchantAccount: merchant ? `${merchant.display_name} (${merchant.id})` : token.merchant_account_id,
    paymentService: service ? `${service.display_name} (${service.payment_service_definition_id})` : token.payment_service_id,
    method: db.payment_methods.get(token.payment_method_id),
  };
  return { ns, facts };
}

/** The form's fields (urlencoded or multipart); none when the body is something else. */
async function formOf(c: Context<SandboxEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data')) return {};
  try {
    return (await c.req.parseBody()) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The page's own address as the client wrote it (with its /ns/{name} prefix), for the form and the redirect back. */
function pagePath(c: Context<SandboxEnv>): string {
  return new URL(c.req.url).pathname;
}

/** The console's page of tokens waiting for the buyer, in the page's namespace: where a tester goes back to. */
function consoleApprovals(c: Context<SandboxEnv>): string {
  const name = callOf(c).namespaceName;
  return `${name === 'default' ? '' : `/ns/${name}`}/_sandbox/console/approvals`;
}

function page(c: Context<SandboxEnv>, ns: Namespace, title: string, content: Child, status: 200 | 400 | 404 | 409 = 200): Response {
  const call = callOf(c);
  const base = call.namespaceName === 'default' ? '' : `/ns/${call.namespaceName}`;
  const html = HostedShell({ title, base, namespace: ns.name, children: content });
  return c.html(`<!doctype html>${html}`, status, HEADERS);
}
