// Generated bad input for every operation of openapi.json: each answer is a documented status with
// a body that matches the error schemas, never a 5xx, the server stays up, no prototype is
// polluted and a rejected request leaves the state as it was.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { mutationOf } from './mutations.js';
import { type BuiltRequest, errorBodyProblems, type OpSpec, operations, prototypesClean, type RawResponse, send, stateOf, validRequest } from './support.js';

/** Answers that come before any operation is matched (openapi.json x-sandbox-errors-outside-operations). */
const OUTSIDE_OPERATIONS = [400, 404, 405, 413, 431];
// SOAK=1 (or FUZZ_RUNS=n) runs far more cases per operation; npm test keeps it to a few seconds.
const SOAK = Boolean(process.env.SOAK);
const RUNS = Number(process.env.FUZZ_RUNS ?? (SOAK ? 2_000 : 60));
const TIME_LIMIT_MS = SOAK ? 120_000 : 4_000;

let sb: RunningSandbox;
let auth: string;

beforeAll(async () => {
  sb = await startSandbox({ validateResponses: true, logLevel: 'silent' });
  auth = `Bearer ${await sb.token()}`;
  // Frozen clock: nothing time-driven (report runs) moves the state between two requests.
  sb.deps.namespaces.get().clock.freeze();
});
afterAll(() => sb.close());

/** Loaded scenarios the fuzzer may select: not those that drop the connection or wait seconds. */
function fuzzableScenarios(): string[] {
  return [...sb.deps.scenarios.byName.values()]
    .filter((s) => !s.steps.some((step) => step.drop || step.lose_answer || typeof step.delay_ms === 'object' || (step.delay_ms ?? 0) > 100))
    .map((s) => s.name);
}

/** The error statuses the request asked for (its scenarios' and its Prefer: code): only those may come back as 5xx. */
function askedFor(req: BuiltRequest): number[] {
  const prefer = /code=([0-9]{3})(?![0-9])/.exec(String(req.headers.prefer ?? ''));
  const preferred = prefer ? [Number(prefer[1])] : [];
  const header = req.headers['x-sandbox-scenario'];
  if (typeof header !== 'string') return preferred;
  const names = header.split(',').map((n) => n.trim());
  if (names.some((n) => n && !sb.deps.scenarios.byName.has(n))) return preferred; // an unknown name is a 400 first
  return names
    .flatMap((n) => sb.deps.scenarios.byName.get(n)?.steps.flatMap((s) => [s.respond?.status, s.random?.respond?.status]) ?? [])
    .filter((x): x is number => typeof x === 'number')
    .concat(preferred);
}

/** 429 and 5xx asked for may come on any operation (as infrastructure answers them), marked outside its contract. */
function injectedOutsideContract(op: OpSpec, req: BuiltRequest, res: RawResponse): boolean {
  return !op.declared.includes(res.status) && (res.status === 429 || res.status >= 500) && askedFor(req).includes(res.status);
}

/** What must hold of any answer; returns the problems (empty: fine). */
function problemsOf(op: OpSpec, req: BuiltRequest, res: RawResponse, before: string): string[] {
  const problems: string[] = [];
  if (res.status >= 500 && !askedFor(req).includes(res.status)) problems.push(`answered ${res.status}: ${res.text.slice(0, 300)}`);
  if (injectedOutsideContract(op, req, res)) {
    if (!String(res.headers['x-sandbox-scenario']).endsWith('; outside-contract')) problems.push(`${res.status} outside the contract is not marked`);
  } else if (!op.declared.includes(res.status)) {
    if (!OUTSIDE_OPERATIONS.includes(res.status)) problems.push(`status ${res.status} is not documented`);
    // A 400 the operation does not declare can only be the namespace, refused before matching.
    if (res.status === 400 && !/Namespace/.test(res.json?.message)) problems.push(`undeclared 400: ${res.json?.message}`);
  }
  if (res.status >= 400) {
    problems.push(...errorBodyProblems(res));
    if (stateOf(sb.deps) !== before) problems.push('a rejected request changed the state');
  }
  if (!prototypesClean()) problems.push('a prototype was polluted');
  return problems.map((p) => `${req.method} ${req.path.slice(0, 120)}: ${p}`);
}

async function serverIsUp(): Promise<void> {
  const res = await send(sb.url, { method: 'GET', path: '/card-scheme-definitions', headers: { authorization: auth }, body: null });
  expect(res.status).toBe(200);
}

describe('every operation, broken requests', () => {
  for (const op of operations()) {
    it(
      `${op.method} ${op.path} (${op.id})`,
      async () => {
        const seen = new Set<string>();
        await fc.assert(
          fc.asyncProperty(mutationOf(op, fuzzableScenarios()), async (mutation) => {
            const req = mutation.apply(validRequest(op, auth));
            seen.add(mutation.kind.split(' ')[0]);
            const before = stateOf(sb.deps);
            const res = await send(sb.url, req);
            if (process.env.FUZZ_DEBUG) console.log(op.id, res.status, mutation.kind.slice(0, 60), res.text.slice(0, 100));
            expect(problemsOf(op, req, res, before), mutation.kind).toEqual([]);
          }),
          { seed: Number(process.env.FUZZ_SEED ?? 4010), numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS },
        );
        await serverIsUp();
        expect(seen.size).toBeGreaterThan(3); // the runs tried several kinds of breakage
      },
      TIME_LIMIT_MS + 15_000,
    );
  }
});
