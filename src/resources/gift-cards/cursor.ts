// Opaque keyset cursors: the sort key of the row a page ends (or starts) at, the direction and the
// merchant account, signed so a cursor the sandbox did not issue is refused with a 400. Keyset, not
// offset: rows added or removed meanwhile do not shift pages. A cursor also carries where its row
// stood when it was issued: while that row is still there, the page needs no search at all (in a
// store of 100,000 cards the binary search touches records all over memory); when it is not, the
// key decides, by binary search.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';

export interface CursorKey {
  /** `next`: rows after the key; `previous`: rows before it. */
  direction: 'next' | 'previous';
  created_at: string;
  id: string;
  merchant_account_id: string;
  /** Index of the row in the ordered list when the cursor was issued: a hint, checked before use. */
  at?: number;
}

/** Signatures computed, by payload, kept so a cursor the sandbox issued is checked without an HMAC each time. */
const KEPT_SIGNATURES = 10_000;

export class CursorCodec {
  private readonly signatures = new Map<string, string>();

  constructor(private readonly secret: string) {}

  encode(key: CursorKey): string {
    const fields: unknown[] = [key.direction === 'next' ? 'n' : 'p', key.created_at, key.id, key.merchant_account_id];
    if (key.at !== undefined) fields.push(key.at);
    const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(cursor: string, merchantAccountId: string): CursorKey {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length || !this.verify(payload, signature)) throw invalidCursor('it was not issued by this sandbox');
    let parts: unknown;
    try {
      parts = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor('it is malformed');
    }
    // Four strings, and (since cursors carry a position hint) a whole number.
    if (!Array.isArray(parts) || parts.length < 4 || parts.length > 5 || !parts.slice(0, 4).every((p) => typeof p === 'string'))
      throw invalidCursor('it is malformed');
    if (parts.length === 5 && !(Number.isSafeInteger(parts[4]) && parts[4] >= 0)) throw invalidCursor('it is malformed');
    const [d, created_at, id, merchant] = parts as string[];
    if (merchant !== merchantAccountId) throw invalidCursor(`it belongs to another merchant account`);
    const key: CursorKey = { direction: d === 'n' ? 'next' : 'previous', created_at, id, merchant_account_id: merchant };
    if (parts.length === 5) key.at = parts[4] as number;
    return key;
  }

  private sign(payload: string): string {
    let signature = this.signatures.get(payload);
    if (signature === undefined) {
      signature = createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
      if (this.signatures.size >= KEPT_SIGNATURES) this.signatures.clear(); // bounded: start over
      this.signatures.set(payload, signature);
    }
    return signature;
  }

  private verify(payload: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

function invalidCursor(why: string): ApiError {
  return ApiError.badRequest(`The cursor is not valid: ${why}. Use next_cursor or previous_cursor from a previous page.`, [
    { location: 'query', pointer: '/cursor', type: 'cursor_invalid', message: `The cursor is not valid: ${why}.` },
  ]);
}
