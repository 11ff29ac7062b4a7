// Which namespaces this node owns, and how it comes to own one and lets it go.
//
// A namespace is served from memory only while this node holds its lease by its own monotonic
// clock: the lease's deadline is the instant before the renewal was sent plus the lease time, less
// a margin (Redis counts from when it received it, later). A node paused past its deadline
// (SIGSTOP, a long GC, Redis unreachable so renewals fail) finds it passed on its first request
// after waking and serves nothing of that namespace from memory until it holds a lease again.
//
// Not owned: take the lease if free or lapsed (the epoch grows by one) and load the state from
// Redis; held by another node: ask it to hand over (pub/sub), which flushes, then releases; wait a
// bounded time, else 503 with Retry-After. Renewals run in the background, every third of the lease.
//
// A namespace never created is leased only by the call that creates it (admitted: an authenticated
// API call, a control call past the admin token): before that, a request naming it takes no lease
// and Redis keeps nothing of it. A lease this node holds for a name its registry does not hold (a
// call that leased it and was then not admitted) is released at the next renewal, never renewed.
import { ApiError } from '../errors/api-error.js';
import { JOURNAL } from '../journal/journal.js';
import type { Namespace } from '../namespace/namespace.js';
import type { NamespaceRegistry } from '../namespace/registry.js';
import { Store } from '../store/store.js';
import { KEYS, nsKeys, type SandboxRedis } from './redis.js';
import { type LeaseHandle, RedisPersistence, type StoreCounters } from './redis-persistence.js';
import { applyParts, decodeNamespace, type StoredNamespace } from './state-codec.js';
import { type Shipped, VolatileWriter } from './volatile-writer.js';

export interface Owned extends Shipped {
  epoch: number;
  /** performance.now() past which it is not served from memory. */
  deadline: number;
  acquiredAt: number;
  /** Being handed over: flushed, then released. */
  leaving: boolean;
  persistence: RedisPersistence | null;
  /** The volatile write in progress: one at a time per namespace (a handover's and the periodic one would send entries twice). */
  volatileWriting: Promise<void> | null;
}

export interface OwnershipOptions {
  redis: SandboxRedis;
  nodeId: () => string;
  /** This process among those that ever ran under its node id (random per start): part of every lease it holds. */
  instance: string;
  leaseMs: number;
  seed: number;
  journalSize: number;
  /** Tells every node (pub/sub): ask the owner to hand over, or say a namespace was released. */
  publish(message: { type: 'handover' | 'released'; ns: string }): void;
  log(level: 'info' | 'warn', fields: Record<string, unknown>, message: string): void;
}

/** A namespace taken less than this long ago is not handed over yet (two proxies briefly disagreeing must not bounce it). */
const MIN_HOLD_MS = 300;
/** While waiting for an owner to hand over, it is asked again this often. */
const ASK_AGAIN_MS = 500;
/** At most one line this often for changes that could not be written in the background. */
const UNWRITTEN_LOG_EVERY_MS = 10_000;
/**
 * Leases renewed by one script call. A thousand keep Redis busy about 2 ms (2,000 renewals sent one
 * call each in a pipeline held it 8 ms and cost the node 24 ms of CPU; in calls of a thousand, 3 ms).
 */
const RENEW_PER_CALL = 1_000;

export class Ownership {
  readonly owned = new Map<string, Owned>();
  readonly counters: StoreCounters = { roundTrips: 0, failures: 0 };
  readonly leaseChanges = { acquired: 0, released: 0, lost: 0 };
  /** What the renewal calls' answers said of each lease: still this node's, taken by another node, lapsed (a renewal whose every call failed counts in `counters.failures`). */
  readonly renewals = { renewed: 0, taken: 0, lapsed: 0 };
  private registry!: NamespaceRegistry;
  private readonly acquiring = new Map<string, Promise<void>>();
  private readonly waiting = new Map<string, Set<() => void>>();
  /** Handovers in progress. */
  private readonly leavingNow = new Set<Promise<void>>();
  private readonly persistenceOf = new WeakMap<Store, RedisPersistence>();
  /** Ships the journal entries and step counters (volatile-writer.ts). */
  private readonly volatile: VolatileWriter;
  private unwritten = { loggedAt: Number.NEGATIVE_INFINITY, since: 0 };
  private readonly margin: number;
  /** Most time a request waits for a namespace to become this node's. */
  readonly waitMs: number;

