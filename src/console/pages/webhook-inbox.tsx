// The Webhooks page's inbox (GET /_sandbox/webhooks/inbox): the notifications the namespace's own
// receiver got, newest first, each with its headers, its body, its signature checked with the
// subscription's secret, and links to its delivery and to the record its event is about. Drawn
// as cards, not a table, so it reads on a phone; a part of its own, read again every 2 seconds.
import type { Child } from 'hono/jsx';
import type { InboxNotification } from '../../webhooks/inbox.js';
import { consolePath, controlPath, controlRead } from '../read.js';
import type { ConsoleView } from '../types.js';
import { ApiButton, FollowBox, Instant, JsonBlock, Note } from '../ui.js';

const SHOWN = 20;

/** A notification as GET /_sandbox/webhooks/inbox shows it. */
type Notification = Omit<InboxNotification, 'body'> & {
  event: unknown;
  record: { collection: string; id: string } | null;
  signature: { valid: boolean; secret: 'current' | 'previous' | null };
};

interface Inbox {
  url: string;
  notifications: Notification[];
  kept: number;
  dropped: number;
  limits: { max_notifications: number; max_bytes: number };
}

export async function inboxPart(view: ConsoleView): Promise<Child> {
  const inbox: Inbox = await controlRead(view, 'readWebhookInbox', { query: { limit: SHOWN } });
  return <InboxList view={view} inbox={inbox} />;
}

function InboxList(props: { view: ConsoleView; inbox: Inbox }) {
  const { view, inbox } = props;
  const count = `${inbox.kept} ${inbox.kept === 1 ? 'notification' : 'notifications'} received${inbox.kept > inbox.notifications.length ? `; the newest ${inbox.notifications.length} shown` : ''}`;
  return (
    <>
      <p id="inbox-count">
        {count}.
        {inbox.dropped ? (
          <strong class="warning">{` ${inbox.dropped} older ones were dropped: the inbox keeps ${inbox.limits.max_notifications.toLocaleString('en')} notifications and ${inbox.limits.max_bytes / 1024 / 1024} MiB.`}</strong>
        ) : null}
      </p>
      {inbox.notifications.length ? (
        <ol class="cards" id="inbox-list" aria-label="Notifications received, newest first">
          {inbox.notifications.map((n) => (
            <InboxCard view={view} n={n} />
          ))}
        </ol>
      ) : (
        <Note>
          Nothing received yet: subscribe <code>{inbox.url}</code> above, then change something the API announces (a PUT /buyers/{'{id}'}) or trigger an event.
        </Note>
      )}
    </>
  );
}

function InboxCard(props: { view: ConsoleView; n: Notification }) {
  const { view, n } = props;
  const signature = n.signature.valid
    ? `signature valid (${n.signature.secret} secret)`
    : 'signature does not match the subscription’s secret (rotated since, or the subscription is gone)';
  return (
    <li class="card" data-notification={n.id}>
      <h3 id={`notification-${n.id}`}>
        <code>{n.event_name}</code> <span class={`badge status-${Math.floor(n.status_code / 100)}xx`}>{n.status_code}</span>
      </h3>
      <p>
        <Instant value={n.received_at} /> · attempt {n.attempt} ·{' '}
        <span class={`badge ${n.signature.valid ? 'status-succeeded' : 'status-failed'}`} data-signature={n.signature.valid ? 'valid' : 'invalid'}>
          {signature}
        </span>
      </p>
      <p class="links">
        <a href={consolePath(view, `/webhooks?delivery=${encodeURIComponent(n.delivery_id)}`)}>Its delivery</a>
        {n.record ? (
          <>
            {' · '}
            <a href={consolePath(view, `/records?${new URLSearchParams({ collection: n.record.collection, id: n.record.id })}`)}>
              {`The event's record: ${n.record.collection} ${n.record.id}`}
            </a>
          </>
        ) : null}
      </p>
      <details>
        <summary>Headers and body</summary>
        <dl class="facts">
          {Object.entries(n.headers).map(([name, value]) => (
            <>
              <dt>{name}</dt>
              <dd>
                <code class="wrap">{value}</code>
              </dd>
            </>
          ))}
        </dl>
        <JsonBlock value={n.event} label={`The body of notification ${n.id}`} />
      </details>
    </li>
  );
}

/** The inbox's section: its URL to subscribe, the list, and a button that empties it. */
export function InboxSection(props: { view: ConsoleView; url: string; list: Child }) {
  const { view } = props;
  return (
    <section aria-labelledby="inbox-title" class="panel">
      <h2 id="inbox-title">Inbox</h2>
      <p class="hint">
        No receiver of your own? Subscribe <code id="inbox-url">{props.url}</code>: notifications to it arrive here, signed, retried and recorded like any
        delivery, without leaving the sandbox (add <code>?status=503</code> to the URL to see retries).
      </p>
      <div class="toolbar">
        <FollowBox id="inbox-follow" />
        <ApiButton method="DELETE" path={controlPath(view, '/webhooks/inbox')} done="Inbox emptied." id="inbox-clear">
          Empty the inbox
        </ApiButton>
      </div>
      <div id="inbox" data-part={consolePath(view, '/parts/webhooks/inbox')}>
        {props.list}
      </div>
    </section>
  );
}
