// A namespace's store in a shared sandbox: its changes written to Redis before the answers that
// show them, with the group commit of every store (store/group-commit.ts): the changes of one turn
// of the event loop in one round trip, a Lua script that first checks the lease (redis.ts), so a
// node that lost its lease can never acknowledge a write. A failed write is never acknowledged: the
// requests waiting on it get 503 with Retry-After; the next write is then a whole snapshot (it
// holds what memory has); a write refused by the lease check drops the namespace from this node.
import { ApiError } from '../errors/api-error.js';
import type { Namespace } from '../namespace/namespace.js';
import { GroupCommit, type Persistence } from '../store/group-commit.js';
import { fencedByLapse, isFenced, KEYS, nsKeys, type SandboxRedis } from './redis.js';
import { type DurableParts, durablePartsOf, encodeSnapshot, fingerprintOf } from './state-codec.js';

/** What a persistence needs to know of its namespace's lease (owner.ts keeps it current). */
export interface LeaseHandle {
  readonly name: string;
  /** `node \n epoch \n instance`: what the scripts compare with the lease in Redis. */
  readonly holder: string;
  /** Set once the lease is gone: nothing more is written under it. */
  lost: boolean;
}

/** Round trips and failures, for the metrics. */
export interface StoreCounters {
  roundTrips: number;
  failures: number;
}

const namespacesKey = KEYS.namespaces;

/** Log entries, or log characters, past which a snapshot replaces the log. */
const COMPACT_ENTRIES = 1000;
const MIN_COMPACT_CHARS = 256 * 1024;

export class RedisPersistence extends GroupCommit implements Persistence {
  readonly keepsOwnRecords = false;
  private ns: Namespace | null = null;
  /** The durable parts to write with the next append (a control call changed them). */
  private partsDue: DurableParts | null = null;
  /** The durable parts' generation and what they were last written as. */
  gen: number;
  private fingerprint = '';
  private logLength: number;
  private logChars: number;
  private snapChars: number;

  constructor(
    private readonly redis: SandboxRedis,
    readonly lease: LeaseHandle,
    private readonly counters: StoreCounters,
    /** `lapsed`: nobody holds the lease now (it lapsed while Redis was away, or this node paused); else another node does. */
    private readonly onFenced: (lease: LeaseHandle, lapsed: boolean) => void,
    private readonly onFailure: (err: Error) => void,
    loaded: { gen: number; logLength: number; logChars: number; snapChars: number } = { gen: 0, logLength: 0, logChars: 0, snapChars: 0 },
  ) {
    super();
    this.retryDelayMs = 250;
    this.readsWaitAfterFailure = false;
    this.incidentalDelayMs = 1_000; // last_used_at: a kill -9 may lose its last second, as with a data file its last value
    this.gen = loaded.gen;
    this.logLength = loaded.logLength;
    this.logChars = loaded.logChars;
    this.snapChars = loaded.snapChars;
  }

  /** The namespace whose parts a snapshot holds (set once it is made). */
  attach(ns: Namespace): void {
    this.ns = ns;
    this.fingerprint = fingerprintOf(ns);
  }

  /**
   * After a control call: when it changed the durable parts (clock, scenario definitions and
   * activations, webhook behaviour), they are written with the next append, which its answer waits for.
   */
  noteControlCall(): void {
    const ns = this.ns;
    if (!ns) return;
    const fingerprint = fingerprintOf(ns);
    if (fingerprint === this.fingerprint) return;
    this.fingerprint = fingerprint;
    this.partsDue = durablePartsOf(ns, ++this.gen);
    this.awaitNextWrite();
  }

  protected override compactionDue(): boolean {
    if (this.lease.lost) return false;
    return this.logLength > COMPACT_ENTRIES || this.logChars > Math.max(MIN_COMPACT_CHARS, this.snapChars / 2);
  }