  constructor(private readonly options: OwnershipOptions) {
    this.margin = Math.max(100, Math.round(options.leaseMs / 10));
    this.waitMs = options.leaseMs + 1_000;
    this.volatile = new VolatileWriter(options.redis, options.journalSize, this.counters);
  }

  setRegistry(registry: NamespaceRegistry): void {
    this.registry = registry;
  }

  /** The namespace's lease, when this node may serve it from memory now (the request path: one lookup, one clock read). */
  serving(name: string): Owned | undefined {
    const owned = this.owned.get(name);
    return owned !== undefined && !owned.leaving && performance.now() < owned.deadline ? owned : undefined;
  }

  /**
   * Makes this node the namespace's owner, loading its state; a 503 when that cannot be done in time.
   * Without `create`, a namespace never created (and held by no node) is left alone: no lease, and
   * the call goes on with the state a new one starts from. One acquisition per name at a time.
   */
  ensure(name: string, create = false): Promise<void> {
    const running = this.acquiring.get(name);
    if (running) return create ? running.then(() => (this.serving(name) ? undefined : this.ensure(name, true))) : running;
    const started = this.acquire(name, create).finally(() => this.acquiring.delete(name));
    this.acquiring.set(name, started);
    return started;
  }

  private async acquire(name: string, create: boolean): Promise<void> {
    const until = performance.now() + this.waitMs;
    let askedAt = Number.NEGATIVE_INFINITY;
    let holder = '';
    for (;;) {
      const current = this.owned.get(name);
      if (current?.leaving) {
        await this.released(name, Math.max(1, until - performance.now()));
      } else {
        const taken = await this.acquireOnce(name, create);
        if (taken === null) return;
        if (taken === 'absent') {
          // Never created, and nobody holds it: whatever this node kept of that name is stale.
          if (current && !current.lost) this.lose(current, this.lapsed());
          else this.registry.remove(name);
          return;
        }
        holder = taken.holder;
        if (performance.now() - askedAt >= ASK_AGAIN_MS) {
          this.options.publish({ type: 'handover', ns: name });
          askedAt = performance.now();
        }
        const left = until - performance.now();
        if (left <= 0) break;
        await this.released(name, Math.min(left, Math.max(20, Math.min(taken.pttl, 200))));
      }
      if (performance.now() >= until) break;
    }
    throw ApiError.unavailable(
      `Namespace '${name}' is held by node ${holder || '(another)'} of the shared sandbox, which has not handed it over within ${this.waitMs} ms (it may be paused or stopping; its lease lapses within ${this.options.leaseMs} ms of its last renewal). Retry.`,
      this.options.leaseMs / 1000,
    );
  }

  /**
   * One try: null once this node holds the lease (and the state is loaded), 'absent' when the
   * namespace was never created and nobody holds it (without `create`), else who holds it and for how long.
   */
  private async acquireOnce(name: string, create: boolean): Promise<{ holder: string; pttl: number } | 'absent' | null> {
    const keys = nsKeys(name);
    const sentAt = performance.now();
    const reply = (await this.redisCall(() =>
      this.options.redis.run(
        'leaseAcquire',
        [keys.lease, keys.epoch, KEYS.namespaces],
        [this.options.nodeId(), this.options.leaseMs, name, create ? '1' : '0', this.options.instance],
      ),
    )) as [number, number | string, number, number];
    if (reply[0] === 2) return 'absent';
    if (reply[0] !== 1) return { holder: String(reply[1]), pttl: Number(reply[2]) };
    const epoch = Number(reply[1]);
    const deadline = sentAt + this.options.leaseMs - this.margin;
    const current = this.owned.get(name);
    if (current && current.epoch === epoch && !current.lost) {
      current.deadline = deadline;
      return null;
    }
    const owned: Owned = {
      name,
      holder: `${this.options.nodeId()}\n${epoch}\n${this.options.instance}`,
      lost: false,
      epoch,
      deadline,
      acquiredAt: performance.now(),
      leaving: false,
      touched: true,
      persistence: null,
      journalSent: 0,
      journalGeneration: 0,
      journalInRedis: 0,
      journalBytesInRedis: 0,
      journalShippedAt: performance.now(),
      volatileSent: '',
      volatileWriting: null,
    };
    if (current && !current.lost)
      this.lose(current, this.lapsed()); // its lease lapsed unnoticed (a pause, Redis away): said once, whoever notices first
    else if (current) this.drop(current);
    try {
      await this.load(owned, reply[3] === 1);
    } catch (err) {
      await this.options.redis.run('leaseRelease', [keys.lease], [owned.holder]).catch(() => undefined);
      if (err instanceof ApiError) throw err;
      throw ApiError.unavailable(`Namespace '${name}' could not be loaded from the shared store: ${(err as Error).message}.`, 1);
    }
    this.owned.set(name, owned);
    this.leaseChanges.acquired++;
    return null;
  }

