// The Webhooks page's deliveries (GET /_sandbox/webhooks/deliveries with the page's filters), newest
// first, and the one chosen with its attempts (time on both clocks, status code, duration, error,
// the beginning of the answer) and a retry (POST /_sandbox/webhooks/deliveries/{id}/retry). It is
// a part of its own, which the page's script reads again every 2 seconds while it is shown.
import type { Child } from 'hono/jsx';
import { ApiError } from '../../errors/api-error.js';
import type { WebhookAttempt, WebhookDeliveryRecord } from '../../store/records.js';
import { consolePath, controlPath, controlRead } from '../read.js';
import type { ConsoleView } from '../types.js';
import { ApiButton, Instant, instantText, JsonBlock, Note, TableHead } from '../ui.js';

export const DELIVERY_OUTCOMES = ['pending', 'succeeded', 'failed', 'cancelled'];
const PAGE_SIZE = 50;

/** A delivery as the control API shows it (deliveryView): the record without its body, the event parsed, where it goes now. */
type Delivery = Omit<WebhookDeliveryRecord, 'body'> & { event: unknown; url: string | null };

interface DeliveryList {
  items: Delivery[];
  total: number;
  pending: number;
  dropped: number;
}

/** The deliveries query of the page's address: its filters (only the values the control API takes), limit and offset. */
export function deliveryQuery(view: ConsoleView): Record<string, string | number> {
  const query: Record<string, string | number> = { limit: PAGE_SIZE, offset: Math.max(0, Number.parseInt(view.query.get('offset') ?? '0', 10) || 0) };
  for (const name of ['subscription_id', 'event_name']) {
    const value = view.query.get(name);
    if (value) query[name] = value.slice(0, 100);
  }
  const outcome = view.query.get('outcome');
  if (outcome && DELIVERY_OUTCOMES.includes(outcome)) query.outcome = outcome;
  return query;
}

/** The page's address with `changes` made to its query (null removes a parameter). */
function pageLink(view: ConsoleView, changes: Record<string, string | null>): string {
  const query = new URLSearchParams(view.query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) query.delete(name);
    else query.set(name, value);
  }
  const search = query.toString();
  return consolePath(view, `/webhooks${search ? `?${search}` : ''}`);
}

/** The deliveries part: read, then drawn (hono/jsx components are drawn synchronously here). */
export async function deliveriesPart(view: ConsoleView): Promise<Child> {
  const query = deliveryQuery(view);
  const list = await controlRead(view, 'listWebhookDeliveries', { query });
  const chosenId = view.query.get('delivery');
  const chosen = chosenId ? ((list.items as Delivery[]).find((d) => d.id === chosenId) ?? (await deliveryNamed(view, chosenId))) : null;
  return <Deliveries view={view} list={list} offset={query.offset as number} chosenId={chosenId} chosen={chosen} />;
}

