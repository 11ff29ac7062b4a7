// One node of a shared sandbox (--store redis://HOST:PORT): several sandbox processes behind a
// proxy that sends each namespace to one of them by consistent hashing (deploy/haproxy.cfg), with
// leases, state and a registry of namespaces and nodes in Redis. This node:
//  - connects at boot (an unreachable Redis stops the start, naming the address);
//  - registers itself (a `nodes` hash entry, and a key that lives while it renews it);
//  - owns namespaces (owner.ts), renewing their leases and its own key every third of a lease,
//    and writes their journals and step counters a few times a second (VOLATILE_EVERY_MS);
//  - answers the other nodes over pub/sub: hand over a namespace, list, reset or drop namespaces.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { namespaceItem } from '../admin/namespaces.js';
import { resetNamespace } from '../admin/reset.js';
import type { SandboxConfig } from '../config.js';
import { ApiError } from '../errors/api-error.js';
import type { HostedCall, NamespaceHost, NamespaceItem } from '../namespace/host.js';
import type { Namespace } from '../namespace/namespace.js';
import type { NamespaceRegistry, NamespaceStorage } from '../namespace/registry.js';
import type { Store } from '../store/store.js';
import { Ownership } from './owner.js';
import { BROKEN_FENCE_SWITCH, connectRedis, fenceBroken, KEYS, nsKeys, type SandboxRedis } from './redis.js';
import { admitNamespace, ownNamespace } from './serve-namespace.js';

/** How often journals and step counters of the namespaces in use are written (what a kill -9 may lose of them). */
export const VOLATILE_EVERY_MS = 250;
/** How long a request across nodes waits for every node's answer. */
const NODE_ANSWER_MS = 2_000;
/** A drain ends once no call has come for this long (the proxy's three 1 s checks saw the 503)... */
const DRAIN_QUIET_MS = 1_000;
/** ...or after this long at most (a client calling the node directly keeps calling). */
const DRAIN_MAX_MS = 10_000;

type Request =
  | { type: 'handover' | 'released'; ns: string; from: string }
  | { type: 'list' | 'reset' | 'drop'; id: string; from: string; journal?: boolean; ns?: string; names?: string[] };

interface Reply {
  id: string;
  node: string;
  items?: NamespaceItem[];
  names?: string[];
  dropped?: boolean;
}

export class Cluster implements NamespaceHost {
  readonly ownership: Ownership;
  registry!: NamespaceRegistry;
  private nodeId = '';
  /** This process: a lease names it besides the node id, so a later process under the same id never passes for it. */
  private readonly instance = randomBytes(6).toString('hex');
  private url = '';
  private ready = false;
  private lostAt = 0;
  private closing = false;
  /** Stopping: health answers 503 so the proxy stops sending, while calls are still served (drain). */
  private draining = false;
  /** When the last call bound to a namespace arrived (health checks and the like do not count). */
  private lastCallAt = Number.NEGATIVE_INFINITY;
  private timers: NodeJS.Timeout[] = [];
  private subscriber: SandboxRedis['client'] | null = null;
  private readonly pending = new Map<string, { expect: Set<string>; replies: Reply[]; done: () => void }>();

  private constructor(
    private readonly redis: SandboxRedis,
    private readonly config: SandboxConfig,
    private readonly logger: Logger,
  ) {
    this.ownership = new Ownership({
      redis,
      nodeId: () => this.nodeId,
      instance: this.instance,
      leaseMs: config.leaseMs,
      seed: config.seed,
      journalSize: config.journalSize,
      publish: (message) => this.publish({ ...message, from: this.nodeId }),
      log: (level, fields, message) => logger[level]({ event: 'cluster', node: this.nodeId, ...fields }, message),
    });
  }

  /**
   * Connects to Redis (a failure names the address and stops the start). A command may take as long
   * as a lease (at least 2 s) before it counts as Redis gone: on a saturated machine a reply read late
   * is still a reply, and a write failed for a late reply is a 503 a CI job did not need (bench:org).
   */
  static async connect(config: SandboxConfig, logger: Logger): Promise<Cluster> {
    return new Cluster(await connectRedis(config.store, 3_000, Math.max(2_000, config.leaseMs)), config, logger);
  }

