// A stored record as the API returns it, for every collection: the areas' serializers where the
// API expands references or hides fields (a webhook subscription's secret), the record as stored
// elsewhere. The records API (admin) and webhook event targets (webhooks) both show records this way.
import type { CollectionName, WebhookSubscriptionRecord } from '../store/records.js';
import type { CollectionMap } from '../store/store.js';
import { serializeApiKeyPair } from './api-key-pairs/serialize.js';
import { serializeBuyer } from './buyers/serialize.js';
import { serializeGiftCard } from './gift-cards/serialize.js';
import { serializePaymentMethod, serializePaymentServiceToken } from './payment-methods/serialize.js';
import { serializeExecution, serializeReport } from './reports/serialize.js';

/** `base`: where links to the sandbox's hosted pages point (the client's address, else the stored origin). */
export type ApiSerializer = (db: CollectionMap, record: any, base?: string) => unknown;

/** A webhook subscription without its secrets: those are shown by the control API only. */
export function serializeWebhookSubscription(s: WebhookSubscriptionRecord) {
  return {
    type: 'webhook-subscription' as const,
    id: s.id,
    merchant_account_id: s.merchant_account_id,
    url: s.url,
    active: s.active,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/** Collections the API does not return as stored. */
export const API_SERIALIZERS: Partial<Record<CollectionName, ApiSerializer>> = {
  api_key_pairs: (db, r) => serializeApiKeyPair(db, r),
  buyers: (_db, r) => serializeBuyer(r),
  payment_methods: (db, r, base) => serializePaymentMethod(r, db, base),
  payment_service_tokens: (_db, r, base) => serializePaymentServiceToken(r, base),
  gift_cards: serializeGiftCard,
  reports: serializeReport,
  report_executions: serializeExecution,
  webhook_subscriptions: (_db, r) => serializeWebhookSubscription(r),
};

/** The record as the API returns it (as stored for kinds without a serializer). */
export function apiShapeOf(db: CollectionMap, collection: CollectionName, record: object, base?: string): unknown {
  const serialize = API_SERIALIZERS[collection];
  return serialize ? serialize(db, record, base) : record;
}
