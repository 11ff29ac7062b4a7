import type { GiftCardRecord } from '../../store/records.js';
import { compareStrings } from '../compare.js';
import type { HandlerContext, HandlerMap } from '../types.js';
import type { CursorCodec, CursorKey } from './cursor.js';
import { giftCardJson } from './serialize.js';

/** Gift cards are listed newest first: created_at descending, then id descending. */
export function giftCardOrder(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  return compareStrings(b.created_at, a.created_at) || compareStrings(b.id, a.id);
}

export function giftCardHandlers(cursors: CursorCodec): HandlerMap {
  return {
    listGiftCards(ctx) {
      const { query, merchantAccountId } = ctx;
      const limit: number = query.limit;
      const { rows, view } = filteredRows(ctx);
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
      const cursorAt = (direction: CursorKey['direction'], at: number) =>
        cursors.encode({ direction, created_at: rows[at].created_at, id: rows[at].id, merchant_account_id: merchantAccountId, at });
      const nextCursor = end < rows.length && start < end ? cursorAt('next', end - 1) : null;
      const previousCursor = start > 0 && start < end ? cursorAt('previous', start) : null;
      // The body {items, limit, next_cursor, previous_cursor}, written as text around the cached card JSON.
      const rest = `,"limit":${JSON.stringify(limit)},"next_cursor":${JSON.stringify(nextCursor)},"previous_cursor":${JSON.stringify(previousCursor)}}`;
      // A merchant account's whole list is a cached view (Collection.view), copied from its blocks; a filtered one is made per call.
      const json = view
        ? giftCardJson.viewRange(ctx.db, rows, start, end, '{"items":', rest)
        : giftCardJson.list(ctx.db, rows.slice(start, end), '{"items":', rest);
      return { json };
    },
  };
}

/**
 * The cards the query asks for, in list order; `view` when they are the merchant account's cached
 * view itself. The buyer filters look up groups cached until a collection changes, never scanning
 * the cards: with 100,000 cards a scan per request would be most of its cost.
 */
function filteredRows({ db, query, merchantAccountId }: HandlerContext): { rows: readonly GiftCardRecord[]; view: boolean } {
  const rows = db.gift_cards.view(`merchant:${merchantAccountId}`, (g) => g.merchant_account_id === merchantAccountId, giftCardOrder);
  const buyerId: string | undefined = query.buyer_id;
  const externalId: string | undefined = query.buyer_external_identifier;
  if (!buyerId && !externalId) return { rows, view: true };
  const byBuyer = db.gift_cards.groupedBy(`merchant:${merchantAccountId}:buyer`, (g) => g.buyer_id, rows);
  if (buyerId) {
    const cards = byBuyer.get(buyerId) ?? [];
    const shown = externalId === undefined || db.buyers.get(buyerId)?.external_identifier === externalId;
    return { rows: shown ? cards : [], view: false };
  }
  // Buyers of any merchant account may share an external identifier: their cards, merged in list order.
  const buyers = db.buyers.groupedBy('external_identifier', (b) => b.external_identifier).get(externalId as string) ?? [];
  const cards = buyers.length === 1 ? (byBuyer.get(buyers[0].id) ?? []) : buyers.flatMap((b) => byBuyer.get(b.id) ?? []).sort(giftCardOrder);
  return { rows: cards, view: false };
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
