// A call answered in compare mode is handed to the compare worker HAND_OVER_DELAY_MS after its
// answer (its client reads the answer first), calls of that time together; a stop (settled(), then
// the report) waits for hand-overs still waiting as for comparisons under way. And the calls the
// sandbox answers itself, with an upstream configured, are answered in the turn they arrive, as
// without one. Against a real local upstream and the built compare worker (npm run build).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { buildSandbox, closeSandbox } from '../../src/sandbox.js';
import type { CompareJob } from '../../src/upstream/compare-job.js';
import { HAND_OVER_DELAY_MS, Upstream } from '../../src/upstream/upstream.js';
import { tokenFor } from '../support/sandbox.js';
import { card } from './gift-card.js';

const PAGE = JSON.stringify({ items: [card()], limit: 20, next_cursor: null, previous_cursor: null });

let server: Server;
let url: string;
/** When each request reached the upstream (performance.now()). */
const arrivals: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    arrivals.push(performance.now());
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(PAGE));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

let upstream: Upstream;
afterEach(async () => {
  arrivals.length = 0;
  await upstream?.close();
});

const job = (n: number): CompareJob => ({
  base: { namespace: 'ns', journal_id: n, request_id: `r${n}`, operation_id: 'listGiftCards', method: 'GET', path: '/gift-cards', sandbox_status: 200 },
  request: { method: 'GET', pathAndQuery: '/gift-cards', headers: {}, body: undefined },
  sandbox: { status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(PAGE) },
});

/** A hand-over as the compare step makes one: the call's job, handed to compare() once its turn comes. */
function handOver(n: number, at: number[]): () => Promise<void> {
  return async () => {
    at.push(performance.now());
    upstream.compare(job(n));
  };
}

describe('the hand-over of a call to the compare worker', () => {
  it('waits HAND_OVER_DELAY_MS after the answer, and takes the calls of that time together', async () => {
    upstream = new Upstream({ url, mode: 'compare', compareWrites: false, timeoutMs: 5_000 });
    const at: number[] = [];
    const answeredAt = performance.now();
    for (let n = 1; n <= 3; n++) upstream.handOverLater(handOver(n, at));
    expect(at).toEqual([]); // not during the turn that wrote the answers
    await upstream.settled();
    expect(at).toHaveLength(3);
    for (const t of at) expect(t - answeredAt).toBeGreaterThanOrEqual(HAND_OVER_DELAY_MS - 1); // timers may fire up to 1 ms early
    expect(new Set(at.map((t) => Math.round(t))).size).toBeLessThanOrEqual(2); // one turn, not one timer each
    expect(arrivals).toHaveLength(3);
    expect(upstream.comparisons.outcomes).toEqual({ same: 3, differs: 0, upstream_failed: 0, not_sent: 0 });
  });

  it('is waited for by settled() and close() while it waits: no comparison lost to a stop', async () => {
    upstream = new Upstream({ url, mode: 'compare', compareWrites: false, timeoutMs: 5_000 });
    upstream.handOverLater(handOver(1, []));
    await upstream.close(); // what a stop does before it writes the report
    expect(arrivals).toHaveLength(1);
    expect(upstream.comparisons.outcomes).toEqual({ same: 1, differs: 0, upstream_failed: 0, not_sent: 0 });
  });

  it('counts a hand-over that fails as over, so a stop still ends', async () => {
    upstream = new Upstream({ url, mode: 'compare', compareWrites: false, timeoutMs: 5_000 });
    upstream.handOverLater(async () => {
      throw new Error('the body could not be read');
    });
    upstream.handOverLater(handOver(2, []));
    await upstream.settled();
    expect(upstream.comparisons.outcomes).toEqual({ same: 1, differs: 0, upstream_failed: 0, not_sent: 0 });
  });
});

describe('a call the sandbox answers itself, with an upstream configured', () => {
  // A step that returns a promise makes the pipeline's answer a promise (src/http/pipeline.ts), and
  // @hono/node-server then writes it on its slower path: record mode's step did so for every call,
  // and cost compare mode's answers a tenth of their time (bench/compare-overhead.mjs).
  it('is answered in the turn it arrives in compare mode and off, and by the upstream, later, in record mode', async () => {
    const deps = await buildSandbox({ logLevel: 'silent', upstream: url, compare: true, upstreamTimeoutMs: 5_000 });
    const app = createApp(deps);
    const authorization = `Bearer ${await tokenFor('admin')}`;
    const get = () => app.fetch(new Request('http://127.0.0.1/gift-cards?limit=1', { headers: { authorization } }));
    try {
      const sandboxPage = async (answer: Response | Promise<Response>) => {
        expect(answer).toBeInstanceOf(Response); // not a promise of one
        const res = await answer;
        expect(res.status).toBe(200);
        return (await res.json()) as { items: Array<{ id: string }> };
      };
      // The first call verifies the token (asynchronously, once); and is compared too.
      await (await get()).arrayBuffer();
      const compared = await sandboxPage(get());
      expect(compared.items).toHaveLength(1);
      expect(compared.items[0].id).not.toBe(card().id); // the sandbox's own card, not the upstream's
      await deps.upstream?.settled();
      expect(deps.upstream?.comparisons.outcomes.same).toBe(2); // compared, after the answer
      deps.upstream?.switchTo('off');
      expect(await sandboxPage(get())).toEqual(compared);
      deps.upstream?.switchTo('record');
      const recorded = get();
      expect(recorded).toBeInstanceOf(Promise);
      expect(await (await recorded).json()).toEqual(JSON.parse(PAGE));
      expect(arrivals).toHaveLength(3); // the comparisons' calls and the recorded one; none when off
    } finally {
      await closeSandbox(deps);
    }
  });
});
