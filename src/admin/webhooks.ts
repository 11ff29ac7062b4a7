// Control routes of webhooks: emit an event on demand (POST /_sandbox/events, like stripe trigger),
// see every delivery with its attempts and send one again, steer deliveries (delay, duplicate,
// reorder), rotate a subscription's secret, and an overview. All act on the request's namespace.
import { ApiError } from '../errors/api-error.js';
import type { CollectionName, WebhookDeliveryRecord, WebhookSubscriptionRecord } from '../store/records.js';
import { WEBHOOKS, type WebhookHub } from '../webhooks/hub.js';
import { INBOX_URL } from '../webhooks/inbox.js';
import { BACKOFF_MS, CONCURRENCY, IN_FLIGHT, MAX_ATTEMPTS, MAX_FINISHED, MAX_PENDING } from '../webhooks/limits.js';
import type { AdminContext, AdminHandlerMap } from './types.js';

type AnyRecord = Record<string, any> & { id: string };

/**
 * `status` is `outcome` under the record field's name: unknown query parameters are ignored on the
 * control list routes, and a filter by the field's name must not be.
 */
function statusFilter(outcome: string | undefined, status: string | undefined): string | undefined {
  if (outcome !== undefined && status !== undefined && outcome !== status) {
    throw ApiError.badRequest(`Query parameters outcome (${outcome}) and status (${status}) are the same filter: give one of them.`, [
      { location: 'query', pointer: '/status', type: 'conflicting_filter', message: 'Give outcome or status, not two different statuses.' },
    ]);
  }
  return outcome ?? status;
}

export const webhookHandlers: AdminHandlerMap = {
  triggerEvent(ctx) {
    const hub = hubOf(ctx);
    const name: string = ctx.body.name;
    const merchantAccountId: string = ctx.body.merchant_account_id ?? 'default';
    const kind = ctx.deps.webhooks.catalog.get(name);
    if (!kind) throw unknownEvent(ctx, name);
    const db = ctx.ns.store.collections;
    if (!db.merchant_accounts.get(merchantAccountId)) {
      throw ApiError.notFound(`Merchant account '${merchantAccountId.slice(0, 100)}' does not exist in namespace '${ctx.ns.name}'.`);
    }
    if (ctx.ns.timedChangesMovedBy(kind.collection)) ctx.ns.catchUpTimedChanges(); // targets as the API would show them now
    const target = targetRecord(ctx, kind.collection, merchantAccountId, ctx.body.target_id);
    const { event, deliveries } = hub.emit({ name, merchantAccountId, collection: kind.collection, record: target });
    return { status: 201, body: { event, deliveries: deliveries.map((d) => deliveryView(ctx, d)) } };
  },

  getWebhooks(ctx) {
    const hub = hubOf(ctx);
    const { webhooks } = ctx.deps;
    const forward = webhooks.forward && {
      url: webhooks.forward.url,
      secret: webhooks.forward.secret,
      subscription_ids: Object.fromEntries(
        ctx.ns.store.collections.merchant_accounts.all().map((m) => [m.id, webhooks.forwardSubscription(m.id)?.id as string]),
      ),
    };
    return {
      body: {
        forward,
        behaviour: hub.behaviour,
        pending: hub.queue.pending,
        dropped: hub.dropped,
        events: webhooks.catalog.names(),
        inbox_url: INBOX_URL,
        limits: {
          concurrency: CONCURRENCY,
          pipelining: webhooks.options.pipelining,
          in_flight: IN_FLIGHT,
          max_pending: MAX_PENDING,
          max_finished_kept: MAX_FINISHED,
          max_attempts: MAX_ATTEMPTS,
          backoff_ms: [...BACKOFF_MS],
          timeout_ms: webhooks.options.timeoutMs,
        },
      },
    };
  },

  listWebhookDeliveries(ctx) {
    const hub = hubOf(ctx);
    const { subscription_id: subscriptionId, event_name: eventName, event_id: eventId, limit, offset } = ctx.query;
    const outcome = statusFilter(ctx.query.outcome, ctx.query.status);
    const rows = ctx.ns.store.collections.webhook_deliveries.all();
    const matching: WebhookDeliveryRecord[] = [];
    // Newest first: records are kept in the order they were made.
    for (let i = rows.length - 1; i >= 0; i--) {
      const d = rows[i];
      if (subscriptionId !== undefined && d.subscription_id !== subscriptionId) continue;
      if (eventName !== undefined && d.event_name !== eventName) continue;
      if (eventId !== undefined && d.event_id !== eventId) continue;
      if (outcome !== undefined && d.status !== outcome) continue;
      matching.push(d);
    }
    return {
      body: {
        items: matching.slice(offset, offset + limit).map((d) => deliveryView(ctx, d)),
        total: matching.length,
        limit,
        offset,
        pending: hub.queue.pending,
        dropped: hub.dropped,
      },
    };
  },

  getWebhookDelivery(ctx) {
    hubOf(ctx);
    return { body: deliveryView(ctx, existingDelivery(ctx)) };
  },

  retryWebhookDelivery(ctx) {
    const hub = hubOf(ctx);
    const delivery = existingDelivery(ctx);
    if (!hub.subscriptionFor(delivery)) {
      throw ApiError.badRequest(
        `Delivery ${delivery.id} cannot be sent again: its subscription ${delivery.subscription_id} was deleted or is inactive, so nothing would receive it.`,
        [
          {
            location: 'path',
            pointer: '/delivery_id',
            type: 'subscription_gone',
            message: 'Activate the subscription, or retry a delivery of a receiving one.',
          },
        ],
      );
    }
    return { status: 202, body: deliveryView(ctx, hub.sendAgain(delivery)) };
  },

  getWebhookBehaviour(ctx) {
    return { body: hubOf(ctx).behaviour };
  },

  setWebhookBehaviour(ctx) {
    return { body: hubOf(ctx).setBehaviour(ctx.body) };
  },

  resetWebhookBehaviour(ctx) {
    return { body: hubOf(ctx).setBehaviour({ delay_ms: 0, duplicate: false, reorder: false }) };
  },

  rotateWebhookSecret(ctx) {
    const hub = hubOf(ctx);
    const subscription = ctx.ns.store.collections.webhook_subscriptions.get(ctx.params.subscription_id);
    if (!subscription) {
      throw ApiError.notFound(
        `No webhook subscription has id ${ctx.params.subscription_id.slice(0, 200)} in namespace ${ctx.ns.name} (the --forward-webhooks-to one has a secret per process: restart to change it).`,
      );
    }
    const body = ctx.body ?? {};
    return { body: hub.rotateSecret(subscription, body.secret, body.keep_previous_seconds ?? 86_400) };
  },
};

