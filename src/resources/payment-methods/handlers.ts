import { randomBytes } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import type { PaymentMethodRecord } from '../../store/records.js';
import { compareStrings } from '../compare.js';
import { findOwned } from '../lookup.js';
import type { HandlerContext, HandlerMap } from '../types.js';
import { catchUpApprovals } from './approval.js';
import { serializePaymentMethod, serializePaymentServiceToken } from './serialize.js';

export const paymentMethodHandlers: HandlerMap = {
  /**
   * Payment methods of the merchant account's buyers; buyer_id and buyer_external_identifier are
   * optional filters. Country and currency filters keep only methods having that country or
   * currency (a method without one never matches).
   */
  listBuyerPaymentMethods(ctx) {
    const { db, query, merchantAccountId } = ctx;
    let base: string | undefined; // parsed only for a method with an approval_url: most lists have none
    const buyerIds = buyerFilter(ctx);
    const items = db.payment_methods.where(
      (pm) =>
        pm.merchant_account_id === merchantAccountId &&
        (buyerIds === null || (pm.buyer_id !== null && buyerIds.has(pm.buyer_id))) &&
        (!query.country || pm.country === query.country) &&
        (!query.currency || pm.currency === query.currency),
    );
    items.sort(query.sort_by === 'last_used_at' ? byLastUsed(query.order_by) : byCreated(query.order_by));
    return {
      body: { items: items.map((pm) => (pm.approval_url === null ? serializePaymentMethod(pm) : serializePaymentMethod(pm, db, (base ??= ctx.sandboxBase)))) },
    };
  },

  listPaymentServiceTokens(ctx) {
    const { db, params, query, merchantAccountId } = ctx;
    catchUpApprovals(ctx.ns); // decisions planned on the namespace clock happen when it is read, as report statuses do
    const pm = findOwned(db.payment_methods, params.payment_method_id, merchantAccountId, 'Payment method');
    const items = db.payment_service_tokens.where(
      (t) => t.payment_method_id === pm.id && (!query.payment_service_id || t.payment_service_id === query.payment_service_id),
    );
    const base = ctx.sandboxBase;
    return { body: { items: items.map((t) => serializePaymentServiceToken(t, base)) } };
  },

  /** A cryptogram needs a network token of that payment method, both in the merchant account. */
  createNetworkTokenCryptogram({ db, params, merchantAccountId }) {
    const pm = findOwned(db.payment_methods, params.payment_method_id, merchantAccountId, 'Payment method');
    const token = db.network_tokens.get(params.network_token_id);
    if (!token || token.merchant_account_id !== merchantAccountId || token.payment_method_id !== pm.id || token.status === 'deleted') {
      throw ApiError.notFound(`Network token ${params.network_token_id} was not found for payment method ${pm.id}.`);
    }
    if (token.status !== 'active') {
      throw ApiError.badRequest(`Network token ${token.id} is ${token.status}; a cryptogram needs an active network token.`, [
        { location: 'path', pointer: '/network_token_id', type: 'network_token_not_active', message: `The network token is ${token.status}.` },
      ]);
    }
    // Shaped like a real TAVV cryptogram: 20 bytes, base64.
    return { body: { type: 'network-token-cryptogram', cryptogram: randomBytes(20).toString('base64') } };
  },
};

/** The buyer ids the filters select, null when no buyer filter is given; an unknown buyer is 404. */
function buyerFilter({ db, query, merchantAccountId }: HandlerContext): Set<string> | null {
  if (!query.buyer_id && !query.buyer_external_identifier) return null;
  const matches = db.buyers.where(
    (b) =>
      b.merchant_account_id === merchantAccountId &&
      (!query.buyer_id || b.id === query.buyer_id) &&
      (!query.buyer_external_identifier || b.external_identifier === query.buyer_external_identifier),
  );
  if (!matches.length) {
    const which = query.buyer_id ? `id ${query.buyer_id}` : `external identifier '${query.buyer_external_identifier}'`;
    throw ApiError.notFound(
      `No buyer with ${which}${query.buyer_id && query.buyer_external_identifier ? ' and that external identifier' : ''} in merchant account '${merchantAccountId}'.`,
    );
  }
  return new Set(matches.map((b) => b.id));
}

const tieBreak = (a: PaymentMethodRecord, b: PaymentMethodRecord) => compareStrings(a.id, b.id);

function byCreated(order: string) {
  const sign = order === 'asc' ? 1 : -1;
  return (a: PaymentMethodRecord, b: PaymentMethodRecord) => sign * (compareStrings(a.created_at, b.created_at) || tieBreak(a, b));
}

/** last_used_at in the asked order, methods never used last whatever the order. */
function byLastUsed(order: string) {
  const sign = order === 'asc' ? 1 : -1;
  return (a: PaymentMethodRecord, b: PaymentMethodRecord) => {
    if (a.last_used_at === b.last_used_at) return sign * tieBreak(a, b);
    if (a.last_used_at === null) return 1;
    if (b.last_used_at === null) return -1;
    return sign * compareStrings(a.last_used_at, b.last_used_at);
  };
}
