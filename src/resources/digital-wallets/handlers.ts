import { ApiError } from '../../errors/api-error.js';
import type { HandlerMap } from '../types.js';

export const digitalWalletHandlers: HandlerMap = {
  /** Needs Google Pay configured (a digital-wallet connection) for the merchant account. */
  async createGooglePaySession({ db, body, merchantAccountId, services }) {
    const configured = db.connections.find(
      (c) =>
        c.merchant_account_id === merchantAccountId && c.definition.group === 'digital-wallet' && /google/i.test(`${c.definition.id} ${c.definition.name}`),
    );
    if (!configured) throw ApiError.notFound(`Google Pay is not configured for merchant account '${merchantAccountId}'.`);
    const token = await services.signSandboxJwt({ origin_domain: body.origin_domain, merchant_account_id: merchantAccountId, wallet: 'google-pay' });
    return { body: { gateway_merchant_id: merchantAccountId, token } };
  },

  /** Unauthenticated: the checkout session id alone identifies the session (404 when unknown). */
  createClickToPaySession({ db, body }) {
    const session = db.checkout_sessions.get(body.checkout_session_id);
    if (!session) throw ApiError.notFound(`Checkout session ${body.checkout_session_id} was not found.`);
    const account = db.merchant_accounts.get(session.merchant_account_id);
    return {
      body: {
        digital_payment_application_id: `sandbox-dpa-${session.merchant_account_id}`,
        digital_payment_application_name: account?.display_name ?? session.merchant_account_id,
      },
    };
  },
};
