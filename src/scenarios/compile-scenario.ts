// One scenario, as written in a file or sent to the control API, checked and compiled: the schema
// (scenario-schema.ts), then what the schema cannot say: one action per step, shorthands turned
// into steps, the operations it names (and those match.method / match.path leave) exist in
// openapi.json, every status it answers is one the operation declares or 429 / 5xx (which may come
// on any operation), codes are the reference's, regular expressions compile, retry_after goes with a
// 429 or 503, and no condition can never hold (a JSON pointer with a bad escape, a body condition on
// an operation that takes no body). Every problem is given with a JSON pointer into what was written.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { checkPlan, DEFAULT_LIFECYCLE, type LifecyclePlan, OPERATIONS_TAKING_A_LIFECYCLE } from '../resources/reports/lifecycle.js';
import type { Operation, SpecIndex } from '../spec/operations.js';
import { keyProblem } from '../spec/schema-compiler.js';
import type { ReportExecutionStatus } from '../store/records.js';
import { checkMatch, testsBody } from './check-match.js';
import { durationMs } from './duration.js';
import { patternMatchesTemplate } from './path-pattern.js';
import { retryAfterNames } from './respond.js';
import { SCENARIO_FILE_SCHEMA } from './scenario-schema.js';
import { shorthandSteps, topLevelAction } from './shorthand.js';
import { injectableEverywhere, type MatchSpec, type Scenario, type ScenarioSource, type Step, type StepAction } from './types.js';
import { checkSteeringReach, compileSteering, operationsAnnouncingEvents } from './webhook-steering.js';

export interface Problem {
  /** JSON pointer into the scenario as written ('' for the whole of it). */
  pointer: string;
  message: string;
}

export interface CompileContext {
  spec: SpecIndex;
  source: ScenarioSource;
  /** The file it comes from, as shown in messages; null when defined at run time. */
  file: string | null;
}

const ACTIONS = ['respond', 'override', 'merge', 'drop', 'pass', 'lose_answer', 'random'] as const;
/** The statuses whose Retry-After tells a client when to try again (RFC 9110 section 10.2.3; 3xx are not answered). */
const RETRY_AFTER_STATUSES = [429, 503];
/** Headers that describe the connection or the body's framing: a scenario may not set them. */
const RESERVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'trailer', 'te']);
/** How long each state lasts when a scenario gives a path but no durations. */
const DEFAULT_STATE_MS: Partial<Record<ReportExecutionStatus, number>> = { pending: 5_000, dispatched: 5_000, processing: 20_000 };

let schemaValidator: ValidateFunction | undefined;

/**
 * Compiled on first use (about 80 ms): a start from the catalog the build checked (catalog-cache.ts)
 * checks no scenario. validateSchema off: the schema is ours and fixed; checking it against the
 * meta-schema would cost about 50 ms more.
 */
function schemaErrors(doc: unknown): ErrorObject[] {
  schemaValidator ??= new Ajv2020({ allErrors: true, strict: false, validateSchema: false }).compile(SCENARIO_FILE_SCHEMA as object);
  return schemaValidator(doc) ? [] : (schemaValidator.errors ?? []);
}

