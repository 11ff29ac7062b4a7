// Opaque keyset cursors: the sort key of the row a page ends (or starts) at, the direction and the
// merchant account, signed so a cursor the sandbox did not issue is refused with a 400. Keyset, not
// offset: a page costs a binary search, and rows added or removed meanwhile do not shift pages.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../http/api-error.js';

export interface CursorKey {
  /** `next`: rows after the key; `previous`: rows before it. */
  direction: 'next' | 'previous';
  created_at: string;
  id: string;
  merchant_account_id: string;
}

export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(key: CursorKey): string {
    const payload = Buffer.from(JSON.stringify([key.direction === 'next' ? 'n' : 'p', key.created_at, key.id, key.merchant_account_id])).toString('base64url');
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
    if (!Array.isArray(parts) || parts.length !== 4 || !parts.every((p) => typeof p === 'string')) throw invalidCursor('it is malformed');
    const [d, created_at, id, merchant] = parts as string[];
    if (merchant !== merchantAccountId) throw invalidCursor(`it belongs to another merchant account`);
    return { direction: d === 'n' ? 'next' : 'previous', created_at, id, merchant_account_id: merchant };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
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
