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
import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import type { SandboxEnv } from './env.js';

type Ctx = Context<SandboxEnv>;

/** Runs the rest of the pipeline inside the step (CORS adds its headers after it); may answer instead. */
// biome-ignore lint/suspicious/noConfusingVoidType: a step with nothing to say returns nothing (void), not undefined
export type Around = (rest: () => Promise<void>) => Promise<Response | void>;

// biome-ignore lint/suspicious/noConfusingVoidType: a step with nothing to say returns nothing (void), not undefined
type BeforeResult = void | Response | Around;

export interface Step {
  /**
   * Before the operation's handler, in order. Throw to answer with an error body; return a
   * Response to answer now (later steps and the handler are skipped); return an Around to wrap
   * the rest. A promise of any of those when the step has to wait.
   */
  before?(c: Ctx): BeforeResult | Promise<BeforeResult>;
  /** Once the answer exists (error answers too), last step first. */
  after?(c: Ctx): void | Promise<void>;
}

export type Answer = (c: Ctx) => Response | Promise<Response>;

/** Nothing, when the work is done; a promise when some part of it had to wait. */
type Done = void | Promise<void>;

export function pipeline(steps: Step[], answer: Answer, onError: ErrorHandler<SandboxEnv>): (c: Ctx) => Response | Promise<Response> {
  // Each function below carries on from a point of the run: `from` is the first step of this run
  // (an Around runs the steps after it as a run of their own), and the `after` parts to run at
  // the end are those of steps[from..end).

  /** Steps from `at` on, then the answer; steps[from..at) have passed. */
  function advance(c: Ctx, from: number, at: number): Done {
    let i = at;
    // biome-ignore lint/complexity/noUselessUndefinedInitialization: TypeScript needs it definitely assigned when no step runs
    let result: BeforeResult | Promise<BeforeResult> = undefined;
    try {
      for (; i < steps.length; i++) {
        const before = steps[i].before;
        if (before && (result = before(c)) !== undefined) break;
      }
      if (i === steps.length) {
        const response = answer(c);
        if (response instanceof Promise) {
          return response.then(
            (r) => answered(c, from, steps.length, r),
            (err) => fail(c, from, steps.length, err),
          );
        }
        c.res = response;
      }
    } catch (err) {
      return fail(c, from, i, err);
    }
    if (i === steps.length) return unwind(c, from, i);
    if (result instanceof Promise) {
      const index = i;
      return result.then(
        (r) => stepResult(c, from, index, r),
        (err) => fail(c, from, index, err),
      );
    }
    return stepResult(c, from, i, result as BeforeResult);
  }

  /** What step `i`'s `before` gave. */
  function stepResult(c: Ctx, from: number, i: number, result: BeforeResult): Done {
    if (result === undefined) return advance(c, from, i + 1);
    // A step that answers is not passed: its `after` does not run.
    if (result instanceof Response) return answered(c, from, i, result);
    // biome-ignore lint/suspicious/noConfusingVoidType: a step with nothing to say returns nothing (void), not undefined
    let wrapped: Promise<Response | void>;
    try {
      wrapped = result(async () => advance(c, i + 1, i + 1));
    } catch (err) {
      return fail(c, from, i, err);
    }
    return wrapped.then(
      (response) => (response ? answered(c, from, i + 1, response) : unwind(c, from, i + 1)),
      (err) => fail(c, from, i, err),
    );
  }

  function answered(c: Ctx, from: number, end: number, response: Response): Done {
    c.res = response;
    return unwind(c, from, end);
  }

  /** The error handler's answer to `err`, then the `after` parts of steps[from..end). */
  function fail(c: Ctx, from: number, end: number, err: unknown): Done {
    const response = onError(err as Error, c);
    if (response instanceof Promise) return response.then((r) => answered(c, from, end, r));
    return answered(c, from, end, response);
  }

  /** The `after` parts of steps[from..end), last first. */
  function unwind(c: Ctx, from: number, end: number): Done {
    for (let i = end - 1; i >= from; i--) {
      const after = steps[i].after;
      if (!after) continue;
      let done: Done;
      try {
        done = after(c);
      } catch (err) {
        return fail(c, from, i, err);
      }
      if (done instanceof Promise) {
        const index = i;
        return done.then(
          () => unwind(c, from, index),
          (err) => fail(c, from, index, err),
        );
      }
    }
  }

  return function runPipeline(c) {
    const done = advance(c, 0, 0);
    return done instanceof Promise ? done.then(() => c.res) : c.res;
  };
}

/** The same step as Hono middleware, for the sandbox's own routes (docs, control API). */
export function asMiddleware(step: Step): MiddlewareHandler<SandboxEnv> {
  return async function runStep(c, next) {
    let result = step.before?.(c);
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
    await step.after?.(c);
  };
}