  /** Where the registry's namespaces keep their records: Redis, under this node's leases; `default` is made like any other, when first needed. */
  storage(): NamespaceStorage {
    return {
      madeAtStart: [],
      newStore: (name, template) => this.ownership.newStore(name, template),
      created: (ns) => this.ownership.created(ns),
      removed: (ns, why) => void this.ownership.removed(ns, why),
    };
  }

  attach(registry: NamespaceRegistry): void {
    this.registry = registry;
    this.ownership.setRegistry(registry);
  }

  /** Once listening: joins the cluster under `nodeId` (subscribes, registers, starts renewing). */
  async start(nodeId: string, url: string): Promise<void> {
    this.nodeId = nodeId;
    this.url = url;
    await this.claimNodeId();
    const subscriber = this.redis.client.duplicate();
    subscriber.on('error', () => undefined);
    if (subscriber.status === 'wait') await subscriber.connect();
    subscriber.on('message', (channel: string, text: string) => this.onMessage(channel, text));
    await subscriber.subscribe(KEYS.control, KEYS.replies(nodeId));
    this.subscriber = subscriber;
    await this.heartbeat();
    const every = Math.max(100, Math.round(this.config.leaseMs / 3));
    this.redis.watchConnection((up, problem) => this.storeConnection(up, problem));
    this.timers.push(setInterval(() => void this.heartbeat().catch(() => undefined), every));
    this.timers.push(setInterval(() => void this.ownership.writeVolatileAll().catch(() => undefined), VOLATILE_EVERY_MS));
    for (const timer of this.timers) timer.unref();
    this.ready = true;
    this.logger.info(
      { event: 'cluster', node: nodeId, instance: this.instance, store: this.redis.address, lease_ms: this.config.leaseMs },
      `node ${nodeId} joined the shared sandbox at ${this.redis.address}`,
    );
    if (fenceBroken)
      this.logger.warn(
        { event: 'cluster', node: nodeId, switch: BROKEN_FENCE_SWITCH.name },
        `${BROKEN_FENCE_SWITCH.name} is set: this node's writes are NOT fenced (test only; acknowledged writes can be lost)`,
      );
  }

  /** One line when Redis is lost and one when it is back (health says so meanwhile), whatever ioredis retries in between. */
  private storeConnection(up: boolean, problem: string): void {
    if (this.closing) return;
    const fields = { event: 'cluster', node: this.nodeId, store: this.redis.address };
    if (up) {
      const seconds = ((performance.now() - this.lostAt) / 1000).toFixed(1);
      this.logger.info(fields, `Redis at ${this.redis.address} is back after ${seconds} s: writes are accepted again, leases are taken again as requests come`);
      return;
    }
    this.lostAt = performance.now();
    this.logger.warn(
      { ...fields, err: problem },
      `lost Redis at ${this.redis.address} (${problem}): reads of the namespaces this node owns are served while their leases last, writes are answered 503; reconnecting`,
    );
  }