/** The scenario, or null with the problems found (at least one). */
export function compileScenario(doc: unknown, ctx: CompileContext): { scenario: Scenario | null; problems: Problem[] } {
  const problems: Problem[] = [];
  const errors = schemaErrors(doc);
  if (errors.length) return { scenario: null, problems: schemaProblems(errors) };
  const written = doc as Record<string, any>;
  const at = (pointer: string, message: string) => problems.push({ pointer, message });
  const webhooks = written.webhooks ? compileSteering(written.name, written.webhooks) : null;
  const steps = stepsOf(written, at);
  // Steering deliveries alone: the requests it matches pass, their events' deliveries steered.
  const steeringOnly = webhooks !== null && !steps.length && !written.steps && !topLevelAction(written);
  if (steeringOnly) steps.push({ pass: true, times: 1 });
  if (written.steps) {
    steps.forEach((step, i) => {
      checkActions(step, `/steps/${i}`, at);
    });
  } else {
    const action = topLevelAction(written);
    if (action) checkActions({ ...action, times: 1 }, '', at);
  }
  const match: MatchSpec | null = written.match ?? null;
  if (match) checkMatch(match, at);
  const unnamed = written.operations === undefined && !match?.method && !match?.path;
  if (steps.length && unnamed && !steeringOnly) {
    at('/operations', 'name the operations the steps apply to: operationIds, "METHOD /path", or "*" for every operation that can answer what the steps give');
  }
  const pointerOf = (i: number, inRandom: boolean) => (written.steps ? `/steps/${i}` : '') + (inRandom ? (written.steps ? '/random' : '') : '');
  checkCodes(steps, ctx.spec, pointerOf, at);
  const named = written.operations ?? (steeringOnly && unnamed ? operationsAnnouncingEvents(ctx.spec) : '*');
  const resolved = steps.length ? resolveOperations(named, match, steps, ctx.spec, pointerOf, at) : [];
  const operations = webhooks && resolved.length ? checkSteeringReach(resolved, { steeringOnly, named: written.operations, steps }, ctx.spec, at) : resolved;
  const reportExecution = written.report_execution ? compilePlan(written.report_execution, at) : null;
  if (!steps.length && !reportExecution)
    at('', 'the scenario does nothing: give steps, an action (respond, drop, delay_ms, ...) at the top level, report_execution or webhooks');
  if (problems.length) return { scenario: null, problems };
  return {
    scenario: {
      name: written.name,
      description: written.description,
      source: ctx.source,
      file: ctx.file,
      operations: new Set(operations.map((o) => o.id)),
      steps,
      match,
      reportExecution,
      webhooks,
      seed: written.seed ?? 0,
      definition: doc,
    },
    problems,
  };
}

/** The operations a scenario can apply to: those its steps answer, and those whose report executions its lifecycle shapes. */
export function operationsApplying(scenario: Scenario): string[] {
  const ids = new Set(scenario.operations);
  if (scenario.reportExecution) for (const id of OPERATIONS_TAKING_A_LIFECYCLE) ids.add(id);
  return [...ids].sort();
}

/** Whether selecting the scenario can change what the operation does. */
export function appliesTo(scenario: Scenario, operationId: string): boolean {
  return scenario.operations.has(operationId) || (scenario.reportExecution !== null && OPERATIONS_TAKING_A_LIFECYCLE.includes(operationId));
}

/** The steps as written, or what the shorthands mean. */
function stepsOf(written: Record<string, any>, at: (p: string, m: string) => void): Step[] {
  const action = topLevelAction(written);
  const shorthand = (['calls', 'after', 'times', 'probability'] as const).filter((key) => written[key] !== undefined);
  if (written.steps) {
    if (action) at('/steps', `give steps or one action at the top level (found ${Object.keys(action).join(', ')}), not both`);
    if (shorthand.length) at(`/${shorthand[0]}`, `${shorthand.join(', ')} go with an action at the top level; in steps, say it with times and pass steps`);
    return written.steps.map((s: Step): Step => ({ ...s, times: s.times ?? 1 }));
  }
  if (!action) {
    if (shorthand.length) at(`/${shorthand[0]}`, `${shorthand[0]} needs an action at the top level: respond, override, merge, drop, lose_answer or delay_ms`);
    return [];
  }
  if (written.calls && (written.after !== undefined || written.times !== undefined)) {
    at('/calls', 'give calls, or after and times, not both');
  }
  return shorthandSteps(action, written);
}

