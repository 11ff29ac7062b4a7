// Waiting for the buyer: the namespace's payment service tokens in buyer_approval_required, each
// with a link to its hosted approval page and the page's three decisions (through POST
// /_sandbox/payment-service-tokens/{id}/approval), and the latest decisions.
import type { Child } from 'hono/jsx';
import { PageHeading } from '../layout.js';
import { controlPath, controlRead } from '../read.js';
import type { ConsolePage, ConsoleView } from '../types.js';
import { ApiButton, Instant, Note, TableHead } from '../ui.js';

interface StoredToken {
  id: string;
  merchant_account_id: string;
  payment_method_id: string;
  payment_service_id: string;
  status: string;
  updated_at: string;
  approval_url: string | null;
  approval_outcome?: string | null;
  approval_plan?: { decision: string; due_at: string } | null;
}

/** Every token as stored and as the API shows it (its approval_url at this request's address), in one read each. */
async function tokens(view: ConsoleView): Promise<Array<{ stored: StoredToken; shownUrl: string | null }>> {
  const query = { limit: 1000, offset: 0 };
  const stored = (await controlRead(view, 'listRecords', { params: { collection: 'payment_service_tokens' }, query: { ...query, shape: 'stored' } })).items;
  const shown = (await controlRead(view, 'listRecords', { params: { collection: 'payment_service_tokens' }, query })).items;
  const urls = new Map<string, string | null>(shown.map((t: { id: string; approval_url: string | null }) => [t.id, t.approval_url]));
  return stored.map((t: StoredToken) => ({ stored: t, shownUrl: urls.get(t.id) ?? null }));
}

const DECISIONS: Array<[decision: string, label: string]> = [
  ['approve', 'Approve'],
  ['decline', 'Decline'],
  ['cancel', 'Cancel'],
];

const WAITING_COLUMNS = ['Token', 'Merchant account', 'Waiting since', 'Planned', 'Approval page', 'Decide for the buyer'];

/** A titled panel with a table of rows (tbody #{id}-rows), or a note when there are none. */
function TablePanel(props: { id: string; title: string; empty: string; columns: string[]; children: Child[] }) {
  return (
    <section aria-labelledby={`${props.id}-title`} class="panel">
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children.length === 0 ? (
        <Note>{props.empty}</Note>
      ) : (
        <div class="table-wrap">
          <table class="stack">
            <TableHead columns={props.columns} />
            <tbody id={`${props.id}-rows`}>{props.children}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export const approvalsPage: ConsolePage = {
  slug: 'approvals',
  title: 'Waiting for the buyer',
  summary: 'Payment service tokens waiting for the buyer: open their approval page, or decide for the buyer.',

  async render(view) {
    const all = await tokens(view);
    const waiting = all.filter((t) => t.stored.status === 'buyer_approval_required');
    const decided = all
      .filter((t) => t.stored.approval_outcome)
      .sort((a, b) => b.stored.updated_at.localeCompare(a.stored.updated_at))
      .slice(0, 10);
    return (
      <>
        <PageHeading page={approvalsPage} />
        <TablePanel id="waiting" title={`Waiting (${waiting.length})`} empty="No token waits for the buyer in this namespace." columns={WAITING_COLUMNS}>
          {waiting.map(({ stored: t, shownUrl }) => (
            <tr>
              <td class="mono">{t.id}</td>
              <td>{t.merchant_account_id}</td>
              <td>
                <Instant value={t.updated_at} />
              </td>
              <td>{t.approval_plan ? `${t.approval_plan.decision} at ${t.approval_plan.due_at}` : <span class="muted">none</span>}</td>
              <td>{shownUrl ? <a href={shownUrl}>Open the approval page of {t.id.slice(0, 8)}</a> : <span class="muted">elsewhere</span>}</td>
              <td class="actions">
                {DECISIONS.map(([decision, label]) => (
                  <ApiButton
                    method="POST"
                    path={controlPath(view, `/payment-service-tokens/${t.id}/approval`)}
                    body={{ decision }}
                    done={`Token ${t.id.slice(0, 8)}: ${label.toLowerCase()} done.`}
                    label={`${label} token ${t.id}`}
                  >
                    {label}
                  </ApiButton>
                ))}
              </td>
            </tr>
          ))}
        </TablePanel>
        <TablePanel id="decided" title="Latest decisions" empty="No decision yet." columns={['Token', 'Outcome', 'Status', 'When']}>
          {decided.map(({ stored: t }) => (
            <tr>
              <td class="mono">{t.id}</td>
              <td>{t.approval_outcome}</td>
              <td>{t.status}</td>
              <td>
                <Instant value={t.updated_at} />
              </td>
            </tr>
          ))}
        </TablePanel>
      </>
    );
  },
};
