// Reads the scenario folder at boot: every .yaml, .yml and .json file is parsed, checked against
// the scenario-file schema and against openapi.json (operations and statuses it names must exist),
// and compiled. Any problem fails start-up with one line per problem: file, path inside it, what.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { checkPlan, DEFAULT_LIFECYCLE, type LifecyclePlan } from '../resources/reports/lifecycle.js';
import { packageRoot } from '../spec/load-spec.js';
import type { Operation, SpecIndex } from '../spec/operations.js';
import type { ReportExecutionStatus } from '../store/records.js';
import { durationMs } from './duration.js';
import { SCENARIO_FILE_SCHEMA } from './scenario-schema.js';
import type { RespondSpec, Scenario, ScenarioCatalog, Step, StepAction } from './types.js';

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const ACTIONS = ['respond', 'override', 'merge', 'drop', 'pass', 'random'] as const;
/** How long each state lasts when a scenario gives a path but no durations. */
const DEFAULT_STATE_MS: Partial<Record<ReportExecutionStatus, number>> = { pending: 5_000, dispatched: 5_000, processing: 20_000 };

let fileValidator: ValidateFunction | undefined;

/**
 * Compiled on first use (about 80 ms): a start from the catalog the build checked (catalog-cache.ts)
 * reads no scenario file. validateSchema off: the schema is ours and fixed; checking it against the
 * meta-schema would cost about 50 ms more.
 */
function fileSchemaErrors(doc: unknown): ErrorObject[] {
  fileValidator ??= new Ajv2020({ allErrors: true, strict: false, validateSchema: false }).compile(SCENARIO_FILE_SCHEMA as object);
  return fileValidator(doc) ? [] : (fileValidator.errors ?? []);
}

export class ScenarioFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? `invalid scenario file: ${problems[0]}` : `invalid scenario files:\n  ${problems.join('\n  ')}`);
  }
}

/** The built-in folder when `dir` is null. */
export function scenariosFolder(dir: string | null): string {
  return dir ?? join(packageRoot(), 'scenarios');
}

/** The scenario files of a folder (.yaml, .yml, .json), sorted by name. */
export function scenarioFiles(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((f) => EXTENSIONS.has(extname(f).toLowerCase()) && statSync(join(folder, f)).isFile())
      .sort();
  } catch (err) {
    throw new Error(`cannot read the scenarios folder ${folder}: ${(err as Error).message}`);
  }
}

export function loadScenarios(dir: string | null, spec: SpecIndex): ScenarioCatalog {
  const folder = resolve(scenariosFolder(dir));
  const entries = scenarioFiles(folder);
  // Messages name files as a person would type them: relative to the working folder when inside it.
  const shown = (file: string) => {
    if (dir === null) return `scenarios/${file}`;
    const rel = relative(process.cwd(), join(folder, file));
    return rel.startsWith('..') || isAbsolute(rel) ? join(folder, file) : rel;
  };
  const problems: string[] = [];
  const byName = new Map<string, Scenario>();
  for (const file of entries) {
    const label = shown(file);
    const fileProblems: string[] = [];
    const scenario = compileFile(label, readFileSync(join(folder, file), 'utf8'), extname(file).toLowerCase(), spec, fileProblems);
    problems.push(...fileProblems);
    if (!scenario) continue;
    const other = byName.get(scenario.name);
    if (other) problems.push(`${label}: /name: '${scenario.name}' is also the name of ${other.file}; scenario names must be unique`);
    else byName.set(scenario.name, scenario);
  }
  if (problems.length) throw new ScenarioFileError(problems);
  return { byName };
}