function Deliveries(props: { view: ConsoleView; list: DeliveryList; offset: number; chosenId: string | null; chosen: Delivery | null }) {
  const { view, list, offset, chosenId, chosen } = props;
  const items = list.items;
  return (
    <>
      <p id="deliveries-count">
        {list.total === 0
          ? 'No delivery matches.'
          : `${list.total} ${list.total === 1 ? 'delivery' : 'deliveries'}${list.total > items.length ? `; ${offset + 1} to ${offset + items.length} shown, newest first` : ', newest first'}`}
        ; {list.pending} waiting or in flight{list.dropped ? `, ${list.dropped} refused (queue full)` : ''}.
      </p>
      <div>
        {items.length ? (
          <div class="table-wrap">
            <table id="deliveries-table" class="stack">
              <caption>Webhook deliveries, newest first</caption>
              <TableHead columns={['Created', 'Event', 'To', 'Status', 'Attempts', 'Next attempt']} />
              <tbody>
                {items.map((d) => (
                  <tr aria-selected={d.id === chosenId ? 'true' : undefined} data-delivery={d.id}>
                    <th scope="row">
                      <a href={pageLink(view, { delivery: d.id })} aria-label={`${instantText(d.created_at)}: open the delivery of ${d.event_name}`}>
                        <Instant value={d.created_at} />
                      </a>
                    </th>
                    <td>
                      <code>{d.event_name}</code>
                    </td>
                    <td class="url">{d.url ?? <span class="muted">{`subscription ${d.subscription_id} (gone)`}</span>}</td>
                    <td>
                      <span class={`badge status-${d.status}`}>{d.status}</span>
                    </td>
                    <td class="num">{d.attempts.length ? `${d.attempts.length}, last: ${attemptText(d.attempts[d.attempts.length - 1])}` : '0'}</td>
                    <td>
                      <Instant value={d.next_attempt_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <Note>No webhook delivery yet: subscribe a URL above, then change something the API announces (a PUT /buyers/{'{id}'}) or trigger an event.</Note>
        )}
        <section id="delivery-detail" class="panel" aria-label="Delivery detail">
          {chosen ? (
            <DeliveryDetail view={view} delivery={chosen} />
          ) : chosenId ? (
            <Note>{`There is no delivery ${chosenId} in this namespace (any more).`}</Note>
          ) : (
            <Note>Open a delivery to see its attempts and send it again.</Note>
          )}
        </section>
      </div>
      <p class="pager">
        {offset > 0 ? <a href={pageLink(view, { offset: String(Math.max(0, offset - PAGE_SIZE)), delivery: null })}>Newer {PAGE_SIZE}</a> : null}{' '}
        {offset + items.length < list.total ? <a href={pageLink(view, { offset: String(offset + PAGE_SIZE), delivery: null })}>Older {PAGE_SIZE}</a> : null}
      </p>
    </>
  );
}

/** One delivery, or null when the namespace has none of that id (the control API's 404). */
async function deliveryNamed(view: ConsoleView, id: string): Promise<Delivery | null> {
  try {
    return await controlRead(view, 'getWebhookDelivery', { params: { delivery_id: id } });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** An attempt's outcome in a word: its status code, or "no answer" (refused, timed out, unreachable: the detail says which). */
function attemptText(attempt: WebhookAttempt): string {
  return attempt.status_code !== null ? String(attempt.status_code) : 'no answer';
}

function DeliveryDetail(props: { view: ConsoleView; delivery: Delivery }) {
  const { view, delivery: d } = props;
  return (
    <article aria-labelledby="delivery-title">
      <h3 id="delivery-title" tabindex={-1}>
        <code>{d.event_name}</code> <span class={`badge status-${d.status}`}>{d.status}</span>
      </h3>
      <dl class="facts">
        <dt>To</dt>
        <dd>{d.url ?? `subscription ${d.subscription_id}, which no longer exists`}</dd>
        <dt>Merchant account</dt>
        <dd>{d.merchant_account_id}</dd>
        <dt>Delivery</dt>
        <dd>
          <code>{d.id}</code>
        </dd>
        <dt>Event</dt>
        <dd>
          <code>{d.event_id}</code>
        </dd>
        <dt>Created</dt>
        <dd>
          <Instant value={d.created_at} />
        </dd>
        <dt>Next attempt</dt>
        <dd>
          <Instant value={d.next_attempt_at} />
        </dd>
        <dt>Error</dt>
        <dd>{d.error ?? 'none'}</dd>
      </dl>
      <ApiButton
        method="POST"
        path={controlPath(view, `/webhooks/deliveries/${encodeURIComponent(d.id)}/retry`)}
        done="Sent again: its attempt shows here once the receiver has answered."
        id="retry-delivery"
      >
        Send again
      </ApiButton>
      <h4 id="attempts-title">Attempts</h4>
      {d.attempts.length ? (
        <div class="table-wrap">
          <table id="attempts-table" class="stack" aria-labelledby="attempts-title">
            <TableHead columns={['#', 'Started (namespace clock)', 'Wall clock', 'Status', 'Duration', 'Error', 'Answer (first KiB)']} />
            <tbody>
              {d.attempts.map((a) => (
                <tr>
                  <td class="num">
                    {a.number}
                    {a.manual ? <span class="muted"> (sent again)</span> : null}
                  </td>
                  <td>
                    <Instant value={a.at} />
                  </td>
                  <td>
                    <Instant value={a.wall_clock_at} />
                  </td>
                  <td>
                    {a.status_code === null ? (
                      <span class="muted">none</span>
                    ) : (
                      <span class={`badge status-${Math.floor(a.status_code / 100)}xx`}>{a.status_code}</span>
                    )}
                  </td>
                  <td class="num">{a.duration_ms} ms</td>
                  <td>{a.error ?? ''}</td>
                  <td>{a.response_excerpt === null ? <span class="muted">none</span> : <code class="excerpt">{a.response_excerpt}</code>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Note>No attempt yet: the first is due at the next attempt time above.</Note>
      )}
      <details>
        <summary>The notification's body</summary>
        <JsonBlock value={d.event} label="The notification's body" />
      </details>
    </article>
  );
}
