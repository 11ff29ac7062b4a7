// GET /connections lists the configured services of a merchant account: payment services,
// anti-fraud services, gift card services and digital wallets, each shown as a connection whose id,
// name and active flag are the service's. The list is derived from those four collections, never
// kept as a copy of its own: deleting a service removes its connection by construction.
import type { ConfiguredService, ConnectionDefinitionFields } from '../store/records.js';
import type { CollectionMap } from '../store/store.js';

/** Where the fixtures' (and the records API's default) connection icons live. */
export const CONNECTION_ICON_BASE = 'https://cdn.payments-sandbox.example/icons';

export type ConnectionGroup = 'payment-service' | 'anti-fraud-service' | 'gift-card-service' | 'digital-wallet';

interface ConnectionSource {
  collection: 'payment_services' | 'anti_fraud_services' | 'gift_card_services' | 'digital_wallets';
  group: ConnectionGroup;
  /** The category a service of this kind gets when its definition is not given (records API). */
  category: string;
  /** The service's field naming its definition: the connection definition's id. */
  definitionIdField: string;
}

/** The collections of configured services, in the order GET /connections lists them. */
export const CONNECTION_SOURCES: readonly ConnectionSource[] = [
  { collection: 'payment_services', group: 'payment-service', category: 'card', definitionIdField: 'payment_service_definition_id' },
  { collection: 'anti_fraud_services', group: 'anti-fraud-service', category: 'anti-fraud', definitionIdField: 'anti_fraud_service_definition_id' },
  { collection: 'gift_card_services', group: 'gift-card-service', category: 'gift-card', definitionIdField: 'gift_card_service_definition_id' },
  { collection: 'digital_wallets', group: 'digital-wallet', category: 'wallet', definitionIdField: 'digital_wallet_definition_id' },
];

/** Every collection GET /connections reads: a cached answer is stale once one of them changed. */
export function connectionSources(db: CollectionMap): CollectionMap[ConnectionSource['collection']][] {
  return CONNECTION_SOURCES.map((source) => db[source.collection]);
}

export interface Connection {
  type: 'connection';
  id: string;
  name: string;
  active: boolean;
  silent: boolean;
  definition: {
    id: string;
    type: 'connection-definition';
    name: string;
    /** How many connections of the merchant account use the same definition. */
    count: number;
    group: ConnectionGroup;
    category: string;
    icon_url: string;
    provider: string;
  };
}

/** The connections of a merchant account: its services of every kind, in CONNECTION_SOURCES order. */
export function connectionsOf(db: CollectionMap, merchantAccountId: string): Connection[] {
  const shown: Array<{ service: ConfiguredService; source: ConnectionSource; definitionId: string }> = [];
  const counts = new Map<string, number>();
  for (const source of CONNECTION_SOURCES) {
    for (const service of db[source.collection].all() as readonly ConfiguredService[]) {
      if (service.merchant_account_id !== merchantAccountId) continue;
      const definitionId = (service as unknown as Record<string, string>)[source.definitionIdField];
      shown.push({ service, source, definitionId });
      counts.set(definitionId, (counts.get(definitionId) ?? 0) + 1);
    }
  }
  return shown.map(({ service, source, definitionId }) => ({
    type: 'connection',
    id: service.id,
    name: service.display_name,
    active: service.active,
    silent: service.silent,
    definition: {
      id: definitionId,
      type: 'connection-definition',
      name: service.definition.name,
      count: counts.get(definitionId) ?? 0,
      group: source.group,
      category: service.definition.category,
      icon_url: service.definition.icon_url,
      provider: service.definition.provider,
    },
  }));
}

/**
 * The definition fields a service gets when none are given: named after the service, the provider
 * the first word of its definition id (`stripe-card`: stripe), its icon the provider's.
 */
export function defaultConnectionDefinition(group: ConnectionGroup, definitionId: string, name: string): ConnectionDefinitionFields {
  const provider = definitionId.split('-')[0];
  const category = CONNECTION_SOURCES.find((s) => s.group === group)?.category ?? group;
  return { name, category, icon_url: `${CONNECTION_ICON_BASE}/${provider}.svg`, provider };
}

/** The source a collection of configured services is, if it is one. */
export function connectionSourceOf(collection: string): ConnectionSource | undefined {
  return CONNECTION_SOURCES.find((s) => s.collection === collection);
}
