// Control routes of the webhook inbox (webhooks/inbox.ts): read what the namespace's inbox received,
// each notification with its signature checked against its subscription's secret, and empty it.
// The console's inbox and `payments-sandbox listen` read through readWebhookInbox.
import type { WebhookSubscriptionRecord } from '../store/records.js';
import { INBOX, INBOX_MAX_BYTES, INBOX_MAX_NOTIFICATIONS, INBOX_URL, type InboxNotification, type WebhookInbox } from '../webhooks/inbox.js';
import { signatureOf } from '../webhooks/signing.js';
import type { AdminContext, AdminHandlerMap } from './types.js';

export const webhookInboxHandlers: AdminHandlerMap = {
  readWebhookInbox(ctx) {
    const inbox = ctx.ns.part(INBOX);
    const limit: number = ctx.query.limit ?? 100;
    const after: number | undefined = ctx.query.after;
    const list = after === undefined ? inbox.newest(limit) : inbox.after(after, limit);
    return { body: inboxView(ctx, inbox, list) };
  },

  clearWebhookInbox(ctx) {
    const inbox = ctx.ns.part(INBOX);
    inbox.clear();
    return { body: inboxView(ctx, inbox, []) };
  },
};

function inboxView(ctx: AdminContext, inbox: WebhookInbox, list: InboxNotification[]) {
  return {
    url: INBOX_URL,
    notifications: list.map((n) => notificationView(ctx, n)),
    kept: inbox.kept,
    bytes: inbox.keptBytes,
    dropped: inbox.dropped,
    last_id: inbox.lastId,
    limits: { max_notifications: INBOX_MAX_NOTIFICATIONS, max_bytes: INBOX_MAX_BYTES },
  };
}

function notificationView(ctx: AdminContext, n: InboxNotification) {
  let event: unknown = null;
  try {
    event = JSON.parse(n.body);
  } catch {
    // Every body the sandbox sends is JSON; kept as text if one were not.
  }
  const collection = ctx.deps.webhooks.catalog.get(n.event_name)?.collection;
  const id = (event as { target?: { id?: unknown } } | null)?.target?.id;
  const record = collection && typeof id === 'string' ? { collection, id } : null;
  return { ...n, event, record, signature: signatureCheck(subscriptionOf(ctx, n, event), n) };
}

function subscriptionOf(ctx: AdminContext, n: InboxNotification, event: unknown): WebhookSubscriptionRecord | undefined {
  const merchantAccountId = (event as { merchant_account_id?: string } | null)?.merchant_account_id ?? 'default';
  const forward = ctx.deps.webhooks.forwardSubscription(merchantAccountId);
  return ctx.ns.store.collections.webhook_subscriptions.get(n.subscription_id) ?? (forward?.id === n.subscription_id ? forward : undefined);
}

/** Checks x-service-signature as a receiver would, with the subscription's secrets as they are now. */
function signatureCheck(subscription: WebhookSubscriptionRecord | undefined, n: InboxNotification) {
  const sent = (n.headers['x-service-signature'] ?? '').split(',');
  const timestamp = n.headers['x-service-timestamp'] ?? '';
  const matches = (secret: string | null | undefined) => !!secret && sent.includes(signatureOf(secret, timestamp, n.body));
  if (matches(subscription?.secret)) return { valid: true, secret: 'current' as const };
  if (matches(subscription?.previous_secret)) return { valid: true, secret: 'previous' as const };
  return { valid: false, secret: null };
}
