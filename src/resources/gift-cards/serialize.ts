import type { GiftCardRecord } from '../../store/records.js';
import type { CollectionMap } from '../../store/store.js';
import { serializeBuyer } from '../buyers/serialize.js';
import { RecordJson, type RecordShapeSpec } from '../json-cache/record-json.js';

/** The API shape: the stored buyer and service ids expanded into their nested objects. */
export function serializeGiftCard(db: CollectionMap, card: GiftCardRecord) {
  const service = db.gift_card_services.get(card.gift_card_service_id);
  const buyer = db.buyers.get(card.buyer_id);
  return {
    type: 'gift-card' as const,
    id: card.id,
    merchant_account_id: card.merchant_account_id,
    gift_card_service: {
      type: 'gift-card-service' as const,
      id: card.gift_card_service_id,
      gift_card_service_definition_id: service?.gift_card_service_definition_id ?? 'unknown',
      display_name: service?.display_name ?? 'Removed gift card service',
    },
    bin: card.bin,
    sub_bin: card.sub_bin,
    last4: card.last4,
    created_at: card.created_at,
    updated_at: card.updated_at,
    usage_count: card.usage_count,
    cit_usage_count: card.cit_usage_count,
    expiration_date: card.expiration_date,
    buyer: buyer ? serializeBuyer(buyer) : null,
    last_used_at: card.last_used_at,
    cit_last_used_at: card.cit_last_used_at,
  };
}

/** A card's cached API JSON: it shows its buyer and its gift card service, so a change to either renews it. */
export const giftCardShape: RecordShapeSpec<GiftCardRecord> = {
  serialize: serializeGiftCard,
  reads: (db) => [db.gift_cards, db.buyers, db.gift_card_services],
  shows: (db, card) => [db.buyers.get(card.buyer_id), db.gift_card_services.get(card.gift_card_service_id)],
};
export const giftCardJson = new RecordJson(giftCardShape);
