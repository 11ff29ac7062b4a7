// Read-only configuration lists: connections, flow rules, Vault Forward authentications and card
// scheme definitions.
import { findOwned } from './lookup.js';
import type { HandlerMap } from './types.js';

export const configurationHandlers: HandlerMap = {
  /** Every configured connection of every group (anti-fraud and gift card services included). */
  listConnections({ db, merchantAccountId }) {
    const items = db.connections
      .where((c) => c.merchant_account_id === merchantAccountId)
      .map((c) => ({ type: 'connection' as const, id: c.id, name: c.name, active: c.active, silent: c.silent, definition: c.definition }));
    return { body: { items } };
  },

  listFlowRules({ db, params, merchantAccountId }) {
    const items = db.flow_rules
      .where((r) => r.merchant_account_id === merchantAccountId && r.flow === params.flow)
      .sort((a, b) => a.position - b.position);
    return { body: { items } };
  },

  listVaultForwardAuthentications({ db, params, merchantAccountId }) {
    const config = findOwned(db.vault_forward_configs, params.config_id, merchantAccountId, 'Vault Forward config');
    const items = db.vault_forward_authentications
      .where((a) => a.config_id === config.id)
      .map(({ merchant_account_id: _m, config_id: _c, ...api }) => api);
    return { body: { items } };
  },

  listCardSchemeDefinitions({ db }) {
    return { body: { items: db.card_scheme_definitions.all() } };
  },
};
