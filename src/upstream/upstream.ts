// The upstream of a sandbox started with --upstream: what compare mode found, what record mode saw,
// and how each reaches the real service. Record mode's calls go from the request's own thread (the
// upstream's answer is the answer); compare mode's from the compare worker, a thread of its own
// (compare-worker.ts). Made once at boot (sandbox.ts) with its address, which never changes; its
// mode may (PUT /_sandbox/upstream), so the steps read it per call.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../spec/load-spec.js';
import { UpstreamClient } from './client.js';
import type { CompareJob } from './compare-job.js';
import { Comparisons, type PackedComparison, packComparison, withoutAnswer } from './comparisons.js';
import { UPSTREAM_MODES, type UpstreamMode } from './modes.js';
import { SeenRecords } from './seen-records.js';

export type { UpstreamMode } from './modes.js';

export interface UpstreamOptions {
  url: string;
  /** The mode at start. */
  mode: UpstreamMode;
  /** Compare mode: send writes (POST, PUT, PATCH, DELETE) to the upstream too; they change it. */
  compareWrites: boolean;
  timeoutMs: number;
}

/**
 * Calls handed to the compare worker and not yet compared, at most: past it a call is not sent and
 * is filed as an upstream failure (`backlog`), so an upstream slower than the calls, or a worker
 * short of CPU, costs a bounded memory (each waiting call holds its answer's bytes) and says so in
 * the report instead of growing without end.
 */
export const MAX_WAITING_COMPARISONS = 1_000;

/**
 * How long a call waits after its answer is written before it is handed to the compare worker. Its
 * client reads the answer first: handed over at once, the hand-over's work and the worker it wakes
 * took a core just when the client needed one to read, on a machine with few cores (two, here). On
 * bench/compare-overhead.mjs at 200 calls a second, 50 rounds, twice: the p50 of compare mode 1.16
 * and 1.19 times plain's at once, 1.04 and 1.09 after 2 ms. Calls answered meanwhile go together.
 */
export const HAND_OVER_DELAY_MS = 2;

/** The compare worker as bundled: the same file whether the sandbox runs from the bundle or from dist/src. */
const WORKER_FILE = 'dist/bundle/upstream/compare-worker.js';

export class Upstream {
  /** Record mode's client (compare mode's is the worker's). */
  readonly client: UpstreamClient;
  readonly comparisons = new Comparisons();
  readonly seen = new SeenRecords();
  private worker: Worker | null = null;
  /** Jobs of this turn of the event loop, posted together at its end: one message a turn, not one a call. */
  private batch: CompareJob[] = [];
  /** Jobs sent to the worker whose comparison has not come back. */
  private pending = 0;
  /** Hand-overs waiting for HAND_OVER_DELAY_MS to pass. */
  private handOvers: Array<() => Promise<void>> = [];
  /** Hand-overs waiting or under way (a write's body may still be read): settled() waits for them too. */
  private handingOver = 0;
  private idle: Array<() => void> = [];

  private current: UpstreamMode = 'off';
  /** The modes that were on at any time since start: a stop writes the files of each. */
  private readonly used = new Set<UpstreamMode>();

  constructor(readonly options: UpstreamOptions) {
    this.client = new UpstreamClient(options.url, options.timeoutMs);
    this.switchTo(options.mode);
  }

  /** The mode now; a call runs in the mode it started in (steps.ts reads it once per call). */
  get mode(): UpstreamMode {
    return this.current;
  }

  switchTo(mode: UpstreamMode): void {
    this.current = mode;
    if (mode !== 'off') this.used.add(mode);
  }

  /** Whether the mode was on at any time since start. */
  wasOn(mode: 'compare' | 'record'): boolean {
    return this.used.has(mode);
  }

  /** The modes that were on since start, in the order UPSTREAM_MODES lists them. */
  modesUsed(): UpstreamMode[] {
    return UPSTREAM_MODES.filter((mode) => this.used.has(mode));
  }

  /** Runs a call's hand-over (which ends in compare() or files why not) HAND_OVER_DELAY_MS from now. */
  handOverLater(handOver: () => Promise<void>): void {
    this.handingOver++;
    if (this.handOvers.push(handOver) === 1) setTimeout(() => void this.handOverWaiting(), HAND_OVER_DELAY_MS);
  }

  private async handOverWaiting(): Promise<void> {
    const due = this.handOvers;
    this.handOvers = [];
    await Promise.allSettled(due.map((handOver) => handOver()));
    this.handingOver -= due.length;
    this.wakeIfSettled();
  }

  /** Hands a call to the compare worker (started on the first); its comparison is filed when it comes back. */
  compare(job: CompareJob): void {
    if (this.pending >= MAX_WAITING_COMPARISONS) {
      const failure = `backlog: ${MAX_WAITING_COMPARISONS} calls were waiting for the upstream's answer; this one was not sent`;
      this.comparisons.add(packComparison(withoutAnswer(job.base, 'upstream_failed', failure)));
      return;
    }
    this.pending++;
    if (this.batch.push(job) === 1) setImmediate(() => this.post());
  }

  private post(): void {
    const jobs = this.batch;
    this.batch = [];
    const moved = jobs.flatMap((job) => (job.sandbox.body instanceof Uint8Array ? [job.sandbox.body.buffer as ArrayBuffer] : []));
    this.workerNow().postMessage(jobs, moved); // bytes moved, not copied
  }

  private workerNow(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(join(packageRoot(), WORKER_FILE), { workerData: { url: this.options.url, timeoutMs: this.options.timeoutMs } });
    worker.unref(); // a stop does not wait for it: close() does, for the report
    worker.on('message', (comparisons: PackedComparison[]) => {
      for (const comparison of comparisons) this.comparisons.add(comparison);
      this.pending -= comparisons.length;
      this.wakeIfSettled();
    });
    // A worker that fails (it never should) loses the comparisons it held, never the sandbox: the next call starts another.
    worker.on('error', () => this.lost(worker));
    worker.on('exit', () => this.lost(worker));
    this.worker = worker;
    return worker;
  }

  private lost(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.pending = this.batch.length;
    this.wakeIfSettled();
  }

  private get isSettled(): boolean {
    return this.pending === 0 && this.handingOver === 0;
  }

  private wakeIfSettled(): void {
    if (this.isSettled) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Every call answered in compare mode has been handed over, and its comparison filed. */
  settled(): Promise<void> {
    return this.isSettled ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  async close(): Promise<void> {
    await this.settled();
    await this.worker?.terminate();
    await this.client.close();
  }
}
