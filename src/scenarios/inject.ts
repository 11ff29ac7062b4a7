// Scenario injection, between authentication and validation: a request that selected scenarios
// (x-sandbox-scenario header, Prefer: code=NNN, or scenarios activated through the control API)
// may be answered with an error, delayed, dropped, or get its normal body rewritten.
import { ApiError } from '../errors/api-error.js';
import { type Call, CallSlot } from '../http/call.js';
import type { Step } from '../http/pipeline.js';
import { REQUEST_LIFECYCLE } from '../resources/reports/scheduler.js';
import type { Operation } from '../spec/operations.js';
import { answeringScenario, parseScenarioList, SCENARIO_HEADER, selectedLifecycle } from './match.js';
import { parsePrefer } from './prefer.js';
import { scenarioError } from './respond.js';
import { rewriteBody } from './rewrite.js';
import type { TakenStep } from './state.js';
import { SCENARIO_STATE } from './state.js';
import type { Scenario, ScenarioCatalog, StepAction } from './types.js';

/** A step that rewrites the normal answer (override / merge), applied after it. */
const REWRITE = new CallSlot<StepAction>('scenario rewrite');

export interface InjectDeps {
  scenarios: ScenarioCatalog;
  config: { seed: number };
}

export function injectScenario(deps: InjectDeps): Step {
  const catalog = deps.scenarios;
  return {
    name: 'scenario',
    requires: ['namespace', 'operation', 'principal'],
    before(call) {
      const operation = call.operation as Operation;
      const merchantAccountId = call.merchantAccountId as string;
      // Header values were checked by checkScenarioHeaders (before the operation was matched).
      const { code } = parsePrefer(call.header('prefer'));
      if (code !== null && code !== operation.successStatus) {
        call.scenario = `prefer:code=${code}`;
        throw scenarioError({ status: code }, { source: `Prefer: code=${code}`, operationId: operation.id, db: call.ns.store.collections, merchantAccountId });
      }

      const state = call.ns.part(SCENARIO_STATE);
      const header = call.header(SCENARIO_HEADER);
      const names = header === undefined ? state.activeFor(merchantAccountId) : parseScenarioList(header);
      const scenario = answeringScenario(catalog, names, operation.id);
      // Taken now, before any await: concurrent requests each get their own step.
      const taken = scenario ? state.take(merchantAccountId, scenario) : null;
      // The header's scenarios also decide the lifecycle of report executions made by this request.
      if (header !== undefined) call.set(REQUEST_LIFECYCLE, { merchantAccountId, plan: selectedLifecycle(catalog, names) });
      return scenario && taken ? applyStep(call, scenario, taken) : undefined;
    },
    after(call) {
      const action = call.get(REWRITE);
      if (action) return rewriteBody(call, action);
    },
  };
}

/** The step's action: a delay, an error answer, a dropped connection, or a rewrite of the normal answer (done after it). */
function applyStep(call: Call, scenario: Scenario, taken: TakenStep): Response | undefined | Promise<Response | undefined> {
  const { action } = taken;
  call.scenario = scenario.name;
  call.addResponseHeader(SCENARIO_HEADER, scenario.name);
  const act = (): Response | undefined => {
    if (action.respond) {
      throw scenarioError(action.respond, {
        source: `scenario ${scenario.name}`,
        operationId: (call.operation as Operation).id,
        db: call.ns.store.collections,
        merchantAccountId: call.merchantAccountId as string,
      });
    }
    if (action.drop) return dropConnection(call, scenario.name);
    if (action.override !== undefined || action.merge !== undefined) call.set(REWRITE, action);
    return undefined;
  };
  if (!action.delay_ms) return act();
  return new Promise((resolve) => setTimeout(resolve, action.delay_ms)).then(act);
}

/**
 * Closes the client's TCP connection without an answer, as a crashed upstream or proxy would. Over
 * HTTP/2 only the request's stream is reset: the connection carries other requests.
 */
function dropConnection(call: Call, name: string): Response {
  if (!call.dropConnection()) {
    throw new ApiError(
      500,
      'server_error',
      `Scenario ${name} drops the connection, which needs a real HTTP server; this request has no socket (app.request() or fetch without @hono/node-server).`,
    );
  }
  // Nobody reads this answer; the journal records it as 444 (nginx's "closed without response").
  return new Response(null, { status: 444 as never });
}
