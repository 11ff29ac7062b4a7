import type { GiftCardRecord } from '../../store/records.js';
import { compareStrings } from '../compare.js';
import { RecordJson } from '../record-json.js';
import type { HandlerContext, HandlerMap } from '../types.js';
import { CursorCodec, type CursorKey } from './cursor.js';
import { serializeGiftCard } from './serialize.js';

/** Gift cards are listed newest first: created_at descending, then id descending. */
export function giftCardOrder(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  return compareStrings(b.created_at, a.created_at) || compareStrings(b.id, a.id);
}

export function giftCardHandlers(cursors: CursorCodec): HandlerMap {
  // A card's JSON shows its buyer and its gift card service: a change to either renews it.
  const cardJson = new RecordJson<GiftCardRecord>(
    serializeGiftCard,
    (db) => [db.gift_cards, db.buyers, db.gift_card_services],
    (db, card) => [db.buyers.get(card.buyer_id), db.gift_card_services.get(card.gift_card_service_id)],
  );
  return {
    listGiftCards(ctx) {
      const { query, merchantAccountId } = ctx;
      const limit: number = query.limit;
      const rows = filteredRows(ctx);
      let start = 0;
      let end = Math.min(rows.length, limit);
      if (query.cursor) {
        const key = cursors.decode(query.cursor, merchantAccountId);
        const at = firstAfter(rows, key); // index of the first row sorting after the key (the hint, when it still holds)
        if (key.direction === 'next') {
          start = at;
          end = Math.min(rows.length, start + limit);
        } else {
          end = rows.length && at > 0 && sameKey(rows[at - 1], key) ? at - 1 : at;
          start = Math.max(0, end - limit);
        }
      }
      const page = rows.slice(start, end);
      const cursorAt = (direction: CursorKey['direction'], row: GiftCardRecord, at: number) =>
        cursors.encode({ direction, created_at: row.created_at, id: row.id, merchant_account_id: merchantAccountId, at });
      const nextCursor = end < rows.length && page.length ? cursorAt('next', page[page.length - 1], end - 1) : null;
      const previousCursor = start > 0 && page.length ? cursorAt('previous', page[0], start) : null;
      // The body {items, limit, next_cursor, previous_cursor}, written as text around the kept card texts.
      const rest = `,"limit":${JSON.stringify(limit)},"next_cursor":${JSON.stringify(nextCursor)},"previous_cursor":${JSON.stringify(previousCursor)}}`;
      return { json: cardJson.arrayBytes(ctx.db, page, '{"items":', rest) };
    },
  };
}

function filteredRows({ db, query, merchantAccountId }: HandlerContext): readonly GiftCardRecord[] {
  const rows = db.gift_cards.view(`merchant:${merchantAccountId}`, (g) => g.merchant_account_id === merchantAccountId, giftCardOrder);
  if (!query.buyer_id && !query.buyer_external_identifier) return rows;
  return rows.filter((g) => {
    if (query.buyer_id && g.buyer_id !== query.buyer_id) return false;
    if (query.buyer_external_identifier && db.buyers.get(g.buyer_id)?.external_identifier !== query.buyer_external_identifier) return false;
    return true;
  });
}

/** The first index whose row sorts strictly after the cursor's key: next to the hinted row when it is still the key's, else by binary search. */
function firstAfter(rows: readonly GiftCardRecord[], key: CursorKey): number {
  if (key.at !== undefined && key.at < rows.length && sameKey(rows[key.at], key)) return key.at + 1;
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (giftCardOrder(rows[mid], key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const sameKey = (row: GiftCardRecord, key: CursorKey) => row.created_at === key.created_at && row.id === key.id;
