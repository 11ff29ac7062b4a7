import type { ApiKeyPairRecord } from '../../store/records.js';
import type { CollectionMap } from '../../store/store.js';

/** The API shape; `private_key` is only ever filled in the creation response of a generated pair. */
export function serializeApiKeyPair(db: CollectionMap, pair: ApiKeyPairRecord, privateKey: string | null = null) {
  return {
    type: 'api-key-pair' as const,
    id: pair.id,
    thumbprint: pair.thumbprint,
    display_name: pair.display_name,
    algorithm: pair.algorithm,
    active: pair.active,
    private_key: privateKey,
    created_at: pair.created_at,
    updated_at: pair.updated_at,
    last_used_at: pair.last_used_at,
    creator: pair.creator,
    merchant_accounts: pair.merchant_account_ids.map((id) => ({
      type: 'merchant-account' as const,
      id,
      display_name: db.merchant_accounts.get(id)?.display_name ?? id,
    })),
    roles: pair.role_ids.flatMap((id) => {
      const role = db.roles.get(id);
      return role ? [{ type: 'role' as const, id: role.id, name: role.name, scopes: role.scopes }] : [];
    }),
  };
}
