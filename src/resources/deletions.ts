// The plain DELETE operations: a record of the merchant account disappears (204), a second delete
// is 404. The anti-fraud service also takes its credentials with it; its connection, derived from
// the service (connections.ts), is gone with it.
import { deleteOwned } from './lookup.js';
import type { HandlerMap } from './types.js';

export const deletionHandlers: HandlerMap = {
  deleteCheckoutSession({ db, params, merchantAccountId }) {
    deleteOwned(db.checkout_sessions, params.checkout_session_id, merchantAccountId, 'Checkout session');
    return { status: 204 };
  },

  deleteAntiFraudService({ db, params, merchantAccountId }) {
    const service = deleteOwned(db.anti_fraud_services, params.anti_fraud_service_id, merchantAccountId, 'Anti-fraud service');
    db.anti_fraud_service_credentials.removeWhere((c) => c.anti_fraud_service_id === service.id);
    return { status: 204 };
  },

  deleteApplePayCertificate({ db, params, merchantAccountId }) {
    deleteOwned(db.apple_pay_certificates, params.apple_pay_certificate_id, merchantAccountId, 'Apple Pay certificate');
    return { status: 204 };
  },

  deleteWebhookSubscription({ db, params, merchantAccountId }) {
    deleteOwned(db.webhook_subscriptions, params.subscription_id, merchantAccountId, 'Webhook subscription');
    return { status: 204 };
  },
};
