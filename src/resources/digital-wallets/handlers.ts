import { ApiError } from '../../errors/api-error.js';
import type { HandlerMap } from '../types.js';

/** The definition of a Google Pay wallet (digital_wallets.digital_wallet_definition_id). */
export const GOOGLE_PAY = 'google-pay';

export const digitalWalletHandlers: HandlerMap = {
  /** Needs a Google Pay wallet configured for the merchant account (404 otherwise). */
  async createGooglePaySession({ db, body, merchantAccountId, services }) {
    const configured = db.digital_wallets.find((w) => w.merchant_account_id === merchantAccountId && w.digital_wallet_definition_id === GOOGLE_PAY);
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
