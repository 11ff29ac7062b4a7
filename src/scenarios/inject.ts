// Scenario injection, between authentication and validation: a request that selected scenarios
// (x-sandbox-scenario header, Prefer: code=NNN, or scenarios activated through the control API)
// may be answered with an error, delayed, dropped, or get its normal body rewritten.
import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { ApiError } from '../http/api-error.js';
import type { SandboxEnv } from '../http/env.js';
import { withRequestLifecycle } from '../resources/reports/scheduler.js';
import { SCENARIO_HEADER, answeringScenario, parseScenarioList, selectedLifecycle } from './match.js';
import { parsePrefer } from './prefer.js';
import { scenarioError } from './respond.js';
import { rewriteBody } from './rewrite.js';
import { scenarioStateOf } from './state.js';
import type { Scenario, ScenarioCatalog } from './types.js';
import type { TakenStep } from './state.js';
import { requestHeader } from '../http/headers.js';

export interface InjectDeps {
  scenarios: ScenarioCatalog;
  config: { seed: number };
}

export function injectScenario(deps: InjectDeps): MiddlewareHandler<SandboxEnv> {
  const catalog = deps.scenarios;
  return async function applyScenario(c, next) {
    const operation = c.get('operation');
    const merchantAccountId = c.get('merchantAccountId');
    // Header values were checked by checkScenarioHeaders (before the operation was matched).
    const { code } = parsePrefer(requestHeader(c, 'prefer'));
    if (code !== null && code !== operation.successStatus) {
      c.set('scenario', `prefer:code=${code}`);
      throw scenarioError({ status: code }, { source: `Prefer: code=${code}`, operationId: operation.id, db: c.get('ns').store.collections, merchantAccountId });
    }

    const state = scenarioStateOf(c.get('ns'), catalog, deps.config.seed);
    const header = requestHeader(c, SCENARIO_HEADER);
    const names = header === undefined ? state.activeFor(merchantAccountId) : parseScenarioList(header);
    const scenario = answeringScenario(catalog, names, operation.id);
    // Taken now, before any await: concurrent requests each get their own step.
    const taken = scenario ? state.take(merchantAccountId, scenario) : null;
    const run = () => (scenario && taken ? applyStep(c, next, scenario, taken) : next());
    // The header's scenarios also decide the lifecycle of report executions made by this request.
    if (header !== undefined) return withRequestLifecycle(merchantAccountId, selectedLifecycle(catalog, names), run);
    return run();
  };
}

async function applyStep(c: Context<SandboxEnv>, next: Next, scenario: Scenario, taken: TakenStep): Promise<Response | void> {
  const { action } = taken;
  c.set('scenario', scenario.name);
  c.set('responseHeaders', { [SCENARIO_HEADER]: scenario.name });
  if (action.delay_ms) await new Promise((resolve) => setTimeout(resolve, action.delay_ms));
  if (action.respond) {
    throw scenarioError(action.respond, {
      source: `scenario ${scenario.name}`, operationId: c.get('operation').id, db: c.get('ns').store.collections, merchantAccountId: c.get('merchantAccountId'),
    });
  }
  if (action.drop) return dropConnection(c, scenario.name);
  await next();
  if (action.override !== undefined || action.merge !== undefined) await rewriteBody(c, action);
}

/** Closes the client's TCP connection without an answer, as a crashed upstream or proxy would. */
function dropConnection(c: Context<SandboxEnv>, name: string): Response {
  const socket = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket;
  if (!socket) {
    throw new ApiError(500, 'server_error', `Scenario ${name} drops the connection, which needs a real HTTP server; this request has no socket (app.request() or fetch without @hono/node-server).`);
  }
  socket.destroy();
  // Nobody reads this answer; the journal records it as 444 (nginx's "closed without response").
  return c.body(null, 444 as never);
}
