// The upstream of a sandbox started with --upstream: the client to the real service, the contract
// comparer, what compare mode found, and what record mode saw. Made once at boot (sandbox.ts).
import type { SpecIndex } from '../spec/operations.js';
import { UpstreamClient } from './client.js';
import { Comparisons } from './comparisons.js';
import { ContractComparer } from './contract.js';
import { SeenRecords } from './seen-records.js';

/** `compare`: the sandbox answers, the upstream is asked too and the answers compared; `record`: the upstream answers, the sandbox records. */
export type UpstreamMode = 'compare' | 'record';

export interface UpstreamOptions {
  url: string;
  mode: UpstreamMode;
  /** Compare mode: send writes (POST, PUT, PATCH, DELETE) to the upstream too; they change it. */
  compareWrites: boolean;
  timeoutMs: number;
}

export class Upstream {
  readonly client: UpstreamClient;
  readonly comparer: ContractComparer;
  readonly comparisons = new Comparisons();
  readonly seen = new SeenRecords();
  /** Comparisons started and not finished: a stop waits for them before writing the report. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    readonly options: UpstreamOptions,
    apiSpec: SpecIndex,
  ) {
    this.client = new UpstreamClient(options.url, options.timeoutMs);
    this.comparer = new ContractComparer(apiSpec);
  }

  get mode(): UpstreamMode {
    return this.options.mode;
  }

  track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Every comparison started has been filed. */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  async close(): Promise<void> {
    await this.settled();
    await this.client.close();
  }
}
