// The API pipeline's semantics, on a small Hono app with recording steps: the order of `before`
// and `after` parts, answers from a step, errors from anywhere (including after the answer), an
// Around step, waiting steps, and an answer without a promise when nothing waits; then the
// sandbox's own pipeline, which answers a read without a promise in each configuration.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { SandboxConfig } from '../../src/config.js';
import type { SandboxEnv } from '../../src/http/call.js';
import { pipeline, type Step } from '../../src/http/pipeline.js';
import { buildSandbox, closeSandbox } from '../../src/sandbox.js';
import { tokenFor, WELL_KNOWN } from '../support/sandbox.js';

type Log = string[];

function recorder(log: Log, name: string, options: { wait?: boolean; fail?: 'before' | 'after'; answer?: boolean } = {}): Step {
  return {
    name,
    before() {
      log.push(`${name}:before`);
      const act = () => {
        if (options.fail === 'before') throw new Error(`${name} failed`);
        if (options.answer) return new Response(`answered by ${name}`, { status: 202 });
      };
      return options.wait ? Promise.resolve().then(act) : act();
    },
    after() {
      log.push(`${name}:after`);
      if (options.fail === 'after') {
        if (options.wait) return Promise.reject(new Error(`${name} failed after`));
        throw new Error(`${name} failed after`);
      }
      return options.wait ? Promise.resolve() : undefined;
    },
  };
}

function appWith(log: Log, steps: Step[], answer: 'sync' | 'async' | 'throws' = 'sync') {
  const app = new Hono<SandboxEnv>();
  const run = pipeline(
    steps,
    () => {
      log.push('answer');
      if (answer === 'throws') throw new Error('handler failed');
      const res = new Response('ok', { status: 200 });
      return answer === 'async' ? Promise.resolve(res) : res;
    },
    (err) => {
      const message = (err as Error).message;
      log.push(`onError:${message}`);
      return new Response(`error: ${message}`, { status: 500 });
    },
  );
  app.all('*', run);
  return app;
}

async function call(app: Hono<SandboxEnv>) {
  const res = await app.fetch(new Request('http://sandbox.test/x'));
  return { status: res.status, text: await res.text() };
}