/** Ajv's errors with their pointer, leaving out the generic if/then echoes. */
function schemaProblems(errors: ErrorObject[]): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const e of errors) {
    // A key refused by propertyNames comes twice: the rule it broke (with propertyName), then a generic echo.
    if (e.keyword === 'if' || e.keyword === 'propertyNames') continue;
    const refusedKey = keyProblem(e);
    const problem = refusedKey ? { pointer: refusedKey.pointer, message: refusedKey.why } : { pointer: e.instancePath, message: schemaMessage(e) };
    const key = `${problem.pointer}\n${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function schemaMessage(e: ErrorObject): string {
  if (e.keyword === 'additionalProperties') return `unknown property '${(e.params as { additionalProperty: string }).additionalProperty}'`;
  if (e.keyword === 'enum') return `${e.message}: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  if (e.keyword === 'const') return `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
  return e.message ?? 'is invalid';
}

function checkActions(step: Step, pointer: string, at: (p: string, m: string) => void): void {
  checkAction(step, pointer, at);
  const used = ACTIONS.filter((a) => (step as any)[a] !== undefined);
  if (used.length > 1) at(pointer, `a step does one thing: use one of ${ACTIONS.join(', ')} (found ${used.join(' and ')})`);
  if (used.length === 0 && step.delay_ms === undefined && step.headers === undefined)
    at(pointer, 'the step does nothing: give respond, override, merge, drop, pass, lose_answer, random or delay_ms');
  if (step.random) {
    checkAction(step.random, `${pointer}/random`, at);
    const inner = ACTIONS.filter((a) => a !== 'random' && (step.random as any)[a] !== undefined);
    if (inner.length > 1) at(`${pointer}/random`, `a random step does one thing when it hits: found ${inner.join(' and ')}`);
    if (inner.length === 0 && step.random.delay_ms === undefined)
      at(`${pointer}/random`, 'say what happens when it hits: respond, override, merge, drop, lose_answer or delay_ms');
  }
}

/** What the schema cannot check within one action. */
function checkAction(action: StepAction, pointer: string, at: (p: string, m: string) => void): void {
  const delay = action.delay_ms;
  if (typeof delay === 'object' && delay.min > delay.max) at(`${pointer}/delay_ms`, `min (${delay.min}) is more than max (${delay.max})`);
  if (action.lose_answer?.status !== undefined && action.lose_answer.drop) at(`${pointer}/lose_answer`, 'give a status or drop, not both');
  const respond = action.respond;
  if (respond?.retry_after !== undefined && !RETRY_AFTER_STATUSES.includes(respond.status)) {
    at(
      `${pointer}/respond/retry_after`,
      `retry_after goes with a 429 or 503 answer, not ${respond.status}: leave it out (a header of your own goes in respond.headers)`,
    );
  }
  checkRetryAfter(action, pointer, at);
  for (const [where, headers] of [
    ['headers', action.headers],
    ['respond/headers', action.respond?.headers],
  ] as const) {
    for (const name of Object.keys(headers ?? {})) {
      if (RESERVED_HEADERS.has(name.toLowerCase())) at(`${pointer}/${where}/${name}`, `${name} frames the answer on the connection; a scenario cannot set it`);
    }
  }
}

/**
 * One Retry-After per answer: respond.retry_after, a Retry-After in respond.headers and one in the
 * step's headers (any case) would each be sent, as two values or two headers. A header the tester
 * gives alone is sent as it is (respond.ts gives a 429 its default of 1 only when none is given).
 */
function checkRetryAfter(action: StepAction, pointer: string, at: (p: string, m: string) => void): void {
  const given = [
    action.respond?.retry_after !== undefined ? 'respond.retry_after' : null,
    ...retryAfterNames(action.respond?.headers).map((name) => `respond.headers.${name}`),
    ...retryAfterNames(action.headers).map((name) => `headers.${name}`),
  ].filter((where): where is string => where !== null);
  if (given.length > 1) {
    at(pointer, `the answer would carry ${given.length} Retry-After values (${given.join(', ')}): give one of them (retry_after takes seconds)`);
  }
}

/** Every action of the steps with its pointer (random hits included). */
function actionsOf(steps: Step[], pointerOf: (i: number, inRandom: boolean) => string): Array<[string, StepAction]> {
  return steps.flatMap(
    (s, i): Array<[string, StepAction]> => [[pointerOf(i, false), s], ...(s.random ? [[pointerOf(i, true), s.random] as [string, StepAction]] : [])],
  );
}

function resolveOperations(
  given: '*' | string[],
  match: MatchSpec | null,
  steps: Step[],
  spec: SpecIndex,
  pointerOf: (i: number, inRandom: boolean) => string,
  at: (p: string, m: string) => void,
): Operation[] {
  const actions = actionsOf(steps, pointerOf);
  const methods = match?.method === undefined ? null : new Set((typeof match.method === 'string' ? [match.method] : match.method).map((m) => m.toUpperCase()));
  const selected = (op: Operation) => (!methods || methods.has(op.method)) && (match?.path === undefined || patternMatchesTemplate(match.path, op.path));
  const body = testsBody(match);
  if (given === '*') {
    // Body conditions narrow "*" to the operations that take a body, as method and path do.
    const ops = spec.operations.filter((op) => selected(op) && (!body || op.hasBody) && actions.every(([, a]) => fitsOperation(op, a)));
    if (!ops.length)
      at(
        match?.method || match?.path || body ? '/match' : '/operations',
        `"*" matches no operation: none ${match ? `matches${body ? ', takes a request body' : ''} and ` : ''}can answer every status and body the steps give`,
      );
    return ops;
  }
  const ops: Operation[] = [];
  given.forEach((name, i) => {
    const op = findOperation(spec, name);
    if (!op) {
      const example = spec.operations[0];
      at(
        `/operations/${i}`,
        `'${name}' is not an operation of openapi.json; use an operationId (e.g. ${example?.id}) or "METHOD /path" (e.g. ${example?.method} ${example?.path})`,
      );
      return;
    }
    if (!selected(op)) {
      at(
        methods && !methods.has(op.method) ? '/match/method' : '/match/path',
        `operation ${op.id} (${op.method} ${op.path}) never matches: the scenario would never apply to it`,
      );
      return;
    }
    if (body && !op.hasBody) {
      at('/match/body', `operation ${op.id} (${op.method} ${op.path}) takes no request body: a condition on the body never tests anything there`);
      return;
    }
    checkAgainstOperation(op, actions, at);
    ops.push(op);
  });
  return ops;
}

export function findOperation(spec: SpecIndex, name: string): Operation | undefined {
  const byId = spec.byId.get(name);
  if (byId) return byId;
  const match = /^([A-Za-z]+)\s+(\/\S*)$/.exec(name.trim());
  return match ? spec.operations.find((o) => o.method === match[1].toUpperCase() && o.path === match[2]) : undefined;
}

/** A status the operation may answer with: one it declares, or 429 / 5xx, which infrastructure answers on any operation. */
export function canAnswerWith(op: Operation, status: number): boolean {
  return op.declaredStatuses.includes(status) || injectableEverywhere(status);
}

function fitsOperation(op: Operation, action: StepAction): boolean {
  if (action.respond && !canAnswerWith(op, action.respond.status)) return false;
  if ((action.override !== undefined || action.merge) && !op.successHasBody) return false;
  return true;
}

function checkAgainstOperation(op: Operation, actions: Array<[string, StepAction]>, at: (p: string, m: string) => void): void {
  for (const [pointer, action] of actions) {
    const status = action.respond?.status;
    if (status !== undefined && !canAnswerWith(op, status)) {
      at(
        `${pointer}/respond/status`,
        `${status} is not declared by operation ${op.id} (it declares ${op.declaredStatuses.join(', ')}; 429 and 5xx may be answered on any operation)`,
      );
    }
    const rewrite = action.override !== undefined ? 'override' : action.merge ? 'merge' : null;
    if (rewrite && !op.successHasBody)
      at(`${pointer}/${rewrite}`, `operation ${op.id} answers ${op.successStatus} without a body: there is nothing to ${rewrite}`);
  }
}

/** A respond `code` must be one of the error codes openapi.json lists (components.schemas.Error). */
function checkCodes(steps: Step[], spec: SpecIndex, pointerOf: (i: number, inRandom: boolean) => string, at: (p: string, m: string) => void): void {
  const known = (spec.doc.components?.schemas?.Error as { properties?: { code?: { enum?: string[] } } } | undefined)?.properties?.code?.enum;
  if (!known) return;
  for (const [pointer, action] of actionsOf(steps, pointerOf)) {
    const code = action.respond?.code;
    if (code !== undefined && !known.includes(code)) at(`${pointer}/respond/code`, `'${code}' is not an error code of openapi.json (${known.join(', ')})`);
  }
}

function compilePlan(raw: { path: ReportExecutionStatus[]; durations?: Array<number | string> }, at: (p: string, m: string) => void): LifecyclePlan {
  const durations = raw.durations ? raw.durations.map(durationMs) : raw.path.slice(0, -1).map((s) => DEFAULT_STATE_MS[s] ?? DEFAULT_LIFECYCLE.durations_ms[0]);
  const plan = { path: raw.path, durations_ms: durations };
  const problem = checkPlan(plan);
  if (problem) at(raw.durations ? '/report_execution/durations' : '/report_execution/path', problem);
  return plan;
}
