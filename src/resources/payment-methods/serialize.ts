import type { PaymentMethodRecord, PaymentServiceTokenRecord } from '../../store/records.js';
import type { CollectionMap } from '../../store/store.js';
import { methodApprovalUrl, STORED_ORIGIN, tokenApprovalUrl } from './approval.js';

/** `base`: where the client reached the sandbox (approval pages are linked there); the stored origin when no request is at hand (event targets). */
// The summary has the reference's 23 fields: created_at/updated_at stay in the store (the list's
// default order) but are not served, as the real service and its clients' models have neither.
export function serializePaymentMethod(pm: PaymentMethodRecord, db: CollectionMap | null = null, base = STORED_ORIGIN) {
  const { buyer_id: _buyer, created_at: _created, updated_at: _updated, ...api } = pm;
  if (pm.approval_url !== null) api.approval_url = methodApprovalUrl(db, pm, base);
  return api;
}

export function serializePaymentServiceToken(t: PaymentServiceTokenRecord, base = STORED_ORIGIN) {
  return {
    type: 'payment-service-token' as const,
    id: t.id,
    payment_method_id: t.payment_method_id,
    payment_service_id: t.payment_service_id,
    created_at: t.created_at,
    updated_at: t.updated_at,
    status: t.status,
    approval_url: tokenApprovalUrl(t, base),
    token: t.token,
  };
}