  /** Reads the namespace's state in one round trip and installs it here (nothing, and no round trip, when it was never created). */
  private async load(owned: Owned, created: boolean): Promise<void> {
    if (!created) {
      this.registry.remove(owned.name); // whatever this node had of it is stale now; admit() makes it
      return;
    }
    const keys = nsKeys(owned.name);
    const stored = await this.redisCall(async () => {
      const results = await this.options.redis.client
        .pipeline()
        .get(keys.snap)
        .lrange(keys.log, 0, -1)
        .get(keys.volatile)
        .lrangeBuffer(keys.journal, 0, -1)
        .get(keys.journalMeta)
        .sismember(KEYS.namespaces, owned.name)
        .exec();
      const failed = results?.find(([err]) => err);
      if (!results || failed) throw failed?.[0] ?? new Error('no reply');
      const [snap, log, volatile, journal, journalMeta, registered] = results.map(([, value]) => value);
      return {
        snap: snap as string | null,
        log: log as string[],
        volatile: volatile as string | null,
        journal: journal as Buffer[],
        journalMeta: journalMeta as string | null,
        registered: registered === 1,
      } satisfies StoredNamespace;
    });
    this.registry.remove(owned.name); // whatever this node had of it is stale now
    if (!stored.registered && stored.snap === null && stored.log.length === 0) return; // never created: admit() makes it
    const template = this.registry.templateStore();
    const decoded = decodeNamespace(stored, template, this.options.seed);
    const persistence = this.persistence(owned, {
      gen: decoded.parts?.gen ?? 0,
      logLength: decoded.logLength,
      logChars: decoded.logChars,
      snapChars: decoded.snapChars,
    });
    const store = Store.partlyShared(template, decoded.own, persistence);
    this.persistenceOf.set(store, persistence);
    const ns = this.registry.install(owned.name, store);
    applyParts(ns, decoded);
    persistence.attach(ns); // what the parts are now is what Redis holds
    const journal = ns.part(JOURNAL);
    owned.journalSent = journal.lastId;
    owned.journalGeneration = journal.generation;
    owned.journalInRedis = decoded.journal?.records.length ?? 0;
    owned.journalBytesInRedis = decoded.journal?.records.reduce((n, r) => n + r.length, 0) ?? 0;
  }

  /** The store of a namespace created on this node (registry.admit): it writes under this node's lease, or refuses when there is none. */
  newStore(name: string, template: Store): Store {
    const owned = this.owned.get(name) ?? { name, holder: '', lost: true };
    const persistence = this.persistence(owned as Owned);
    const store = Store.sharing(template, persistence);
    this.persistenceOf.set(store, persistence);
    return store;
  }

  /** A namespace was made on this node: its persistence learns of it (its parts go into snapshots). */
  created(ns: Namespace): void {
    this.persistenceOf.get(ns.store)?.attach(ns);
  }

  /** The persistence of a namespace's store here, if it has one. */
  persistenceOfStore(store: Store): RedisPersistence | undefined {
    return this.persistenceOf.get(store);
  }

  private persistence(owned: Owned, loaded?: ConstructorParameters<typeof RedisPersistence>[5]): RedisPersistence {
    const persistence = new RedisPersistence(
      this.options.redis,
      owned,
      this.counters,
      (lease, lapsed) => this.lose(lease, lapsed ? this.lapsed() : 'a write was refused: another node holds its lease now'),
      (err) => this.unwrittenChange(owned.name, err),
      loaded,
    );
    if (owned.lost === false) owned.persistence = persistence;
    return persistence;
  }