function compileFile(label: string, text: string, ext: string, spec: SpecIndex, problems: string[]): Scenario | null {
  let doc: any;
  try {
    doc = ext === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    problems.push(`${label}: is not valid ${ext === '.json' ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
    return null;
  }
  const schemaErrors = fileSchemaErrors(doc);
  if (schemaErrors.length) {
    problems.push(...schemaProblems(schemaErrors).map((p) => `${label}: ${p}`));
    return null;
  }
  const at = (pointer: string, message: string) => problems.push(`${label}: ${pointer}: ${message}`);
  const steps: Step[] = (doc.steps ?? []).map((s: any): Step => ({ ...s, times: s.times ?? 1 }));
  steps.forEach((step, i) => {
    checkActions(step, `/steps/${i}`, at);
  });
  if (steps.length && doc.operations === undefined) {
    at('/operations', 'name the operations the steps apply to: operationIds, "METHOD /path", or "*" for every operation that declares the statuses used');
  }
  checkCodes(steps, spec, at);
  const operations = resolveOperations(doc.operations, steps, spec, at);
  for (const op of operations) checkAgainstOperation(op, steps, at, doc.operations === '*');
  const reportExecution = doc.report_execution ? compilePlan(doc.report_execution, at) : null;
  if (problems.length) return null;
  return {
    name: doc.name,
    description: doc.description,
    file: label,
    operations: new Set(operations.map((o) => o.id)),
    steps,
    reportExecution,
    seed: doc.seed ?? 0,
  };
}

/** Ajv's errors as "pointer: message", leaving out the generic if/then echoes. */
function schemaProblems(errors: ErrorObject[]): string[] {
  const kept = errors.filter((e) => e.keyword !== 'if');
  return [
    ...new Set(
      kept.map((e) => {
        const where = e.instancePath || '/';
        if (e.keyword === 'additionalProperties') return `${where}: unknown property '${(e.params as { additionalProperty: string }).additionalProperty}'`;
        if (e.keyword === 'enum') return `${where}: ${e.message}: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
        if (e.keyword === 'const') return `${where}: must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
        return `${where}: ${e.message}`;
      }),
    ),
  ];
}

function checkActions(step: Step, pointer: string, at: (p: string, m: string) => void): void {
  const used = ACTIONS.filter((a) => (step as any)[a] !== undefined);
  if (used.length > 1) at(pointer, `a step does one thing: use one of ${ACTIONS.join(', ')} (found ${used.join(' and ')})`);
  if (used.length === 0 && step.delay_ms === undefined) at(pointer, 'the step does nothing: give respond, override, merge, drop, pass, random or delay_ms');
  if (step.random) {
    const inner = ACTIONS.filter((a) => a !== 'random' && (step.random as any)[a] !== undefined);
    if (inner.length > 1) at(`${pointer}/random`, `a random step does one thing when it hits: found ${inner.join(' and ')}`);
    if (inner.length === 0 && step.random.delay_ms === undefined)
      at(`${pointer}/random`, 'say what happens when it hits: respond, override, merge, drop or delay_ms');
  }
}

/** Every action of the steps with its pointer (random hits included). */
function actionsOf(steps: Step[]): Array<[string, StepAction]> {
  return steps.flatMap(
    (s, i): Array<[string, StepAction]> => [[`/steps/${i}`, s], ...(s.random ? [[`/steps/${i}/random`, s.random] as [string, StepAction]] : [])],
  );
}

function resolveOperations(given: unknown, steps: Step[], spec: SpecIndex, at: (p: string, m: string) => void): Operation[] {
  if (given === undefined) return [];
  if (given === '*') {
    const ops = spec.operations.filter((op) => actionsOf(steps).every(([, a]) => fitsOperation(op, a)));
    if (!ops.length) at('/operations', `"*" matches no operation: none declares every status and body the steps use`);
    return ops;
  }
  const ops: Operation[] = [];
  (given as string[]).forEach((name, i) => {
    const op = findOperation(spec, name);
    if (op) ops.push(op);
    else
      at(
        `/operations/${i}`,
        `'${name}' is not an operation of openapi.json; use an operationId (e.g. ${spec.operations[0]?.id}) or "METHOD /path" (e.g. ${spec.operations[0]?.method} ${spec.operations[0]?.path})`,
      );
  });
  return ops;
}

export function findOperation(spec: SpecIndex, name: string): Operation | undefined {
  const byId = spec.byId.get(name);
  if (byId) return byId;
  const match = /^([A-Za-z]+)\s+(\/\S*)$/.exec(name.trim());
  return match ? spec.operations.find((o) => o.method === match[1].toUpperCase() && o.path === match[2]) : undefined;
}

function fitsOperation(op: Operation, action: StepAction): boolean {
  if (action.respond && !op.declaredStatuses.includes(action.respond.status)) return false;
  if ((action.override !== undefined || action.merge) && !op.successHasBody) return false;
  return true;
}

function checkAgainstOperation(op: Operation, steps: Step[], at: (p: string, m: string) => void, wildcard: boolean): void {
  if (wildcard) return; // "*" kept only the operations that fit
  for (const [pointer, action] of actionsOf(steps)) {
    const respond: RespondSpec | undefined = action.respond;
    if (respond && !op.declaredStatuses.includes(respond.status)) {
      at(`${pointer}/respond/status`, `${respond.status} is not declared by operation ${op.id} (it declares ${op.declaredStatuses.join(', ')})`);
    }
    const rewrite = action.override !== undefined ? 'override' : action.merge ? 'merge' : null;
    if (rewrite && !op.successHasBody)
      at(`${pointer}/${rewrite}`, `operation ${op.id} answers ${op.successStatus} without a body: there is nothing to ${rewrite}`);
  }
}

/** A respond `code` must be one of the error codes openapi.json lists (components.schemas.Error). */
function checkCodes(steps: Step[], spec: SpecIndex, at: (p: string, m: string) => void): void {
  const known = (spec.doc.components?.schemas?.Error as { properties?: { code?: { enum?: string[] } } } | undefined)?.properties?.code?.enum;
  if (!known) return;
  for (const [pointer, action] of actionsOf(steps)) {
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
