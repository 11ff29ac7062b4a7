// The HTML of the sandbox's hosted pages, in the console's style (its stylesheet): what a buyer sees
// at a payment service token's approval_url, and at a transaction's default_completion_url. Plain
// HTML forms, no script: they work from any browser, a phone's on the LAN included.
import type { Child } from 'hono/jsx';
import { Instant } from '../console/ui.js';
import type { ApprovalOutcome } from '../resources/payment-methods/approval.js';
import type { PaymentMethodRecord, PaymentServiceTokenRecord, TransactionRecord } from '../store/records.js';

/** The page around every hosted page; `base`: '' or /ns/{name} (the stylesheet is the console's). */
export function HostedShell(props: { title: string; base: string; namespace: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · payments-sandbox`}</title>
        <link rel="stylesheet" href={`${props.base}/_sandbox/console/assets/console.css`} />
        <link rel="icon" href="data:," />
      </head>
      <body class="hosted">
        <header class="top">
          <p class="brand">payments-sandbox: hosted page</p>
          <p class="namespace">
            Namespace <strong>{props.namespace}</strong>
          </p>
        </header>
        <main id="main">{props.children}</main>
      </body>
    </html>
  );
}

/** What the approval page shows of the token and what it is for. */
export interface ApprovalFacts {
  token: PaymentServiceTokenRecord;
  merchantAccount: string;
  paymentService: string;
  method: PaymentMethodRecord | undefined;
}

/** The heading of a decided approval (it read "Approval approved"). */
const OUTCOME_TITLE: Record<ApprovalOutcome, string> = {
  approved: 'Payment method approved',
  declined: 'Payment method declined',
  cancelled: 'Approval cancelled',
};

/** A token's status in words, for a buyer: the raw value follows, broken only at its underscores. */
const STATUS_WORDS: Record<string, string> = {
  buyer_approval_required: 'Waiting for your approval',
  succeeded: 'Stored',
  processing: 'Being processed',
  failed: 'Failed',
};

function StatusText(props: { status: string }) {
  const parts = props.status.split('_');
  return (
    <>
      <strong>{STATUS_WORDS[props.status] ?? props.status.replaceAll('_', ' ')}</strong> (
      <code class="status-code">
        {parts.map((part, i) => (
          <>
            {i > 0 ? (
              <>
                _<wbr />
              </>
            ) : null}
            {part}
          </>
        ))}
      </code>
      )
    </>
  );
}

const OUTCOME_TEXT: Record<ApprovalOutcome, string> = {
  approved: 'The buyer approved this payment method.',
  declined: 'The buyer declined this payment method.',
  cancelled: 'The buyer cancelled: the approval was abandoned.',
};

function methodText(method: PaymentMethodRecord | undefined): string {
  if (!method) return 'unknown (the payment method was deleted)';
  const scheme = method.scheme ?? method.method;
  // A card's label is its last four digits; other methods' labels (an e-mail) are shown as they are.
  if (method.method === 'card' && method.label) return `${scheme} ending in ${method.label}`;
  return method.label ? `${scheme} (${method.label})` : scheme;
}

function Facts(props: { facts: ApprovalFacts }) {
  const { token, merchantAccount, paymentService, method } = props.facts;
  return (
    <dl class="hosted-facts">
      <dt>Merchant account</dt>
      <dd>{merchantAccount}</dd>
      <dt>Payment service</dt>
      <dd>{paymentService}</dd>
      <dt>Payment method</dt>
      <dd>{methodText(method)}</dd>
      <dt>Token</dt>
      <dd class="mono">{token.id}</dd>
      <dt>Status</dt>
      <dd>
        <StatusText status={token.status} /> since <Instant value={token.updated_at} />
      </dd>
    </dl>
  );
}

/** The token waits: the three decisions, as a form posted to the same address. */
export function ApprovalForm(props: { facts: ApprovalFacts; action: string; note?: string }) {
  const { token } = props.facts;
  return (
    <>
      <h1>Approve this payment method?</h1>
      {props.note ? (
        <p role="alert" class="hosted-outcome bad">
          {props.note}
        </p>
      ) : null}
      <p class="summary">The merchant asks to store this payment method at the payment service. Nothing is charged now.</p>
      <Facts facts={props.facts} />
      <form method="post" action={props.action} class="hosted-actions">
        {/* The token's state when the page was made: a replayed or stale post changes nothing. */}
        <input type="hidden" name="version" value={token.updated_at} />
        <button type="submit" name="decision" value="approve" class="primary">
          Approve
        </button>
        <button type="submit" name="decision" value="decline" class="danger">
          Decline
        </button>
        <button type="submit" name="decision" value="cancel">
          Cancel
        </button>
      </form>
    </>
  );
}

/** The token was decided (or never waited): what happened, and no buttons. */
export function ApprovalOutcomePage(props: { facts: ApprovalFacts; note?: string; back: string }) {
  const { token } = props.facts;
  const outcome = token.approval_outcome ?? null;
  return (
    <>
      <h1>{outcome ? OUTCOME_TITLE[outcome] : `Nothing to approve`}</h1>
      <p role="status" class={outcome === 'approved' ? 'hosted-outcome ok' : 'hosted-outcome bad'}>
        {outcome ? OUTCOME_TEXT[outcome] : `This token is ${token.status.replaceAll('_', ' ')}: it does not wait for the buyer.`}
        {props.note ? ` ${props.note}` : ''}
      </p>
      <Facts facts={props.facts} />
      <p>
        The decision is made: you can close this page. <a href={props.back}>Back to the tokens waiting for the buyer</a> (the sandbox console).
      </p>
    </>
  );
}

/** A request the page cannot serve: what is wrong and what to do instead. */
export function HostedProblem(props: { title: string; message: string }) {
  return (
    <>
      <h1>{props.title}</h1>
      <p role="alert" class="hosted-outcome bad">
        {props.message}
      </p>
    </>
  );
}

/** Where a client SDK without its own completion URL ends: the transaction's status. */
export function CompletionPage(props: { transaction: TransactionRecord }) {
  const t = props.transaction;
  const amount = `${(t.amount / 100).toFixed(2)} ${t.currency}`;
  const ok = t.status === 'authorization_succeeded' || t.status === 'capture_succeeded';
  return (
    <>
      <h1>Payment {ok ? 'complete' : 'not complete'}</h1>
      <p role="status" class={ok ? 'hosted-outcome ok' : 'hosted-outcome bad'}>
        The transaction is <strong>{t.status}</strong>.
      </p>
      <dl class="hosted-facts">
        <dt>Transaction</dt>
        <dd class="mono">{t.id}</dd>
        <dt>Merchant account</dt>
        <dd>{t.merchant_account_id}</dd>
        <dt>Amount</dt>
        <dd>{amount}</dd>
        <dt>Updated</dt>
        <dd>
          <Instant value={t.updated_at} />
        </dd>
      </dl>
    </>
  );
}