describe('API pipeline', () => {
  it('runs every before in order, the answer, then every after in reverse order', async () => {
    const log: Log = [];
    const app = appWith(log, [recorder(log, 'a'), recorder(log, 'b', { wait: true }), recorder(log, 'c')]);
    expect(await call(app)).toEqual({ status: 200, text: 'ok' });
    expect(log).toEqual(['a:before', 'b:before', 'c:before', 'answer', 'c:after', 'b:after', 'a:after']);
  });

  it('answers without a promise when no step and no answer waits', async () => {
    const log: Log = [];
    const immediate = appWith(log, [recorder(log, 'a'), recorder(log, 'b')]).fetch(new Request('http://sandbox.test/x'));
    expect(immediate).toBeInstanceOf(Response);
    expect(log).toEqual(['a:before', 'b:before', 'answer', 'b:after', 'a:after']);
    const waiting = appWith([], [recorder([], 'a', { wait: true })]).fetch(new Request('http://sandbox.test/x'));
    expect(waiting).toBeInstanceOf(Promise);
    const asyncAnswer = appWith([], [recorder([], 'a')], 'async').fetch(new Request('http://sandbox.test/x'));
    expect(asyncAnswer).toBeInstanceOf(Promise);
    expect((await asyncAnswer).status).toBe(200);
  });

  it.each([false, true])('a step that answers (waiting: %s) skips the rest and its own after', async (wait) => {
    const log: Log = [];
    const app = appWith(log, [recorder(log, 'a'), recorder(log, 'b', { answer: true, wait }), recorder(log, 'c')]);
    expect(await call(app)).toEqual({ status: 202, text: 'answered by b' });
    expect(log).toEqual(['a:before', 'b:before', 'a:after']);
  });

  it.each([false, true])('a step that throws (waiting: %s) gets the error answer; the steps passed still run their after', async (wait) => {
    const log: Log = [];
    const app = appWith(log, [recorder(log, 'a'), recorder(log, 'b', { fail: 'before', wait }), recorder(log, 'c')]);
    expect(await call(app)).toEqual({ status: 500, text: 'error: b failed' });
    expect(log).toEqual(['a:before', 'b:before', 'onError:b failed', 'a:after']);
  });

  it('an answer that throws gets the error answer, and every after runs', async () => {
    const log: Log = [];
    const app = appWith(log, [recorder(log, 'a'), recorder(log, 'b')], 'throws');
    expect(await call(app)).toEqual({ status: 500, text: 'error: handler failed' });
    expect(log).toEqual(['a:before', 'b:before', 'answer', 'onError:handler failed', 'b:after', 'a:after']);
  });

  it.each([false, true])('an after that throws (waiting: %s) replaces the answer; earlier afters still run', async (wait) => {
    const log: Log = [];
    const app = appWith(log, [recorder(log, 'a'), recorder(log, 'b', { fail: 'after', wait }), recorder(log, 'c')]);
    expect(await call(app)).toEqual({ status: 500, text: 'error: b failed after' });
    expect(log).toEqual(['a:before', 'b:before', 'c:before', 'answer', 'c:after', 'b:after', 'onError:b failed after', 'a:after']);
  });

  it('an Around step wraps the rest: inner afters run inside it, its own after after it', async () => {
    const log: Log = [];
    const around: Step = {
      name: 'around',
      before: () => async (rest) => {
        log.push('around:enter');
        await rest();
        log.push('around:leave');
      },
      after: () => {
        log.push('around:after');
      },
    };
    const app = appWith(log, [recorder(log, 'a'), around, recorder(log, 'b', { wait: true })]);
    expect(await call(app)).toEqual({ status: 200, text: 'ok' });
    expect(log).toEqual(['a:before', 'around:enter', 'b:before', 'answer', 'b:after', 'around:leave', 'around:after', 'a:after']);
  });

  it('an Around step may replace the answer, or fail', async () => {
    const log: Log = [];
    const replacing: Step = {
      name: 'replacing',
      before: () => async (rest) => {
        await rest();
        return new Response('replaced', { status: 203 });
      },
    };
    expect(await call(appWith(log, [replacing]))).toEqual({ status: 203, text: 'replaced' });
    const failing: Step = {
      name: 'failing',
      before: () => async () => {
        throw new Error('around failed');
      },
      after: () => {
        log.push('failing:after');
      },
    };
    const failLog: Log = [];
    const app = appWith(failLog, [recorder(failLog, 'a'), failing]);
    expect(await call(app)).toEqual({ status: 500, text: 'error: around failed' });
    expect(failLog).toEqual(['a:before', 'onError:around failed', 'a:after']);
    expect(log).not.toContain('failing:after');
  });

  it('refuses at boot a step placed before the step that provides what it requires, naming both', () => {
    const matcher: Step = { name: 'match', provides: ['operation'] };
    const validator: Step = { name: 'check input', requires: ['operation'], provides: ['input'] };
    const build = (steps: Step[]) => () =>
      pipeline(
        steps,
        () => new Response(null),
        () => new Response(null),
      );
    expect(build([validator, matcher])).toThrow("pipeline: step 'check input' requires operation, which no step before it provides ('match' comes after it)");
    expect(build([validator])).toThrow(/^pipeline: step 'check input' requires operation, which no step before it provides$/);
    expect(build([matcher, validator])).not.toThrow();
  });
});

describe("the sandbox's own pipeline", () => {
  // Every step of createApp keeps a call synchronous unless it must wait (a write's commit, record
  // mode's upstream, a first token): one `async before()` anywhere made every answer go through
  // @hono/node-server's asynchronous path (issue 38: a tenth of compare mode's cost).
  const configurations: Array<[string, () => Partial<SandboxConfig>]> = [
    ['in memory', () => ({})],
    ['with a data file', () => ({ dataFile: join(mkdtempSync(join(tmpdir(), 'pipeline-sync-')), 'data.json') })],
    ['checking its answers (--validate-responses)', () => ({ validateResponses: true })],
    ['with an upstream, off', () => ({ upstream: 'http://127.0.0.1:9' })],
    ['with an upstream, comparing', () => ({ upstream: 'http://127.0.0.1:9', compare: true, upstreamTimeoutMs: 1_000 })],
  ];

  it.each(configurations)("answers a read in its own turn %s: a list page, a buyer's payment methods, a flow's rules", async (_name, config) => {
    const deps = await buildSandbox({ logLevel: 'silent', ...config() });
    const app = createApp(deps);
    const authorization = `Bearer ${await tokenFor('admin')}`;
    const get = (path: string) => app.fetch(new Request(`http://127.0.0.1${path}`, { headers: { authorization } }));
    try {
      await (await get('/gift-cards')).arrayBuffer(); // the first call verifies the token, once, asynchronously
      for (const path of ['/gift-cards?limit=5', `/buyers/payment-methods?buyer_id=${WELL_KNOWN.buyers.default.id}`, '/flows/checkout']) {
        const answer = get(path);
        expect(answer, path).toBeInstanceOf(Response);
        expect((await answer).status, path).toBe(200);
      }
    } finally {
      await closeSandbox(deps);
      if (deps.config.dataFile) rmSync(dirname(deps.config.dataFile), { recursive: true, force: true });
    }
  });
});
