// Control API of scenarios: what is loaded, what is active where, and the step counters.
import { ApiError } from '../errors/api-error.js';
import { checkScenarioNames } from '../scenarios/match.js';
import { SCENARIO_STATE, type ScenarioState } from '../scenarios/state.js';
import { scenarioNames } from '../scenarios/types.js';
import type { AdminContext, AdminHandlerMap } from './types.js';

function stateOf({ ns }: AdminContext): ScenarioState {
  return ns.part(SCENARIO_STATE);
}

function activeBody(state: ScenarioState) {
  return { active: state.listActive(), counters: state.listCounters() };
}

export const scenarioHandlers: AdminHandlerMap = {
  listScenarios({ deps }) {
    const items = scenarioNames(deps.scenarios).map((name) => {
      const s = deps.scenarios.byName.get(name)!;
      return { name, description: s.description, file: s.file, operations: [...s.operations].sort(), steps: s.steps, report_execution: s.reportExecution };
    });
    return { body: { items } };
  },

  getActiveScenarios(ctx) {
    return { body: activeBody(stateOf(ctx)) };
  },

  setActiveScenarios(ctx) {
    const { deps, ns, body } = ctx;
    const names: string[] = body.scenarios;
    checkScenarioNames(deps.scenarios, names, { location: 'body', pointer: '/scenarios' });
    const merchantAccountId: string | null = body.merchant_account_id ?? null;
    if (merchantAccountId !== null && !ns.store.collections.merchant_accounts.get(merchantAccountId)) {
      const known = ns.store.collections.merchant_accounts
        .all()
        .map((m) => m.id)
        .join(', ');
      throw ApiError.badRequest(
        `Merchant account '${merchantAccountId.slice(0, 100)}' does not exist in namespace '${ns.name}'; known: ${known}. Use null for every merchant account.`,
        [{ location: 'body', pointer: '/merchant_account_id', type: 'unknown_merchant_account', message: `Use one of ${known}, or null.` }],
      );
    }
    const state = stateOf(ctx);
    state.activate(names, merchantAccountId);
    return { body: activeBody(state) };
  },

  clearActiveScenarios(ctx) {
    stateOf(ctx).clear();
    return { status: 204 };
  },
};