/** The namespace's webhooks, up to date with its subscriptions. */
function hubOf(ctx: AdminContext): WebhookHub {
  const hub = ctx.ns.part(WEBHOOKS);
  hub.refresh();
  return hub;
}

function existingDelivery(ctx: AdminContext): WebhookDeliveryRecord {
  const delivery = ctx.ns.store.collections.webhook_deliveries.get(ctx.params.delivery_id);
  if (!delivery) throw ApiError.notFound(`No webhook delivery has id ${ctx.params.delivery_id.slice(0, 200)} in namespace ${ctx.ns.name}.`);
  return delivery;
}

/** A delivery as the control API shows it: its event parsed from the body, and where it goes now. */
export function deliveryView(ctx: AdminContext, delivery: WebhookDeliveryRecord) {
  const { body, ...rest } = delivery;
  const subscription: WebhookSubscriptionRecord | undefined =
    ctx.ns.store.collections.webhook_subscriptions.get(delivery.subscription_id) ?? ctx.deps.webhooks.forwardSubscription(delivery.merchant_account_id);
  const url = subscription && subscription.id === delivery.subscription_id ? subscription.url : null;
  return { ...rest, event: JSON.parse(body), url };
}

function unknownEvent(ctx: AdminContext, name: string): ApiError {
  const { catalog } = ctx.deps.webhooks;
  const type = name.includes('.') ? name.slice(0, name.indexOf('.')) : name;
  const ofType = catalog.names(type);
  const known = ofType.length
    ? `events of ${type}: ${ofType.join(', ')}`
    : `resource types: ${[...new Set(catalog.names().map((n) => n.slice(0, n.indexOf('.'))))].join(', ')}`;
  return ApiError.badRequest(`'${name.slice(0, 100)}' is not an event the sandbox knows (openapi.json webhooks); known ${known}.`, [
    {
      location: 'body',
      pointer: '/name',
      type: 'unknown_event',
      message: `Use an event name of openapi.json's webhooks section, e.g. ${ofType[0] ?? 'buyer.updated'}.`,
    },
  ]);
}

/** The record the event is about: the one named, else the first of its kind in the merchant account; 404 when none. */
function targetRecord(ctx: AdminContext, collection: CollectionName, merchantAccountId: string, id: string | undefined): AnyRecord {
  const rows = ctx.ns.store.collections[collection] as unknown as { get(id: string): AnyRecord | undefined; all(): readonly AnyRecord[] };
  const inAccount = (r: AnyRecord) =>
    collection === 'api_key_pairs'
      ? r.merchant_account_ids.length === 0 || r.merchant_account_ids.includes(merchantAccountId)
      : r.merchant_account_id === merchantAccountId;
  const record = id === undefined ? rows.all().find(inAccount) : rows.get(id);
  if (record && inAccount(record)) return record;
  throw ApiError.notFound(
    id === undefined
      ? `Merchant account '${merchantAccountId}' has no ${collection} record to be the event's target: create one, or name one with target_id.`
      : `No ${collection} record has id ${id.slice(0, 200)} in merchant account '${merchantAccountId}' of namespace ${ctx.ns.name}.`,
  );
}
