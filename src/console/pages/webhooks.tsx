// Webhooks: the namespace's subscriptions (webhook_subscriptions records: created, activated,
// deactivated and deleted through the records API, the secret rotated through POST
// /_sandbox/webhooks/subscriptions/{id}/rotate-secret), the deliveries with their attempts and a
// retry (webhook-deliveries.tsx), an event triggered on demand (POST /_sandbox/events), and the
// delivery behaviour (GET/PUT/DELETE /_sandbox/webhooks/behaviour: delay, duplicate, reorder), and
// the namespace's inbox (webhook-inbox.tsx).
import type { Child } from 'hono/jsx';
import { PageHeading } from '../layout.js';
import { consolePath, controlPath, controlRead, merchantAccountIds } from '../read.js';
import type { ConsolePage, ConsoleView } from '../types.js';
import { ApiButton, ApiForm, Field, FollowBox, Instant, Note, relative, Secret, Select, TableHead } from '../ui.js';
import { DELIVERY_OUTCOMES, deliveriesPart } from './webhook-deliveries.js';
import { InboxSection, inboxPart } from './webhook-inbox.js';

interface Subscription {
  id: string;
  merchant_account_id: string;
  url: string;
  active: boolean;
  secret: string;
  previous_secret?: string | null;
  previous_secret_expires_at?: string | null;
  created_at: string;
}

interface Overview {
  forward: { url: string; secret: string } | null;
  behaviour: { delay_ms: number; duplicate: boolean; reorder: boolean };
  pending: number;
  dropped: number;
  events: string[];
  inbox_url: string;
  limits: { max_attempts: number; backoff_ms: number[]; timeout_ms: number };
}

/** What the page's sections are given: read once for all of them. */
interface WebhookData {
  overview: Overview;
  subscriptions: Subscription[];
  merchantAccounts: string[];
}

const options = (values: string[]): Array<[string, string]> => values.map((v) => [v, v]);

