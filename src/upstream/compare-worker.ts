// The compare worker: a thread of its own that sends each call to the upstream and compares the
// answers, so that compare mode costs the thread answering calls one message per call, not an
// HTTP exchange, two JSON parses and a walk of the contract. Bundled as its own entry
// (dist/bundle/upstream/compare-worker.js); started by Upstream (upstream.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { loadSpec } from '../spec/load-spec.js';
import { indexSpec } from '../spec/operations.js';
import { UPSTREAM_CONNECTIONS, UpstreamClient } from './client.js';
import { type CompareJob, runCompareJob } from './compare-job.js';
import { type PackedComparison, packComparison } from './comparisons.js';
import { ContractComparer } from './contract.js';

const { url, timeoutMs } = workerData as { url: string; timeoutMs: number };
const client = new UpstreamClient(url, timeoutMs);
const comparer = new ContractComparer(indexSpec(loadSpec(), 'openapi.json', [], { lazy: true }));

/** Comparisons done and not yet posted: sent together, at most every BATCH_MS (the request thread takes one message, not one a call). */
let done: PackedComparison[] = [];
const BATCH_MS = 20;

function finished(comparison: PackedComparison): void {
  if (done.push(comparison) > 1) return;
  setTimeout(() => {
    const batch = done;
    done = [];
    // Each comparison goes back as its bytes, moved, not copied: the request thread keeps them as they come.
    parentPort?.postMessage(
      batch,
      batch.map((c) => c.bytes.buffer as ArrayBuffer),
    );
  }, BATCH_MS);
}

/**
 * At most as many comparisons under way as the upstream's pool has connections. The others wait
 * here, not in the pool's queue, where their timeout would already run: behind a backlog (more
 * calls than the worker keeps up with), a call was recorded as an upstream timeout that the
 * upstream never had the time to answer.
 */
const waiting: CompareJob[] = [];
let running = 0;

function startWaiting(): void {
  while (running < UPSTREAM_CONNECTIONS && waiting.length) {
    running++;
    void runCompareJob(waiting.shift() as CompareJob, client, comparer).then(({ comparison, body }) => {
      running--;
      finished(packComparison(comparison, body));
      startWaiting();
    });
  }
}

parentPort?.on('message', (jobs: CompareJob[]) => {
  waiting.push(...jobs);
  startWaiting();
});