  /**
   * Two live processes under one id would both believe they hold its leases: the id's key must be
   * free (a node killed a moment ago frees it within a lease; a start waits that long, then fails).
   */
  private async claimNodeId(): Promise<void> {
    const until = performance.now() + this.config.leaseMs + 500;
    const value = `${process.pid}@${this.url}`;
    for (;;) {
      if ((await this.redis.client.set(KEYS.alive(this.nodeId), value, 'PX', this.config.leaseMs, 'NX')) === 'OK') return;
      if (performance.now() > until) {
        throw new Error(`node id ${this.nodeId} is in use by a live node of the shared sandbox at ${this.redis.address}: give each node its own --node-id`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async heartbeat(): Promise<void> {
    const node = JSON.stringify({ id: this.nodeId, url: this.url, pid: process.pid, started_at: startedAt });
    await this.redis.client.multi().hset(KEYS.nodes, this.nodeId, node).set(KEYS.alive(this.nodeId), '1', 'PX', this.config.leaseMs).exec();
    await this.ownership.renewAll();
  }

  /** Whether the ownership step applies: a node that has not joined yet (or is leaving) answers 503. */
  checkReady(): void {
    if (this.ready && !this.closing) return;
    throw ApiError.unavailable(
      `This node of the shared sandbox is ${this.closing ? 'stopping' : 'starting'}; retry (the proxy sends the request to another node).`,
      1,
    );
  }

  /**
   * A change to a namespace while Redis cannot be reached is refused before it is made: it could not
   * be recorded, and a change made and then refused would stay in memory, shown by reads although
   * never acknowledged. (Redis lost during the change itself still answers 503 after it: see
   * redis-persistence.ts.)
   */
  checkWritable(method: string): void {
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || this.redis.client.status === 'ready') return;
    throw ApiError.unavailable(
      `The shared store (Redis at ${this.redis.address}) cannot be reached, so this change was not made. Retry once Redis is back; this node reconnects by itself.`,
      1,
    );
  }

  own<C extends HostedCall>(call: C, anyNode: (call: C) => boolean): void | Promise<void> {
    if (!anyNode(call)) this.lastCallAt = performance.now();
    return ownNamespace(this, call, anyNode);
  }

  /**
   * Before a graceful stop: health answers 503 at once while calls are still served, until none has
   * come for DRAIN_QUIET_MS (the proxy marked this node down and sends them to the next node, which
   * asks for a handover) or DRAIN_MAX_MS passed. Closing the connections at once instead raced the
   * proxy: a call it sent on a kept-alive connection as the node closed it failed ("other side closed").
   */
  async drain(): Promise<void> {
    if (!this.ready || this.closing) return;
    this.draining = true;
    const until = performance.now() + DRAIN_MAX_MS;
    while (performance.now() < until && performance.now() - this.lastCallAt < DRAIN_QUIET_MS) await sleep(50);
  }

  admit(name: string): Namespace | Promise<Namespace> {
    return admitNamespace(this, this.registry, name);
  }

  health() {
    const connected = this.redis.client.status === 'ready';
    const problem = connected
      ? null
      : `Redis at ${this.redis.address} cannot be reached: reads of the namespaces this node owns are served while their leases last, writes are answered 503; it reconnects by itself`;
    return {
      ready: this.ready && !this.closing && !this.draining,
      store: { kind: 'redis' as const, address: this.redis.address, status: connected ? ('connected' as const) : ('unavailable' as const), problem },
      owned: [...this.ownership.owned.keys()].sort(),
    };
  }

  metrics() {
    return {
      held: this.ownership.owned.size,
      storeRoundTrips: this.ownership.counters.roundTrips,
      storeFailures: this.ownership.counters.failures,
      leaseChanges: { ...this.ownership.leaseChanges },
      leaseRenewals: { ...this.ownership.renewals },
    };
  }

  /** After a control call on a namespace: its changed clock, scenarios or webhook behaviour are written with its next append. */
  noteControlCall(ns: Namespace): void {
    const owned = this.ownership.serving(ns.name);
    if (owned) owned.touched = true;
    this.ownership.persistenceOfStore(ns.store)?.noteControlCall();
  }

  /** Where a control call's answer waits: its namespace's store, with what the call changed besides records (clock, scenarios, webhook behaviour). */
  storeOfControlCall(ns: Namespace): Store {
    this.noteControlCall(ns);
    return ns.store;
  }

  async list(): Promise<NamespaceItem[]> {
    const replies = await this.ask({ type: 'list' });
    const items = new Map<string, NamespaceItem>();
    for (const reply of replies) for (const item of reply.items ?? []) items.set(item.name, item);
    // The namespaces nobody holds now: what Redis says of them.
    for (const name of await this.redis.client.smembers(KEYS.namespaces)) {
      if (items.has(name)) continue;
      const keys = nsKeys(name);
      const [epoch, volatile, journalSize, journalMeta] = await Promise.all([
        this.redis.client.get(keys.epoch),
        this.redis.client.get(keys.volatile),
        this.redis.client.llen(keys.journal),
        this.redis.client.get(keys.journalMeta),
      ]);
      const at = volatile ? (JSON.parse(volatile) as { at?: string }).at : undefined;
      items.set(name, {
        name,
        last_used_at: at ?? new Date(0).toISOString(),
        record_counts: {},
        journal_size: journalSize,
        journal_dropped: journalMeta ? ((JSON.parse(journalMeta) as { dropped?: number }).dropped ?? 0) : 0,
        node: null,
        epoch: epoch === null ? null : Number(epoch),
      });
    }
    return [...items.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Every namespace back to the fixtures: each node resets those it holds, and Redis those nobody
   * holds. One held by a node that did not reset it (taken meanwhile, or by a node that did not
   * answer) is asked for again once; still not reset, the answer is a 503 naming it and its holder:
   * never a namespace said to be reset that was not.
   */
  async resetAll(clearJournal: boolean): Promise<string[]> {
    const replies = await this.ask({ type: 'reset', journal: clearJournal });
    const names = new Set(replies.flatMap((r) => r.names ?? []));
    let held = await this.resetUnheld(
      (await this.redisOr503(() => this.redis.client.smembers(KEYS.namespaces))).filter((name) => !names.has(name)),
      clearJournal,
      names,
    );
    if (held.length) {
      const again = await this.ask({ type: 'reset', journal: clearJournal, names: held });
      for (const name of again.flatMap((r) => r.names ?? [])) names.add(name);
      held = await this.resetUnheld(
        held.filter((name) => !names.has(name)),
        clearJournal,
        names,
      );
    }
    if (held.length) {
      const holders = await this.redisOr503(() => this.redis.client.mget(held.map((name) => nsKeys(name).lease)));
      const which = held.map((name, i) => `'${name}' (held by node ${holders[i]?.split('\n')[0] ?? '(none now)'})`).join(', ');
      throw ApiError.unavailable(
        `Not every namespace was reset: ${which} did not reset when asked, so the reset across nodes is incomplete (${names.size} namespace${names.size === 1 ? '' : 's'} were). Retry; a node that stopped answering loses its leases within --lease-ms (${this.config.leaseMs} ms).`,
        1,
      );
    }
    return [...names].sort();
  }

  /** Resets in Redis those of `candidates` nobody holds (adding them to `reset`); returns those a node holds. */
  private async resetUnheld(candidates: string[], clearJournal: boolean, reset: Set<string>): Promise<string[]> {
    const held: string[] = [];
    for (const name of candidates) {
      const keys = nsKeys(name);
      const done = await this.redisOr503(() => this.redis.run('stateResetUnheld', [keys.lease, keys.snap, keys.log, keys.volatile], []));
      if (done !== 1) {
        held.push(name);
        continue;
      }
      if (clearJournal) await this.redisOr503(() => this.redis.client.del(keys.journal, keys.journalMeta));
      reset.add(name);
    }
    return held;
  }

  /** Drops a namespace wherever it lives; false when the shared sandbox has none of that name. */
  async drop(name: string): Promise<boolean> {
    const known = (await this.redis.client.sismember(KEYS.namespaces, name)) === 1;
    const replies = await this.ask({ type: 'drop', ns: name });
    const dropped = replies.some((r) => r.dropped);
    const keys = nsKeys(name);
    await this.redis.run('stateDrop', [keys.lease, keys.snap, keys.log, keys.volatile, keys.journal, keys.journalMeta, KEYS.namespaces], [name, '']);
    return known || dropped;
  }

  /** Leaves the cluster: every namespace written and handed back, the node unregistered. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.ownership.writeVolatileAll().catch(() => undefined);
    await this.ownership.releaseAll().catch(() => undefined);
    // Only a node that joined unregisters: one refused at start must not remove the live node of its id.
    if (this.ready)
      await this.redis.client
        .multi()
        .hdel(KEYS.nodes, this.nodeId)
        .del(KEYS.alive(this.nodeId))
        .exec()
        .catch(() => undefined);
    this.subscriber?.disconnect();
    this.redis.client.disconnect();
  }

  /** The ids of the nodes alive now (their key lives); dead ones are removed from the registry. */
  async liveNodes(): Promise<string[]> {
    const ids = Object.keys(await this.redis.client.hgetall(KEYS.nodes));
    if (ids.length === 0) return [];
    const alive = await this.redis.client.mget(ids.map((id) => KEYS.alive(id)));
    const dead = ids.filter((_, i) => alive[i] === null);
    if (dead.length) await this.redis.client.hdel(KEYS.nodes, ...dead);
    return ids.filter((_, i) => alive[i] !== null);
  }

  /** Sends a request to every live node (this one too) and gathers their replies; a 503 names any that did not answer in time. */
  private async ask(request: { type: 'list' | 'reset' | 'drop'; journal?: boolean; ns?: string; names?: string[] }): Promise<Reply[]> {
    const expect = new Set(await this.redisOr503(() => this.liveNodes()));
    expect.add(this.nodeId);
    const id = randomUUID();
    const replies: Reply[] = [];
    const answered = new Promise<void>((resolve) => this.pending.set(id, { expect, replies, done: resolve }));
    let timer: NodeJS.Timeout | undefined;
    try {
      await this.redisOr503(() => this.redis.client.publish(KEYS.control, JSON.stringify({ ...request, id, from: this.nodeId })));
      await Promise.race([answered, new Promise((resolve) => (timer = setTimeout(resolve, NODE_ANSWER_MS)))]);
    } finally {
      clearTimeout(timer);
      this.pending.delete(id);
    }
    const silent = [...expect].filter((node) => !replies.some((r) => r.node === node));
    if (silent.length) {
      throw ApiError.unavailable(
        `Node${silent.length > 1 ? 's' : ''} ${silent.join(', ')} of the shared sandbox did not answer within ${NODE_ANSWER_MS / 1000} s, so the ${request.type} across nodes is incomplete; retry (a node that stopped is forgotten once its key lapses, ${this.config.leaseMs} ms).`,
        1,
      );
    }
    return replies;
  }

  private async redisOr503<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw ApiError.unavailable(`The shared store (Redis at ${this.redis.address}) cannot be reached: ${(err as Error).message}.`, 1);
    }
  }

  private publish(message: Request): void {
    this.redis.client.publish(KEYS.control, JSON.stringify(message)).catch(() => undefined);
  }

  private onMessage(channel: string, text: string): void {
    let message: Request | Reply;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (channel !== KEYS.control) {
      const reply = message as Reply;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      waiting.replies.push(reply);
      if (waiting.expect.size <= waiting.replies.length && [...waiting.expect].every((n) => waiting.replies.some((r) => r.node === n))) waiting.done();
      return;
    }
    const request = message as Request;
    switch (request.type) {
      case 'handover':
        if (request.from !== this.nodeId) void this.ownership.handOver(request.ns);
        return;
      case 'released':
        this.ownership.wasReleased(request.ns);
        return;
      default:
        void this.answer(request).catch((err) =>
          this.logger.warn({ event: 'cluster', err: (err as Error).message }, `could not answer a ${request.type} request`),
        );
    }
  }

  /** This node's part of a request across nodes, sent back to whoever asked. */
  private async answer(request: Extract<Request, { id: string }>): Promise<void> {
    const reply: Reply = { id: request.id, node: this.nodeId };
    const mine = [...this.ownership.owned.keys()].map((name) => this.registry.peek(name)).filter((ns): ns is Namespace => ns !== undefined);
    if (request.type === 'list') {
      reply.items = mine.map((ns) => ({ ...namespaceItem(ns), node: this.nodeId, epoch: this.ownership.owned.get(ns.name)?.epoch ?? null }));
    } else if (request.type === 'reset') {
      reply.names = [];
      for (const ns of request.names ? mine.filter((n) => request.names?.includes(n.name)) : mine) {
        const reset = resetNamespace(this.registry, ns.name, request.journal === true);
        this.noteControlCall(reset);
        // Said to be reset only once Redis has it (a write refused, or Redis lost, leaves it to the asker to report).
        const written =
          (await reset.store.whenDurable()?.then(
            () => true,
            () => false,
          )) ?? true;
        if (written) reply.names.push(ns.name);
      }
    } else if (request.type === 'drop' && request.ns) {
      reply.dropped = this.registry.delete(request.ns);
    }
    await this.redis.client.publish(KEYS.replies(request.from), JSON.stringify(reply));
  }
}

const startedAt = new Date().toISOString();
