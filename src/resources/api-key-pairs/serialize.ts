import type { ApiKeyPairRecord, CreatorRef, RoleRecord } from '../../store/records.js';
import type { CollectionMap } from '../../store/store.js';

// The reference shows no fields of the creator, merchant account and role objects; the shapes
// below are the ones the official clients read (gr4vy 2.4.27's APIKeyPair model, which requires
// them: docs/api-decisions.md).

/** The creator as the clients read it: a key pair gives its thumbprint, a user would give an email. */
function creatorOf(db: CollectionMap, creator: CreatorRef) {
  return {
    id: creator.id,
    name: creator.display_name ?? creator.id,
    email_address: null,
    thumbprint: creator.type === 'api-key-pair' ? (db.api_key_pairs.get(creator.id)?.thumbprint ?? null) : null,
  };
}

/** A role as the clients read it: its scopes are `permissions.allow`; every role stands alone. */
function roleOf(role: RoleRecord) {
  return {
    type: 'role' as const,
    id: role.id,
    name: role.name,
    slug: role.name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    description: `Grants ${role.scopes.join(', ') || 'no scope'}.`,
    permissions: { allow: role.scopes },
    assignable_to: ['user', 'api-key-pair'],
    applies_to: [],
    is_standalone_assignable: true,
  };
}

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
    creator: pair.creator ? creatorOf(db, pair.creator) : null,
    merchant_accounts: pair.merchant_account_ids.map((id) => {
      const account = db.merchant_accounts.get(id);
      return {
        type: 'merchant-account' as const,
        id,
        display_name: account?.display_name ?? id,
        created_at: account?.created_at ?? pair.created_at,
        updated_at: account?.updated_at ?? pair.created_at,
      };
    }),
    roles: pair.role_ids.flatMap((id) => {
      const role = db.roles.get(id);
      return role ? [roleOf(role)] : [];
    }),
  };
}
