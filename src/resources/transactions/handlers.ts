import { ApiError } from '../../errors/api-error.js';
import { findOwned } from '../lookup.js';
import { shownCompletionUrl } from '../payment-methods/approval.js';
import type { HandlerMap } from '../types.js';

export const transactionHandlers: HandlerMap = {
  /**
   * Returns the transaction's session; a `payload` is merged into its session data (connectors that
   * support updates). A `token` query parameter must match the transaction's client session token.
   */
  updateTransactionSession(ctx) {
    const { db, params, query, body, merchantAccountId, now } = ctx;
    const transaction = findOwned(db.transactions, params.transaction_id, merchantAccountId, 'Transaction');
    if (query.token !== undefined && query.token !== transaction.session_token) {
      throw ApiError.forbidden(`The session token does not belong to transaction ${transaction.id}.`);
    }
    const payload = body?.payload;
    let session = transaction.session;
    if (payload && Object.keys(payload).length) {
      // Only own, non-prototype keys are merged.
      const merged = { ...session.session_data };
      for (const [key, value] of Object.entries(payload)) if (key !== '__proto__' && key !== 'constructor' && key !== 'prototype') merged[key] = value;
      session = { ...session, session_data: merged };
      db.transactions.update(transaction.id, { session, updated_at: now });
    }
    const { session_data, default_completion_url, integration_client } = session;
    return { body: { session_data, default_completion_url: shownCompletionUrl(default_completion_url, transaction.id, ctx.sandboxBase), integration_client } };
  },
};
