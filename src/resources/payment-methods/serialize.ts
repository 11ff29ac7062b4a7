import type { PaymentMethodRecord, PaymentServiceTokenRecord } from '../../store/records.js';

export function serializePaymentMethod(pm: PaymentMethodRecord) {
  const { buyer_id: _buyer, ...api } = pm;
  return api;
}

export function serializePaymentServiceToken(t: PaymentServiceTokenRecord) {
  return {
    type: 'payment-service-token' as const,
    id: t.id,
    payment_method_id: t.payment_method_id,
    payment_service_id: t.payment_service_id,
    created_at: t.created_at,
    updated_at: t.updated_at,
    status: t.status,
    approval_url: t.approval_url,
    token: t.token,
  };
}