  /**
   * A change nobody waited for could not be written (it is retried every 250 ms): one warn line per
   * UNWRITTEN_LOG_EVERY_MS at most for the node, counting the failures in between, so a Redis outage
   * (already logged once as such by the cluster) does not log four lines a second per namespace.
   */
  private unwrittenChange(name: string, err: Error): void {
    const now = performance.now();
    if (now - this.unwritten.loggedAt < UNWRITTEN_LOG_EVERY_MS) {
      this.unwritten.since++;
      return;
    }
    const more = this.unwritten.since ? ` (and ${this.unwritten.since} more failed writes since the last such line)` : '';
    this.unwritten = { loggedAt: now, since: 0 };
    this.options.log(
      'warn',
      { namespace: name, err: err.message },
      `a change of namespace '${name}' nobody waited for could not be written: ${err.message}; retried every 250 ms${more}`,
    );
  }

  /**
   * Renews every lease in one round trip; a lease found lost stops being served at once. Also called
   * for the node's heartbeat. A lease of a name the registry does not hold (leased by a call that
   * was then not admitted) is released instead.
   */
  async renewAll(): Promise<void> {
    for (const o of this.owned.values()) if (!o.leaving && !o.lost && !this.registry.has(o.name) && !this.acquiring.has(o.name)) this.release(o);
    const leases = [...this.owned.values()].filter((o) => !o.leaving && !o.lost);
    if (leases.length === 0) return;
    const chunks: Owned[][] = [];
    for (let at = 0; at < leases.length; at += RENEW_PER_CALL) chunks.push(leases.slice(at, at + RENEW_PER_CALL));
    const sentAt = performance.now();
    this.counters.roundTrips++;
    // The calls of one turn leave in one write (auto-pipelining); a chunk that failed is left to lapse.
    const replies = await Promise.allSettled(
      chunks.map((chunk) =>
        this.options.redis.run(
          'leaseRenewMany',
          chunk.map((o) => nsKeys(o.name).lease),
          [...chunk.map((o) => o.holder), this.options.leaseMs],
        ),
      ),
    );
    if (replies.every((reply) => reply.status === 'rejected')) {
      this.counters.failures++;
      return; // Redis unreachable: the deadlines lapse by themselves
    }
    replies.forEach((reply, c) => {
      if (reply.status === 'rejected') return;
      const renewed = reply.value as number[];
      chunks[c].forEach((o, i) => {
        if (renewed[i] === 1) {
          o.deadline = sentAt + this.options.leaseMs - this.margin;
          this.renewals.renewed++;
        } else if (renewed[i] === 0) {
          this.renewals.taken++;
          this.lose(o, 'its lease lapsed and another node holds it now (this node was paused or cut off from Redis)');
        } else if (renewed[i] === -1) {
          this.renewals.lapsed++;
          this.lose(o, this.lapsed());
        }
      });
    });
  }

  /** Why a lease nobody else took was lost. */
  private lapsed(): string {
    return `its lease lapsed and nobody holds it now (Redis was unreachable, or this node paused, for longer than --lease-ms ${this.options.leaseMs}); it is loaded again from Redis on its next request`;
  }

  /**
   * A lease taken for a call that then did not create the namespace (refused at the cap, say): given
   * back at once, so Redis keeps nothing of a name nobody created but its epoch.
   */
  releaseUnadmitted(name: string): void {
    const owned = this.owned.get(name);
    if (owned && !owned.leaving && !owned.lost && !this.registry.has(name)) this.release(owned);
  }

  /** Gives a lease back without a handover (nothing of the namespace lives here to write first). */
  private release(owned: Owned): void {
    owned.lost = true;
    this.owned.delete(owned.name);
    this.leaseChanges.released++;
    void this.options.redis.run('leaseRelease', [nsKeys(owned.name).lease], [owned.holder]).catch(() => undefined);
  }

  /** Another node asks for the namespace: write what is pending, then release the lease. */
  handOver(name: string): Promise<void> {
    const owned = this.owned.get(name);
    if (!owned || owned.leaving || owned.lost) return Promise.resolve();
    if (performance.now() - owned.acquiredAt < MIN_HOLD_MS) return Promise.resolve(); // asked again soon
    owned.leaving = true;
    const leaving = this.leave(owned).finally(() => this.leavingNow.delete(leaving));
    this.leavingNow.add(leaving);
    return leaving;
  }

  private async leave(owned: Owned): Promise<void> {
    const { name } = owned;
    try {
      await owned.persistence?.sync().catch(() => undefined);
      await this.writeVolatile(owned, true).catch(() => undefined);
      await this.options.redis.run('leaseRelease', [nsKeys(name).lease], [owned.holder]).catch(() => undefined);
    } finally {
      this.drop(owned);
      this.leaseChanges.released++;
      this.options.log('info', { namespace: name, epoch: owned.epoch }, `namespace '${name}' handed over`);
      this.options.publish({ type: 'released', ns: name });
    }
  }

