import { findOwned } from '../lookup.js';
import type { HandlerMap } from '../types.js';
import { normalizeBillingDetails, serializeBuyer } from './serialize.js';

const UPDATABLE = ['display_name', 'external_identifier', 'account_number'] as const;

export const buyerHandlers: HandlerMap = {
  /** Merges the given fields (billing_details replaced as a whole) and moves updated_at. */
  updateBuyer(ctx) {
    const { db, params, body, merchantAccountId, now } = ctx;
    const buyer = findOwned(db.buyers, params.buyer_id, merchantAccountId, 'Buyer');
    const patch: Record<string, unknown> = { updated_at: now };
    // Copy only known fields: unknown keys (including __proto__) never reach the record.
    for (const field of UPDATABLE) if (Object.hasOwn(body, field)) patch[field] = body[field];
    if (Object.hasOwn(body, 'billing_details')) patch.billing_details = normalizeBillingDetails(body.billing_details);
    // The record update() gives back: a namespace's first change works on its own copy of the records.
    const updated = db.buyers.update(buyer.id, patch) ?? buyer;
    // The answer's JSON is the event's target too, serialized once for both (announcing costs a check when nobody listens).
    const json = JSON.stringify(serializeBuyer(updated));
    ctx.announce({ name: 'buyer.updated', collection: 'buyers', record: updated, targetJson: json });
    return { json };
  },
};
