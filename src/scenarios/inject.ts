// Scenario injection, between authentication and validation: a request that selected scenarios
// (x-sandbox-scenario header, Prefer: code=NNN, or scenarios activated through the control API)
// may be answered with an error, delayed, dropped, or get its normal body rewritten.
import { Http2ServerRequest, constants as http2 } from 'node:http2';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { ApiError } from '../http/api-error.js';
import type { SandboxEnv } from '../http/env.js';
import { requestHeader } from '../http/headers.js';
import type { Step } from '../http/pipeline.js';
import { answeringScenario, parseScenarioList, SCENARIO_HEADER, selectedLifecycle } from './match.js';
import { parsePrefer } from './prefer.js';
import { scenarioError } from './respond.js';
import { rewriteBody } from './rewrite.js';
import type { TakenStep } from './state.js';
import { scenarioStateOf } from './state.js';
import type { Scenario, ScenarioCatalog } from './types.js';

export interface InjectDeps {
  scenarios: ScenarioCatalog;
  config: { seed: number };
}

export function injectScenario(deps: InjectDeps): Step {
  const catalog = deps.scenarios;
  return {
    before(c) {
      const operation = c.get('operation');
      const merchantAccountId = c.get('merchantAccountId');
      // Header values were checked by checkScenarioHeaders (before the operation was matched).
      const { code } = parsePrefer(requestHeader(c, 'prefer'));
      if (code !== null && code !== operation.successStatus) {
        c.set('scenario', `prefer:code=${code}`);
        throw scenarioError(
          { status: code },
          { source: `Prefer: code=${code}`, operationId: operation.id, db: c.get('ns').store.collections, merchantAccountId },
        );
      }

      const state = scenarioStateOf(c.get('ns'), catalog, deps.config.seed);
      const header = requestHeader(c, SCENARIO_HEADER);
      const names = header === undefined ? state.activeFor(merchantAccountId) : parseScenarioList(header);
      const scenario = answeringScenario(catalog, names, operation.id);
      // Taken now, before any await: concurrent requests each get their own step.
      const taken = scenario ? state.take(merchantAccountId, scenario) : null;
      // The header's scenarios also decide the lifecycle of report executions made by this request.
      if (header !== undefined) c.set('requestLifecycle', { merchantAccountId, plan: selectedLifecycle(catalog, names) });
      return scenario && taken ? applyStep(c, scenario, taken) : undefined;
    },
    after(c) {
      const action = c.get('scenarioRewrite');
      if (action) return rewriteBody(c, action);
    },
  };
}

/** The step's action: a delay, an error answer, a dropped connection, or a rewrite of the normal answer (done after it). */
function applyStep(c: Context<SandboxEnv>, scenario: Scenario, taken: TakenStep): Response | undefined | Promise<Response | undefined> {
  const { action } = taken;
  c.set('scenario', scenario.name);
  c.set('responseHeaders', { [SCENARIO_HEADER]: scenario.name });
  const act = (): Response | undefined => {
    if (action.respond) {
      throw scenarioError(action.respond, {
        source: `scenario ${scenario.name}`,
        operationId: c.get('operation').id,
        db: c.get('ns').store.collections,
        merchantAccountId: c.get('merchantAccountId'),
      });
    }
    if (action.drop) return dropConnection(c, scenario.name);
    if (action.override !== undefined || action.merge !== undefined) c.set('scenarioRewrite', action);
    return undefined;
  };
  if (!action.delay_ms) return act();
  return new Promise((resolve) => setTimeout(resolve, action.delay_ms)).then(act);
}

/**
 * Closes the client's TCP connection without an answer, as a crashed upstream or proxy would. Over
 * HTTP/2 only the request's stream is reset (INTERNAL_ERROR): the connection carries other requests.
 */
function dropConnection(c: Context<SandboxEnv>, name: string): Response {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (incoming instanceof Http2ServerRequest) {
    incoming.stream.close(http2.NGHTTP2_INTERNAL_ERROR);
    return c.body(null, 444 as never);
  }
  const socket = incoming?.socket;
  if (!socket) {
    throw new ApiError(
      500,
      'server_error',
      `Scenario ${name} drops the connection, which needs a real HTTP server; this request has no socket (app.request() or fetch without @hono/node-server).`,
    );
  }
  socket.destroy();
  // Nobody reads this answer; the journal records it as 444 (nginx's "closed without response").
  return c.body(null, 444 as never);
}
