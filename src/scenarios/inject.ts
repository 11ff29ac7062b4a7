// Scenario injection, between authorization and validation: a request that selected scenarios
// (Prefer: code=NNN, the x-sandbox-scenario header, or scenarios activated through the control
// API) may be answered with an error, delayed, dropped, get its normal body rewritten, or run and
// have its answer lost. A request with none selected (most requests) costs two header lookups.
import { ApiError } from '../errors/api-error.js';
import type { Call } from '../http/call.js';
import type { Step } from '../http/pipeline.js';
import { noteOutsideContract } from '../journal/record-request.js';
import { REQUEST_LIFECYCLE } from '../resources/reports/lifecycle.js';
import type { Operation } from '../spec/operations.js';
import { afterAnswer, applyStep } from './apply-step.js';
import { appliesTo, operationsApplying } from './compile-scenario.js';
import { parseScenarioList, SCENARIO_HEADER, selectedLifecycle } from './match.js';
import { parsePrefer } from './prefer.js';
import { matcherOf, parseBodyForMatching } from './request-match.js';
import { scenarioError } from './respond.js';
import { SCENARIO_STATE, type ScenarioState, type Selected } from './state.js';

/** The body was not read (no scenario needed it yet). */
const NOT_READ = Symbol('body not read');

export function injectScenario(): Step {
  return {
    name: 'scenario',
    requires: ['namespace', 'operation', 'principal'],
    before(call) {
      const operation = call.operation as Operation;
      const merchantAccountId = call.merchantAccountId as string;
      // Header values were checked by checkScenarioHeaders (before the operation was matched).
      const { code } = parsePrefer(call.header('prefer'));
      if (code !== null && code !== operation.successStatus) {
        const outsideContract = !operation.declaredStatuses.includes(code);
        call.scenario = `prefer:code=${code}`;
        call.addResponseHeader(SCENARIO_HEADER, outsideContract ? `${call.scenario}; outside-contract` : call.scenario);
        if (outsideContract) noteOutsideContract(call);
        const source = `Prefer: code=${code}`;
        throw scenarioError({ status: code }, { source, operation, db: call.ns.store.collections, merchantAccountId, outsideContract });
      }

      const state = call.ns.part(SCENARIO_STATE);
      const header = call.header(SCENARIO_HEADER);
      let selected: readonly Selected[];
      if (header === undefined) {
        if (!state.anyActive) return undefined;
        selected = state.activeFor(merchantAccountId);
      } else {
        const names = parseScenarioList(header);
        selected = selectedByHeader(state, names, operation);
        // The header's scenarios also decide the lifecycle of report executions made by this request.
        call.set(REQUEST_LIFECYCLE, { merchantAccountId, plan: selectedLifecycle(state, names) });
      }
      return takeStep(call, state, selected, 0, NOT_READ);
    },
    after: afterAnswer,
  };
}

/**
 * The first selected scenario that answers this operation and whose conditions hold takes its next
 * step (synchronously, so concurrent requests each get their own). Conditions on the body read it
 * first, then carry on from that scenario.
 */
function takeStep(call: Call, state: ScenarioState, selected: readonly Selected[], from: number, body: unknown): ReturnType<NonNullable<Step['before']>> {
  const operation = call.operation as Operation;
  for (let i = from; i < selected.length; i++) {
    const { scenario, activation } = selected[i];
    if (!scenario.steps.length || !scenario.operations.has(operation.id)) continue;
    const matcher = matcherOf(scenario);
    if (matcher) {
      if (matcher.needsBody && body === NOT_READ && operation.hasBody) {
        return call.readBody().then((text) => {
          call.bodyText = text; // validation and the journal use it as it is
          return takeStep(call, state, selected, i, parseBodyForMatching(text));
        });
      }
      if (!matcher.matches(call, body === NOT_READ ? undefined : body)) continue;
    }
    const taken = state.take(call.merchantAccountId as string, scenario, activation);
    if (taken) return applyStep(call, scenario, taken);
  }
  return undefined;
}

/**
 * The scenarios the header names. None of them able to apply to the operation is a 400 naming the
 * operations each applies to: a scenario is never skipped without a word.
 */
function selectedByHeader(state: ScenarioState, names: string[], operation: Operation): Selected[] {
  const selected: Selected[] = [];
  let applies = names.length === 0; // an empty header selects none, on purpose
  for (const name of names) {
    const scenario = state.get(name);
    if (!scenario) continue; // deleted since the header was checked
    applies ||= appliesTo(scenario, operation.id);
    selected.push({ scenario, activation: null });
  }
  if (applies) return selected;
  const covers = selected.map(({ scenario }) => {
    const ids = operationsApplying(scenario);
    return `'${scenario.name}' applies to ${ids.length ? ids.join(', ') : 'no operation'}`;
  });
  const what = selected.length === 1 ? `Scenario '${selected[0].scenario.name}' does not apply` : 'None of the scenarios in x-sandbox-scenario applies';
  throw new ApiError(
    400,
    'bad_request',
    `${what} to operation ${operation.id} (${operation.method} ${operation.path}): ${covers.join('; ')}.`,
    [
      {
        location: 'header',
        pointer: `/${SCENARIO_HEADER}`,
        type: 'scenario_not_applicable',
        message: `Name a scenario that applies to ${operation.id}, or send this request without ${SCENARIO_HEADER}.`,
      },
    ],
    { outsideContract: true },
  );
}