function SubscriptionsSection(props: { view: ConsoleView; data: WebhookData }) {
  const { view, data } = props;
  const { forward } = data.overview;
  const records = controlPath(view, '/records/webhook_subscriptions');
  return (
    <section aria-labelledby="subscriptions-title" class="panel">
      <h2 id="subscriptions-title">Subscriptions</h2>
      {forward ? (
        <p id="forward">
          Every event of every merchant account also goes to <code>{forward.url}</code> (<code>--forward-webhooks-to</code>), signed with{' '}
          <Secret id="forward-secret" value={forward.secret} what="the forward target's signing secret" />.
        </p>
      ) : null}
      {data.subscriptions.length ? (
        <div class="table-wrap">
          <table id="subscriptions-table" class="stack">
            <caption>Where this namespace's notifications go; inactive ones receive nothing</caption>
            <TableHead columns={['URL', 'Merchant account', 'State', 'Signing secret', 'Actions']} />
            <tbody>
              {data.subscriptions.map((s) => {
                const path = `${records}/${encodeURIComponent(s.id)}`;
                return (
                  <tr data-subscription={s.id}>
                    <th scope="row" class="url">
                      {s.url}
                      <br />
                      <span class="muted">{s.id}</span>
                    </th>
                    <td>{s.merchant_account_id}</td>
                    <td>
                      <span class={`badge ${s.active ? 'status-succeeded' : 'status-cancelled'}`}>{s.active ? 'active' : 'inactive'}</span>
                    </td>
                    <td>
                      <Secret id={`secret-${s.id}`} value={s.secret} what={`the signing secret of the subscription to ${s.url}`} />
                      {s.previous_secret ? (
                        <span class="muted">
                          {' '}
                          (the previous one signs too
                          {s.previous_secret_expires_at ? (
                            <>
                              {' '}
                              until <Instant value={s.previous_secret_expires_at} />
                            </>
                          ) : null}
                          )
                        </span>
                      ) : null}
                    </td>
                    <td class="actions">
                      <ApiButton
                        method="PATCH"
                        path={path}
                        body={{ active: !s.active }}
                        done={`Subscription to ${s.url} ${s.active ? 'deactivated: its pending deliveries are cancelled' : 'activated'}.`}
                        label={`${s.active ? 'Deactivate' : 'Activate'} the subscription to ${s.url}`}
                      >
                        {s.active ? 'Deactivate' : 'Activate'}
                      </ApiButton>
                      <ApiButton
                        method="POST"
                        path={controlPath(view, `/webhooks/subscriptions/${encodeURIComponent(s.id)}/rotate-secret`)}
                        body={{}}
                        done={`New secret for ${s.url}; the previous one signs too for a day.`}
                        label={`Rotate secret of the subscription to ${s.url}`}
                      >
                        Rotate secret
                      </ApiButton>
                      <ApiButton method="DELETE" path={path} done={`Subscription to ${s.url} deleted.`} label={`Delete the subscription to ${s.url}`}>
                        Delete
                      </ApiButton>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : (
        <Note>No subscription in this namespace.</Note>
      )}
      <h3 id="subscribe-title">Subscribe a URL</h3>
      <ApiForm method="POST" path={records} done="Subscribed {url}." label="Subscribe a URL" id="subscribe-form" class="api-form inline">
        <Field
          name="url"
          id="subscribe-url"
          label="URL"
          value={data.overview.inbox_url}
          required
          hint="http or https; notifications are POSTed there. The one given is this namespace's inbox (below), which needs no server."
        />
        <Select name="merchant_account_id" id="subscribe-merchant" label="Merchant account" options={options(data.merchantAccounts)} value="default" />
        <button type="submit">Subscribe</button>
      </ApiForm>
    </section>
  );
}

function DeliveriesSection(props: { view: ConsoleView; data: WebhookData; deliveries: Child }) {
  const { view, data } = props;
  const q = (name: string) => view.query.get(name) ?? '';
  return (
    <section aria-labelledby="deliveries-title" class="panel">
      <h2 id="deliveries-title">Deliveries</h2>
      <form method="get" class="filters" aria-label="Filter deliveries">
        <Select
          name="subscription_id"
          id="deliveries-subscription"
          label="Subscription"
          value={q('subscription_id')}
          options={[['', 'any'], ...data.subscriptions.map((s): [string, string] => [s.id, s.url])]}
        />
        <Select name="event_name" id="deliveries-event" label="Event" value={q('event_name')} options={[['', 'any'], ...options(data.overview.events)]} />
        <Select name="outcome" id="deliveries-outcome" label="Status" value={q('outcome')} options={[['', 'any'], ...options(DELIVERY_OUTCOMES)]} />
        <button type="submit">Filter</button>
      </form>
      <div class="toolbar">
        <FollowBox id="deliveries-follow" />
        <button type="button" id="deliveries-refresh">
          Refresh now
        </button>
      </div>
      <div id="deliveries" data-part={consolePath(view, `/parts/webhooks/deliveries${view.query.size ? `?${view.query}` : ''}`)}>
        {props.deliveries}
      </div>
    </section>
  );
}

function TriggerSection(props: { view: ConsoleView; data: WebhookData }) {
  const { view, data } = props;
  return (
    <section aria-labelledby="trigger-title" class="panel">
      <h2 id="trigger-title">Trigger an event</h2>
      <p class="hint">
        Any event of <code>openapi.json</code>'s webhooks, about a record of the merchant account (<code>POST /_sandbox/events</code>).
      </p>
      <ApiForm
        method="POST"
        path={controlPath(view, '/events')}
        done="Event {event.name} sent: {deliveries.length} deliveries."
        label="Trigger an event"
        id="trigger-form"
      >
        <Select name="name" id="trigger-event" label="Event" options={options(data.overview.events)} value="buyer.updated" />
        <Select name="merchant_account_id" id="trigger-merchant" label="Merchant account" options={options(data.merchantAccounts)} value="default" />
        <Field name="target_id" id="trigger-target" label="Record id" hint="Empty: the first record of its kind in the merchant account." />
        <button type="submit">Trigger</button>
      </ApiForm>
    </section>
  );
}

function BehaviourSection(props: { view: ConsoleView; data: WebhookData }) {
  const { view } = props;
  const { behaviour, limits } = props.data.overview;
  const path = controlPath(view, '/webhooks/behaviour');
  return (
    <section aria-labelledby="behaviour-title" class="panel">
      <h2 id="behaviour-title">Delivery behaviour</h2>
      <p class="hint">
        A failed attempt is retried after {limits.backoff_ms.map((ms) => relative(0, ms).replace(/^in /, '')).join(', ')} of namespace time,{' '}
        {limits.max_attempts} attempts in all; an attempt times out after {limits.timeout_ms / 1000} s.
      </p>
      <ApiForm method="PUT" path={path} done="Delivery behaviour saved." label="Delivery behaviour" id="behaviour-form">
        <Field
          name="delay_ms"
          id="behaviour-delay"
          label="Delay in milliseconds"
          type="number"
          dataType="number"
          value={String(behaviour.delay_ms)}
          hint="Every new delivery is due this much later (namespace clock)."
        />
        <div class="field checkbox">
          <input type="checkbox" id="behaviour-duplicate" name="duplicate" checked={behaviour.duplicate} />
          <label for="behaviour-duplicate">Deliver every event twice</label>
        </div>
        <div class="field checkbox">
          <input type="checkbox" id="behaviour-reorder" name="reorder" checked={behaviour.reorder} />
          <label for="behaviour-reorder">Send those due together newest first</label>
        </div>
        <div class="actions">
          <button type="submit">Save behaviour</button>
          <ApiButton method="DELETE" path={path} done="Deliveries back to normal.">
            Back to normal
          </ApiButton>
        </div>
      </ApiForm>
    </section>
  );
}

export const webhooksPage: ConsolePage = {
  slug: 'webhooks',
  title: 'Webhooks',
  summary: 'Where notifications go, what was delivered with every attempt, and events on demand.',

  async render(view) {
    const overview: Overview = await controlRead(view, 'getWebhooks');
    const subscriptions: Subscription[] = (
      await controlRead(view, 'listRecords', { params: { collection: 'webhook_subscriptions' }, query: { limit: 1000, offset: 0, shape: 'stored' } })
    ).items;
    const merchantAccounts = await merchantAccountIds(view);
    const data: WebhookData = { overview, subscriptions, merchantAccounts };
    return (
      <>
        <PageHeading page={webhooksPage} />
        <SubscriptionsSection view={view} data={data} />
        <InboxSection view={view} url={overview.inbox_url} list={await inboxPart(view)} />
        <DeliveriesSection view={view} data={data} deliveries={await deliveriesPart(view)} />
        <div class="columns">
          <TriggerSection view={view} data={data} />
          <BehaviourSection view={view} data={data} />
        </div>
      </>
    );
  },

  fragments: {
    deliveries: deliveriesPart,
    inbox: inboxPart,
  },
};
