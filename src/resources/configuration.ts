// Read-only configuration lists: connections, flow rules, Vault Forward authentications and card
// scheme definitions. The API cannot change them (the control API can), and clients read them
// again and again: the lists that need no lookup are answered with their JSON text, cached until a
// collection they show changes.

import { connectionSources, connectionsOf } from './connections.js';
import { AnswerJson, type AnswerSpec } from './json-cache/answer-json.js';
import { findOwned } from './lookup.js';
import type { HandlerMap } from './types.js';

/** Keyed by merchant account; derived from the four collections of configured services, each a source. */
export const connectionsAnswer: AnswerSpec<string> = {
  build: (db, merchantAccountId) => ({ items: connectionsOf(db, merchantAccountId) }),
  reads: connectionSources,
};
const connectionsJson = new AnswerJson(connectionsAnswer);

/** Keyed by merchant account and flow, joined with NUL (neither can hold one). */
export const flowRulesAnswer: AnswerSpec<string> = {
  build: (db, key) => {
    const [merchantAccountId, flow] = key.split('\u0000');
    const items = db.flow_rules.where((r) => r.merchant_account_id === merchantAccountId && r.flow === flow).sort((a, b) => a.position - b.position);
    return { items };
  },
  reads: (db) => [db.flow_rules],
};
const flowRulesJson = new AnswerJson(flowRulesAnswer);

export const cardSchemesAnswer: AnswerSpec<''> = {
  build: (db) => ({ items: db.card_scheme_definitions.all() }),
  reads: (db) => [db.card_scheme_definitions],
};
const cardSchemesJson = new AnswerJson(cardSchemesAnswer);

export const configurationHandlers: HandlerMap = {
  /** Every configured service of every group (anti-fraud and gift card services, digital wallets included), as connections. */
  listConnections({ db, merchantAccountId }) {
    return { json: connectionsJson.text(db, merchantAccountId) };
  },

  listFlowRules({ db, params, merchantAccountId }) {
    return { json: flowRulesJson.text(db, `${merchantAccountId}\u0000${params.flow}`) };
  },

  listVaultForwardAuthentications({ db, params, merchantAccountId }) {
    const config = findOwned(db.vault_forward_configs, params.config_id, merchantAccountId, 'Vault Forward config');
    const items = db.vault_forward_authentications.where((a) => a.config_id === config.id).map(({ merchant_account_id: _m, config_id: _c, ...api }) => api);
    return { body: { items } };
  },

  listCardSchemeDefinitions({ db }) {
    return { json: cardSchemesJson.text(db, '') };
  },
};
