// Control API of scenarios: the scenarios a namespace knows (its own, defined here at run time,
// then the files), each with the operations it can apply to; defining, replacing and deleting a
// namespace's own; what is active where (with an optional time to live or number of calls); and
// the counters of each scenario: calls matched and answered, per merchant account.
import { ApiError, type ErrorDetail } from '../errors/api-error.js';
import { operationsApplying } from '../scenarios/compile-scenario.js';
import { DefinitionError } from '../scenarios/definitions.js';
import { checkScenarioNames } from '../scenarios/match.js';
import { SCENARIO_STATE, type ScenarioState } from '../scenarios/state.js';
import type { Scenario, ScenarioCatalog } from '../scenarios/types.js';
import { steeringView } from '../scenarios/webhook-steering.js';
import type { AdminContext, AdminHandlerMap } from './types.js';

function stateOf({ ns }: AdminContext): ScenarioState {
  return ns.part(SCENARIO_STATE);
}

function activeBody(state: ScenarioState) {
  return { active: state.listActive(), counters: state.listCounters() };
}

/** A scenario as listed: where it comes from, what it replaces, and the operations it can apply to. */
function summaryOf(state: ScenarioState, files: ScenarioCatalog, s: Scenario) {
  const replaces = s.source === 'defined' ? (state.fileScenario(s.name)?.file ?? null) : (files.replaced?.get(s.name) ?? null);
  return {
    name: s.name,
    description: s.description,
    source: s.source,
    file: s.file,
    replaces,
    operations: operationsApplying(s),
    steps: s.steps,
    match: s.match,
    report_execution: s.reportExecution,
    webhooks: steeringView(s.webhooks),
  };
}

/** One scenario with its definition as written, its counters in this namespace and where it is active. */
function detailOf(ctx: AdminContext, s: Scenario) {
  const state = stateOf(ctx);
  const active = state
    .listActive()
    .filter((entry) => entry.scenarios.includes(s.name))
    .map(({ scenarios: _scenarios, ...where }) => where);
  const warnings = unknownAccounts(ctx, s);
  return {
    ...summaryOf(state, ctx.deps.scenarios, s),
    definition: s.definition,
    counters: state.countersOf(s.name),
    active,
    ...(warnings.length ? { warnings } : {}),
  };
}

/**
 * Merchant accounts match.merchant_account_id names that the namespace does not have. Accepted, as
 * an account may be created later (POST /_sandbox/records/merchant_accounts, a state import), but
 * said in the answer: until then the scenario takes none of its calls.
 */
function unknownAccounts(ctx: AdminContext, s: Scenario): Array<{ pointer: string; message: string }> {
  const named = s.match?.merchant_account_id;
  if (named === undefined) return [];
  const accounts = ctx.ns.store.collections.merchant_accounts;
  return (typeof named === 'string' ? [named] : named).flatMap((id, i) =>
    accounts.get(id)
      ? []
      : [
          {
            pointer: typeof named === 'string' ? '/match/merchant_account_id' : `/match/merchant_account_id/${i}`,
            message: `merchant account '${id.slice(0, 100)}' does not exist in namespace '${ctx.ns.name}' (yet): the scenario takes none of its calls until it is created (accounts: ${accounts
              .all()
              .map((m) => m.id)
              .join(', ')})`,
          },
        ],
  );
}

function scenarioNamed(ctx: AdminContext, name: string): Scenario {
  const scenario = stateOf(ctx).get(name);
  if (scenario) return scenario;
  throw ApiError.notFound(`Scenario '${name.slice(0, 64)}' is not known in namespace '${ctx.ns.name}'; known: ${stateOf(ctx).names().join(', ') || '(none)'}.`);
}

/** A definition the namespace refused: 400 with a pointer into the body for every problem (409 for a name already defined). */
function refused(err: unknown, at = ''): never {
  if (!(err instanceof DefinitionError)) throw err;
  const details: ErrorDetail[] = err.problems.map((p) => ({
    location: 'body',
    pointer: `${at}${p.pointer}`,
    type: err.kind === 'invalid' ? 'scenario_invalid' : err.kind === 'exists' ? 'scenario_exists' : 'too_many_scenarios',
    message: p.message,
  }));
  const message = `The scenario cannot be defined: ${details.map((d) => `${d.pointer || '/'}: ${d.message}`).join('; ')}.`;
  if (err.kind === 'exists') throw new ApiError(409, 'duplicate_record', message, details);
  throw ApiError.badRequest(message, details.slice(0, 50));
}

export const scenarioHandlers: AdminHandlerMap = {
  listScenarios(ctx) {
    const state = stateOf(ctx);
    const items = state.names().map((name) => summaryOf(state, ctx.deps.scenarios, state.get(name) as Scenario));
    return { body: { items } };
  },

  getScenario(ctx) {
    return { body: detailOf(ctx, scenarioNamed(ctx, ctx.params.name)) };
  },

  createScenario(ctx) {
    try {
      const { scenario } = stateOf(ctx).define(ctx.body, false);
      return { status: 201, body: detailOf(ctx, scenario) };
    } catch (err) {
      refused(err);
    }
  },

  putScenario(ctx) {
    const { params, body } = ctx;
    if (body.name !== params.name) {
      throw ApiError.badRequest(`The body names scenario '${String(body.name).slice(0, 64)}' but the path names '${params.name}'; make them the same.`, [
        { location: 'body', pointer: '/name', type: 'name_mismatch', message: `Use "name": "${params.name}".` },
      ]);
    }
    try {
      const { scenario, created } = stateOf(ctx).define(body, true);
      return { status: created ? 201 : 200, body: detailOf(ctx, scenario) };
    } catch (err) {
      refused(err);
    }
  },

  deleteScenario(ctx) {
    const name: string = ctx.params.name;
    const state = stateOf(ctx);
    if (state.undefine(name)) return { status: 204 };
    const file = scenarioNamed(ctx, name); // 404 when not known at all
    throw ApiError.badRequest(
      `Scenario '${name}' comes from ${file.file}, not from this namespace: only scenarios defined at run time (POST /_sandbox/scenarios) can be deleted. To change it for this namespace, PUT /_sandbox/scenarios/${name} defines one that replaces it here.`,
    );
  },

  getActiveScenarios(ctx) {
    return { body: activeBody(stateOf(ctx)) };
  },

  setActiveScenarios(ctx) {
    const { ns, body } = ctx;
    const state = stateOf(ctx);
    const names: string[] = body.scenarios;
    checkScenarioNames(state, names, { location: 'body', pointer: '/scenarios' });
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
    state.activate(names, merchantAccountId, { ttlSeconds: body.ttl ?? null, maxCalls: body.max_calls ?? null });
    return { body: activeBody(state) };
  },

  clearActiveScenarios(ctx) {
    stateOf(ctx).clear();
    return { status: 204 };
  },
};
