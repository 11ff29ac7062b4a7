// Finding records the way the real service does: a record of another merchant account is
// reported exactly like a missing one (404), so its existence never leaks.
import { ApiError } from '../errors/api-error.js';
import type { Collection } from '../store/collection.js';

export function findOwned<T extends { id: string; merchant_account_id: string }>(
  collection: Collection<T>,
  id: string,
  merchantAccountId: string,
  what: string,
): T {
  const record = collection.get(id);
  if (!record || record.merchant_account_id !== merchantAccountId) {
    throw ApiError.notFound(`${what} ${id} was not found in merchant account '${merchantAccountId}'.`);
  }
  return record;
}

/** Deletes a record of the merchant account (404 when missing or foreign): the shape of every DELETE. */
export function deleteOwned<T extends { id: string; merchant_account_id: string }>(
  collection: Collection<T>,
  id: string,
  merchantAccountId: string,
  what: string,
): T {
  const record = findOwned(collection, id, merchantAccountId, what);
  collection.remove(record.id);
  return record;
}
