// What a scenario's step does to its request: after its delay, answer with an error (the
// reference's body, or one given), drop the connection, or let the operation run and then rewrite
// its answer or lose it ("done, but the answer is lost": the change is kept, the client gets a 5xx
// or a closed connection). Every answer a scenario shaped says so in x-sandbox-scenario. A scenario
// with `webhooks` also steers the deliveries of the events the request causes.
import { ApiError, errorBody } from '../errors/api-error.js';
import { type Call, CallSlot } from '../http/call.js';
import { DELIVERY_STEERING } from '../http/handler.js';
import { jsonResponse, sentBody } from '../http/json-response.js';
import { noteLostAnswer, noteOutsideContract } from '../journal/record-request.js';
import type { Operation } from '../spec/operations.js';
import { SCENARIO_HEADER } from './match.js';
import { scenarioError } from './respond.js';
import { rewriteBody } from './rewrite.js';
import type { TakenStep } from './state.js';
import type { LoseAnswerSpec, RespondSpec, Scenario, StepAction } from './types.js';

/** A step that acts once the operation has answered (rewrite or lose the answer). */
const AFTER_ANSWER = new CallSlot<{ scenario: Scenario; action: StepAction }>('scenario after answer');

/** The status the client gets when a lost answer names none. */
const LOST_ANSWER_STATUS = 504;

/** The step's action: now, or after its delay (real time, on the sandbox's timers). */
export function applyStep(call: Call, scenario: Scenario, taken: TakenStep): Response | undefined | Promise<Response | undefined> {
  const { action, delayMs } = taken;
  const operation = call.operation as Operation;
  const outsideContract = action.respond !== undefined && !operation.declaredStatuses.includes(action.respond.status);
  call.scenario = scenario.name;
  call.addResponseHeader(SCENARIO_HEADER, outsideContract ? `${scenario.name}; outside-contract` : scenario.name);
  if (scenario.webhooks) call.set(DELIVERY_STEERING, scenario.webhooks); // the handler announces its events with it
  if (outsideContract) noteOutsideContract(call);
  if (action.headers) for (const [name, value] of Object.entries(action.headers)) call.addResponseHeader(name, value);
  const act = (): Response | undefined => {
    if (action.respond) return respond(call, scenario, action.respond, action.headers, outsideContract);
    if (action.drop) return dropConnection(call, scenario.name);
    if (action.lose_answer || action.override !== undefined || action.merge !== undefined) call.set(AFTER_ANSWER, { scenario, action });
    return undefined;
  };
  if (!delayMs) return act();
  return new Promise((resolve) => setTimeout(resolve, delayMs)).then(act);
}

/** The `after` part of the scenario step: rewrites or loses the answer the operation gave. */
export function afterAnswer(call: Call): void | Promise<void> {
  const pending = call.get(AFTER_ANSWER);
  if (!pending) return;
  if (pending.action.lose_answer) return loseAnswer(call, pending.scenario, pending.action.lose_answer);
  return rewriteBody(call, pending.action);
}

function respond(call: Call, scenario: Scenario, spec: RespondSpec, stepHeaders: Record<string, string> | undefined, outsideContract: boolean): Response {
  const error = scenarioError(
    spec,
    {
      source: `scenario ${scenario.name}`,
      operation: call.operation as Operation,
      db: call.ns.store.collections,
      merchantAccountId: call.merchantAccountId as string,
      outsideContract,
    },
    stepHeaders,
  );
  // A body given as it is: sent as written, on purpose not checked against openapi.json.
  if (spec.body !== undefined) return jsonResponse(call, spec.body, error.status, error.extra.headers);
  throw error;
}

/**
 * The operation ran (its change is kept, and with --data-file on disk before the client sees
 * anything); the client gets a 5xx or a closed connection instead of its answer. An operation that
 * failed changed nothing: its answer goes out as it is.
 */
async function loseAnswer(call: Call, scenario: Scenario, spec: LoseAnswerSpec): Promise<void> {
  const answered = call.res;
  if (answered.status < 200 || answered.status > 299) return;
  await call.ns.store.sync();
  noteLostAnswer(call, answered.status, sentBody(call) ?? '');
  call.addResponseHeader(SCENARIO_HEADER, `${scenario.name}; answer-lost=${answered.status}`);
  if (spec.drop) {
    try {
      call.replaceResponse(dropConnection(call, scenario.name));
    } catch (err) {
      answerWith(call, err as ApiError);
    }
    return;
  }
  const operation = call.operation as Operation;
  const status = spec.status ?? LOST_ANSWER_STATUS;
  const outsideContract = !operation.declaredStatuses.includes(status);
  if (outsideContract) noteOutsideContract(call);
  const error = scenarioError(
    { status },
    { source: `scenario ${scenario.name}`, operation, db: call.ns.store.collections, merchantAccountId: call.merchantAccountId as string },
  );
  answerWith(call, error);
}

/** An error answer in place of the one made (the operation's own, which the client never gets). */
function answerWith(call: Call, error: ApiError): void {
  call.replaceResponse(jsonResponse(call, errorBody(error), error.status, error.extra.headers));
}

/** Closes the client's TCP connection without an answer, as a crashed upstream or proxy would. */
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
