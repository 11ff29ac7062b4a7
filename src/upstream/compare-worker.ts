// The compare worker: a thread of its own that sends each call to the upstream and compares the
// answers, so that compare mode costs the thread answering calls one message per call, not an
// HTTP exchange, two JSON parses and a walk of the contract. Bundled as its own entry
// (dist/bundle/upstream/compare-worker.js); started by Upstream (upstream.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { loadSpec } from '../spec/load-spec.js';
import { indexSpec } from '../spec/operations.js';
import { UpstreamClient } from './client.js';
import { type CompareJob, runCompareJob } from './compare-job.js';
import type { Comparison } from './comparisons.js';
import { ContractComparer } from './contract.js';

const { url, timeoutMs } = workerData as { url: string; timeoutMs: number };
const client = new UpstreamClient(url, timeoutMs);
const comparer = new ContractComparer(indexSpec(loadSpec(), 'openapi.json', [], { lazy: true }));

/** A byte array's buffer, when it is its own (not a slice of Node's shared pool). */
function movable(bytes: Uint8Array): ArrayBuffer[] {
  return bytes.byteLength > 0 && bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength ? [bytes.buffer as ArrayBuffer] : [];
}

/** Comparisons done and not yet posted: sent together, at most every BATCH_MS (the request thread takes one message, not one a call). */
let done: Comparison[] = [];
const BATCH_MS = 20;

function finished(comparison: Comparison): void {
  if (done.push(comparison) > 1) return;
  setTimeout(() => {
    const batch = done;
    done = [];
    // The upstream's bodies go back as bytes moved, not copied.
    parentPort?.postMessage(
      batch,
      batch.flatMap((c) => movable(c.upstream.bodyBytes)),
    );
  }, BATCH_MS);
}

parentPort?.on('message', (jobs: CompareJob[]) => {
  for (const job of jobs) void runCompareJob(job, client, comparer).then(finished);
});
