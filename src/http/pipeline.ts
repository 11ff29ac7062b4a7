// The steps of an API call, run in order by one Hono handler. A chain of Hono middleware would do
// the same, but costs two promises and a try/catch per middleware on every request: with a dozen
// steps, more than the whole of a simple GET's own work. Here a step that has nothing to wait for
// runs as a plain call.
//
// Semantics match Hono's chain: an error thrown anywhere becomes the error handler's response at
// that point, and the `after` parts of the steps already passed still run (the journal records
// error answers; the request log logs them).
import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import type { SandboxEnv } from './env.js';

type Ctx = Context<SandboxEnv>;

/** Runs the rest of the pipeline inside the step (CORS adds its headers after it); may answer instead. */
export type Around = (rest: () => Promise<void>) => Promise<Response | void>;

export interface Step {
  /**
   * Before the operation's handler, in order. Throw to answer with an error body; return a
   * Response to answer now (later steps and the handler are skipped); return an Around to wrap
   * the rest. A promise of any of those when the step has to wait.
   */
  before?(c: Ctx): void | Response | Around | Promise<void | Response | Around>;
  /** Once the answer exists (error answers too), last step first. */
  after?(c: Ctx): void | Promise<void>;
}

export type Answer = (c: Ctx) => Response | Promise<Response>;

export function pipeline(steps: Step[], answer: Answer, onError: ErrorHandler<SandboxEnv>): (c: Ctx) => Promise<Response> {
  async function runFrom(c: Ctx, from: number): Promise<void> {
    let passed = from; // steps[from..passed) finished their `before`
    let answered = false; // by a step, or by the rest of the pipeline inside an Around
    try {
      for (; passed < steps.length && !answered; passed++) {
        const before = steps[passed].before;
        if (!before) continue;
        let result = before(c);
        if (result instanceof Promise) result = await result;
        if (result instanceof Response) {
          c.res = result;
          answered = true;
          // Its `after` does not run: the step answered instead of letting the request through.
          passed--;
        } else if (typeof result === 'function') {
          const index = passed;
          const response = await result(() => runFrom(c, index + 1));
          if (response) c.res = response;
          answered = true;
        }
      }
      if (!answered) {
        const response = answer(c);
        c.res = response instanceof Promise ? await response : response;
      }
    } catch (err) {
      c.res = await onError(err as Error, c);
    }
    for (let i = passed - 1; i >= from; i--) {
      const after = steps[i].after;
      if (!after) continue;
      try {
        const done = after(c);
        if (done) await done;
      } catch (err) {
        c.res = await onError(err as Error, c);
      }
    }
  }

  return async function runPipeline(c) {
    await runFrom(c, 0);
    return c.res;
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
