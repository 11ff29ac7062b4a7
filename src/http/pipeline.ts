// The steps of an API call, run in order by one Hono handler. A chain of Hono middleware would do
// the same, but costs two promises and a try/catch per middleware on every request: with a dozen
// steps, more than the whole of a simple GET's own work. Here a step that has nothing to wait for
// runs as a plain call, and a request where nothing waits (most GETs) is answered without a single
// promise: Hono and @hono/node-server then write the response at once, as they do for a bare
// handler, instead of going through their asynchronous path (a close listener and several
// microtask turns per request).
//
// Semantics match Hono's chain: an error thrown anywhere becomes the error handler's response at
// that point, and the `after` parts of the steps already passed still run (the journal records
// error answers; the request log logs them).
import type { Context, MiddlewareHandler } from 'hono';
import { Call, callOf, type SandboxEnv } from './call.js';

/** What a step sets on the call for later steps: the pipeline checks at boot that each is set before it is needed. */
export type Provision = 'request id' | 'namespace' | 'operation' | 'principal' | 'input' | 'upstream mode';

/** Runs the rest of the pipeline inside the step (CORS adds its headers after it); may answer instead. */
// biome-ignore lint/suspicious/noConfusingVoidType: a step with nothing to say returns nothing (void), not undefined
export type Around = (rest: () => Promise<void>) => Promise<Response | void>;

// biome-ignore lint/suspicious/noConfusingVoidType: a step with nothing to say returns nothing (void), not undefined
type BeforeResult = void | Response | Around;

export interface Step {
  /** For messages and tests: what the step does, in a few words. */
  name: string;
  /** What it reads that an earlier step must have set. */
  requires?: readonly Provision[];
  /** What it sets for the steps after it. */
  provides?: readonly Provision[];
  /**
   * Before the operation's handler, in order. Throw to answer with an error body; return a
   * Response to answer now (later steps and the handler are skipped); return an Around to wrap
   * the rest. A promise of any of those when the step has to wait.
   */
  before?(call: Call): BeforeResult | Promise<BeforeResult>;
  /** Once the answer exists (error answers too), last step first. */
  after?(call: Call): void | Promise<void>;
}

export type Answer = (call: Call) => Response | Promise<Response>;

/** Turns anything thrown into the answer (error-handler.ts). */
export type OnError = (err: unknown, call: Call) => Response | Promise<Response>;

/** Nothing, when the work is done; a promise when some part of it had to wait. */
type Done = void | Promise<void>;

export function pipeline(steps: Step[], answer: Answer, onError: OnError): (c: Context) => Response | Promise<Response> {
  checkOrder(steps);
  // Each function below carries on from a point of the run: `from` is the first step of this run
  // (an Around runs the steps after it as a run of their own), and the `after` parts to run at
  // the end are those of steps[from..end).

  /** Steps from `at` on, then the answer; steps[from..at) have passed. */
  function advance(call: Call, from: number, at: number): Done {
    let i = at;
    // biome-ignore lint/complexity/noUselessUndefinedInitialization: TypeScript needs it definitely assigned when no step runs
    let result: BeforeResult | Promise<BeforeResult> = undefined;
    try {
      for (; i < steps.length; i++) {
        const before = steps[i].before;
        if (before && (result = before(call)) !== undefined) break;
      }
      if (i === steps.length) {
        const response = answer(call);
        if (response instanceof Promise) {
          return response.then(
            (r) => answered(call, from, steps.length, r),
            (err) => fail(call, from, steps.length, err),
          );
        }
        call.res = response;
      }
    } catch (err) {
      return fail(call, from, i, err);
    }
    if (i === steps.length) return unwind(call, from, i);
    if (result instanceof Promise) {
      const index = i;
      return result.then(
        (r) => stepResult(call, from, index, r),
        (err) => fail(call, from, index, err),
      );
    }
    return stepResult(call, from, i, result as BeforeResult);
  }

  /** What step `i`'s `before` gave. */
  function stepResult(call: Call, from: number, i: number, result: BeforeResult): Done {
    if (result === undefined) return advance(call, from, i + 1);
    // A step that answers is not passed: its `after` does not run.
    if (result instanceof Response) return answered(call, from, i, result);
    // biome-ignore lint/suspicious/noConfusingVoidType: a step with nothing to say returns nothing (void), not undefined
    let wrapped: Promise<Response | void>;
    try {
      wrapped = result(async () => advance(call, i + 1, i + 1));
    } catch (err) {
      return fail(call, from, i, err);
    }
    return wrapped.then(
      (response) => (response ? answered(call, from, i + 1, response) : unwind(call, from, i + 1)),
      (err) => fail(call, from, i, err),
    );
  }

  function answered(call: Call, from: number, end: number, response: Response): Done {
    call.res = response;
    return unwind(call, from, end);
  }

  /** The error handler's answer to `err`, then the `after` parts of steps[from..end). */
  function fail(call: Call, from: number, end: number, err: unknown): Done {
    const response = onError(err, call);
    if (response instanceof Promise) return response.then((r) => answered(call, from, end, r));
    return answered(call, from, end, response);
  }

  /** The `after` parts of steps[from..end), last first. */
  function unwind(call: Call, from: number, end: number): Done {
    for (let i = end - 1; i >= from; i--) {
      const after = steps[i].after;
      if (!after) continue;
      let done: Done;
      try {
        done = after(call);
      } catch (err) {
        return fail(call, from, i, err);
      }
      if (done instanceof Promise) {
        const index = i;
        return done.then(
          () => unwind(call, from, index),
          (err) => fail(call, from, index, err),
        );
      }
    }
  }

  return function runPipeline(context) {
    const call = new Call(context);
    const done = advance(call, 0, 0);
    return done instanceof Promise ? done.then(() => call.res) : call.res;
  };
}

/** The same step as Hono middleware, for the sandbox's own routes (docs, console). */
export function asMiddleware(step: Step): MiddlewareHandler<SandboxEnv> {
  return async function runStep(c, next) {
    const call = callOf(c);
    let result = step.before?.(call);
    if (result instanceof Promise) result = await result;
    if (result instanceof Response) return result;
    if (typeof result === 'function') {
      const answered = await result(async () => {
        await next();
      });
      if (answered) return answered;
    } else {
      await next();
    }
    await step.after?.(call);
  };
}

/** Every step finds what it requires set by a step before it; a wrong order fails boot, naming the step and the one placed too late. */
function checkOrder(steps: readonly Step[]): void {
  const provided = new Set<Provision>();
  for (const [i, step] of steps.entries()) {
    const missing = (step.requires ?? []).filter((need) => !provided.has(need));
    if (missing.length) {
      const late = steps.slice(i + 1).filter((s) => s.provides?.some((given) => missing.includes(given)));
      const after = late.length ? ` (${late.map((s) => `'${s.name}'`).join(', ')} comes after it)` : '';
      throw new Error(`pipeline: step '${step.name}' requires ${missing.join(', ')}, which no step before it provides${after}`);
    }
    for (const given of step.provides ?? []) provided.add(given);
  }
}
