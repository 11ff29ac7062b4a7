// The plain DELETE operations: a record of the merchant account disappears (204), a second delete
// is 404, and `<type>.deleted` is announced with the record as it was. The anti-fraud service also
// takes its credentials with it; its connection, derived from the service (connections.ts), is gone
// with it.
import { deleteOwned } from './lookup.js';
import type { HandlerMap } from './types.js';

export const deletionHandlers: HandlerMap = {
  deleteCheckoutSession(ctx) {
    const { db, params, merchantAccountId } = ctx;
    const session = deleteOwned(db.checkout_sessions, params.checkout_session_id, merchantAccountId, 'Checkout session');
    ctx.announce({ name: 'checkout-session.deleted', collection: 'checkout_sessions', record: session });
    return { status: 204 };
  },

  deleteAntiFraudService(ctx) {
    const { db, params, merchantAccountId } = ctx;
    const service = deleteOwned(db.anti_fraud_services, params.anti_fraud_service_id, merchantAccountId, 'Anti-fraud service');
    db.anti_fraud_service_credentials.removeWhere((c) => c.anti_fraud_service_id === service.id);
    ctx.announce({ name: 'anti-fraud-service.deleted', collection: 'anti_fraud_services', record: service });
    return { status: 204 };
  },

  deleteApplePayCertificate(ctx) {
    const { db, params, merchantAccountId } = ctx;
    const certificate = deleteOwned(db.apple_pay_certificates, params.apple_pay_certificate_id, merchantAccountId, 'Apple Pay certificate');
    ctx.announce({ name: 'apple-pay-certificate.deleted', collection: 'apple_pay_certificates', record: certificate });
    return { status: 204 };
  },

  /** Its notifications stop at once, pending retries included (the webhooks layer hears the deletion). */
  deleteWebhookSubscription(ctx) {
    const { db, params, merchantAccountId } = ctx;
    const subscription = deleteOwned(db.webhook_subscriptions, params.subscription_id, merchantAccountId, 'Webhook subscription');
    ctx.announce({ name: 'webhook-subscription.deleted', collection: 'webhook_subscriptions', record: subscription });
    return { status: 204 };
  },
};