  /**
   * Nothing more is written under a lost lease: what is pending is dropped (never acknowledged), and
   * the requests waiting get a 503 saying why (`lapsed`: it ran out with nobody taking it, else another node holds it).
   */
  private abandon(lapsed = false): never {
    this.clearPending();
    this.snapshotDue = false;
    this.partsDue = null;
    throw lapsed ? leaseLapsed(this.lease.name) : notOwned(this.lease.name);
  }

  protected flushNeeded(): boolean {
    return this.snapshotDue || this.pending.length > 0 || this.partsDue !== null;
  }

  protected unheardFailure(err: Error): void {
    this.onFailure(err);
  }

  protected async writeDue(): Promise<void> {
    if (this.snapshotDue || this.compactionDue()) return this.writeSnapshot();
    if (this.pending.length === 0 && this.partsDue === null) return;
    const entry: { c?: unknown[]; p?: DurableParts } = {};
    if (this.pending.length > 0) entry.c = this.takePending();
    if (this.partsDue) entry.p = this.partsDue;
    this.partsDue = null;
    const text = JSON.stringify(entry);
    const keys = nsKeys(this.lease.name);
    this.logLength = Number(await this.call('stateAppend', [keys.lease, keys.snap, keys.log, namespacesKey], [this.lease.holder, '0', text, this.lease.name]));
    this.logChars += text.length;
  }

  /**
   * The whole state: while every collection is still the fixtures' (a reset), the snapshot and log
   * are deleted and one entry holds the parts; otherwise a snapshot of the collections it changed
   * and the parts replaces them.
   */
  protected async writeSnapshot(): Promise<void> {
    const ns = this.ns;
    if (!ns) return;
    this.snapshotDue = true; // until written: a failure is retried by the next write
    this.clearPending();
    this.fingerprint = fingerprintOf(ns);
    const parts = durablePartsOf(ns, ++this.gen);
    this.partsDue = null;
    const keys = nsKeys(this.lease.name);
    const scriptKeys = [keys.lease, keys.snap, keys.log, namespacesKey];
    if (ns.store.allShared) {
      const text = JSON.stringify({ p: parts });
      await this.call('stateAppend', scriptKeys, [this.lease.holder, '1', text, this.lease.name]);
      this.logLength = 1;
      this.logChars = text.length;
      this.snapChars = 0;
    } else {
      const text = encodeSnapshot(ns.store, parts);
      await this.call('stateSnapshot', scriptKeys, [this.lease.holder, text, this.lease.name]);
      this.logLength = 0;
      this.logChars = 0;
      this.snapChars = text.length;
    }
    this.snapshotDue = false;
  }

  private async call(name: 'stateAppend' | 'stateSnapshot', keys: string[], args: string[]): Promise<unknown> {
    if (this.lease.lost) return this.abandon();
    this.counters.roundTrips++;
    try {
      return await this.redis.run(name, keys, args);
    } catch (err) {
      this.counters.failures++;
      if (isFenced(err)) {
        const lapsed = fencedByLapse(err);
        this.onFenced(this.lease, lapsed);
        return this.abandon(lapsed);
      }
      // Redis may or may not have it: only a snapshot (what memory holds) can follow.
      this.snapshotDue = true;
      throw ApiError.unavailable(
        `The change could not be recorded in the shared store (Redis at ${this.redis.address}: ${(err as Error).message}), so it is not acknowledged. Retry once Redis is back; this node reconnects by itself.`,
        1,
      );
    }
  }
}

function notOwned(name: string): ApiError {
  return ApiError.unavailable(
    `Namespace '${name}' moved to another node of the shared sandbox while this request was handled, so its change is not acknowledged here. Retry: the proxy sends it to the new owner.`,
    1,
  );
}

/** A lapse is not a move (one node alone sees it too, when it pauses or is starved past --lease-ms): said as such. */
function leaseLapsed(name: string): ApiError {
  return ApiError.unavailable(
    `Namespace '${name}' was not written to the shared store: this node's lease on it lapsed before the change got there (this node was paused or too busy, or Redis was unreachable, for longer than --lease-ms), so the change is not acknowledged. Retry: the namespace is loaded again from Redis.`,
    1,
  );
}