  /** Every namespace is handed back (a graceful stop): written, released. */
  async releaseAll(): Promise<void> {
    for (const owned of [...this.owned.values()]) {
      owned.acquiredAt = Number.NEGATIVE_INFINITY;
      await this.handOver(owned.name);
    }
    // Handovers another node asked for just before the stop: the connection must outlive their release,
    // else their leases stay held by a node that is gone until they lapse.
    await Promise.all([...this.leavingNow]);
  }

  /** A node said it released a namespace: whoever waits for it tries again now. */
  wasReleased(name: string): void {
    const waiters = this.waiting.get(name);
    if (!waiters) return;
    this.waiting.delete(name);
    for (const wake of waiters) wake();
  }

  private released(name: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(name) ?? new Set();
      this.waiting.set(name, waiters);
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
    });
  }

  /** The lease is gone: nothing of the namespace is served from here any more. */
  lose(lease: LeaseHandle, why: string): void {
    const owned = this.owned.get(lease.name);
    lease.lost = true;
    if (owned !== lease) return;
    this.drop(owned);
    this.leaseChanges.lost++;
    this.options.log('warn', { namespace: owned.name, epoch: owned.epoch }, `namespace '${owned.name}' is no longer this node's: ${why}`);
  }

  private drop(owned: Owned): void {
    owned.lost = true;
    if (this.owned.get(owned.name) === owned) this.owned.delete(owned.name);
    this.registry.remove(owned.name);
  }

  /** A namespace left this node's memory: evicted (its state stays in Redis; the lease is released) or deleted (its state too). */
  async removed(ns: Namespace, why: 'evicted' | 'deleted' | 'handed over'): Promise<void> {
    const owned = this.owned.get(ns.name);
    if (why === 'deleted') {
      const keys = nsKeys(ns.name);
      await this.options.redis
        .run('stateDrop', [keys.lease, keys.snap, keys.log, keys.volatile, keys.journal, keys.journalMeta, KEYS.namespaces], [ns.name, owned?.holder ?? ''])
        .catch(() => undefined);
      if (owned) {
        owned.lost = true;
        this.owned.delete(ns.name);
      }
      return;
    }
    if (owned && why === 'evicted') {
      owned.leaving = true;
      await this.writeVolatile(owned, true, ns).catch(() => undefined); // its journal and counters, as at a handover
      await this.options.redis.run('leaseRelease', [nsKeys(ns.name).lease], [owned.holder]).catch(() => undefined);
      owned.lost = true;
      this.owned.delete(ns.name);
      this.leaseChanges.released++;
    }
  }

  /** Writes the journal entries and step counters of every namespace used since the last time (a few times a second). */
  async writeVolatileAll(): Promise<void> {
    // All at once, not one after another: one at a time, a pass over the namespaces of a busy node
    // took longer than the interval (p50 0.2-0.6 s, up to 1.7 s under bench:org; at once 30 ms, at
    // most 0.12 s), so a kill -9 lost more than the 250 ms of journal the docs promise.
    const due = [...this.owned.values()].filter((owned) => owned.touched && !owned.lost);
    await Promise.all(
      due.map((owned) => {
        owned.touched = false;
        return this.writeVolatile(owned).catch(() => {
          owned.touched = true; // next time
        });
      }),
    );
  }

  /** `force`: the whole journal now, whatever the budget (a handover, a stop). One write at a time per namespace. */
  private async writeVolatile(owned: Owned, force = false, ns = this.registry.peek(owned.name)): Promise<void> {
    while (owned.volatileWriting) await owned.volatileWriting.catch(() => undefined);
    const writing = this.volatile.send(owned, force, ns);
    owned.volatileWriting = writing;
    try {
      await writing;
    } finally {
      owned.volatileWriting = null;
    }
  }

  private async redisCall<T>(call: () => Promise<T>): Promise<T> {
    this.counters.roundTrips++;
    try {
      return await call();
    } catch (err) {
      this.counters.failures++;
      throw ApiError.unavailable(
        `The shared store (Redis at ${this.options.redis.address}) cannot be reached (${(err as Error).message}), so this node cannot take a namespace it does not hold. Retry once Redis is back.`,
        1,
      );
    }
  }
}
