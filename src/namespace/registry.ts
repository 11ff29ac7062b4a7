// Namespaces keep parallel test runs apart: each has its own records seeded from the fixtures, its
// own clock and its own parts (journal, scenario counters, report schedules). The `default`
// namespace is the one a plain base URL uses, and the only one persisted to a data file. One
// registry creates, keeps and evicts them.
//
// Only a caller who proved who it is creates a namespace: an authenticated API call or a control
// API call (admit()). Until then a request naming a new namespace sees `unadmitted()`: the fresh
// state any new namespace starts from, shared and never written, against which its token is
// checked. So strangers cannot make namespaces, and cannot push out anyone else's: past the cap,
// only a namespace idle for `idleMs` with no request in flight and no journal stream following it
// (watch()) is evicted; with none, admit() is a 503 naming the cap and the option.
import { ApiError } from '../errors/api-error.js';
import type { StoreData } from '../store/records.js';
import { Store } from '../store/store.js';
import type { TimedChanges } from './announce.js';
import { Namespace, type PartKind, PartKinds } from './namespace.js';

export const DEFAULT_NAMESPACE = 'default';
/** What a namespace may be called: nothing in it needs percent-encoding. */
export const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Where a registry's namespaces keep their records, one object per mode, each implementing every
 * member (the registry never asks which mode it is in): one process (LocalStorage, local-host.ts),
 * or a shared sandbox, whose stores record their changes in Redis (cluster/).
 */
export interface NamespaceStorage {
  /** The namespaces made at boot: one process's `default` (it always exists); a shared sandbox makes each when first needed. */
  readonly madeAtStart: readonly string[];
  /** The store of namespace `name`, made here: it shares `template` (the fixtures) until it changes a collection. */
  newStore(name: string, template: Store): Store;
  /** A namespace was made or installed here. */
  created(ns: Namespace): void;
  /** A namespace was dropped from here. */
  removed(ns: Namespace, why: 'evicted' | 'deleted' | 'handed over'): void;
}

export interface NamespaceOptions {
  /** A fresh deep copy of the seeded fixtures, each call. */
  fixtures: () => StoreData;
  /** Grows when the fixtures change (a --watch reload), so the shared fresh state is made again. */
  fixturesVersion?: () => number;
  /** Where the namespaces keep their records: one process's (local-host.ts) or a shared sandbox's (cluster/). */
  storage: NamespaceStorage;
  /** Most namespaces besides `default` kept at once. */
  cap: number;
  /** How long a namespace must go unused before it may be evicted to make room. */
  idleMs: number;
  /** Every kind of part a namespace of this sandbox has. */
  parts: readonly PartKind[];
  /** What changes by itself on a namespace's clock beyond its parts (planned approvals). */
  timedChanges?: readonly ((ns: Namespace) => TimedChanges)[];
  /** Called when a new namespace is refused at the cap (for the log). */
  onCapReached?: (refused: string, retryAfterSeconds: number) => void;
}

export class NamespaceRegistry {
  private readonly namespaces = new Map<string, Namespace>();
  private readonly kinds: PartKinds;
  /** The seeded fixtures as a store never written, which new namespaces share until they change a collection. */
  private fresh: { version: number; template: Store; ns: Namespace } | null = null;
  private evicted = 0;
  /** Namespaces a live journal stream follows by name, with how many streams: in use, never evicted. */
  private readonly watched = new Map<string, number>();

  constructor(private readonly options: NamespaceOptions) {
    this.kinds = new PartKinds(options.parts, options.timedChanges);
    for (const name of options.storage.madeAtStart) this.keep(name, options.storage.newStore(name, this.template()));
  }

  /** Throws the 400 of a name that cannot be a namespace; `from`: where the request wrote it (the /ns/{name}/ prefix or the header). */
  static checkName(name: string, from: 'path' | 'header' = 'header'): void {
    if (NAMESPACE_NAME.test(name)) return;
    const where = from === 'path' ? `in the path prefix /ns/${name.slice(0, 80)}/` : 'in the x-sandbox-namespace header';
    throw ApiError.badRequest(
      `Namespace '${name.slice(0, 80)}' ${where} is not valid: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
      [
        {
          location: from,
          pointer: from === 'path' ? '/ns' : '/x-sandbox-namespace',
          type: 'string_pattern_mismatch',
          message: 'A namespace is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
        },
      ],
    );
  }

  /** The part kinds every namespace has. */
  get partKinds(): PartKinds {
    return this.kinds;
  }

  get cap(): number {
    return this.options.cap;
  }

  get idleMs(): number {
    return this.options.idleMs;
  }

  /** The namespace of that name if it exists, without marking it used. */
  peek(name: string): Namespace | undefined {
    return this.namespaces.get(name);
  }

  /** The namespace of that name if it exists (marked as used now); never creates one. */
  find(name: string): Namespace | undefined {
    const ns = this.namespaces.get(name);
    if (ns) ns.lastUsedAt = Date.now();
    return ns;
  }

  /**
   * What a request naming a namespace that does not exist yet sees until it is admitted: the fresh
   * state a new namespace starts from, shared by every such request and never written (the
   * pipeline admits, or answers from a throwaway copy, before anything writes).
   */
  unadmitted(name: string): Namespace {
    NamespaceRegistry.checkName(name);
    this.template();
    return (this.fresh as NonNullable<typeof this.fresh>).ns;
  }

  /** The fixtures' template store, made again when the fixtures changed (a --watch reload). */
  private template(): Store {
    const version = this.options.fixturesVersion?.() ?? 0;
    if (!this.fresh || this.fresh.version !== version) {
      const template = Store.inMemory(this.options.fixtures());
      // Shared too: should anything write there, it would change its own copy, never the template.
      this.fresh = { version, template, ns: new Namespace('(not yet created)', Store.sharing(template), this.kinds, false) };
    }
    return this.fresh.template;
  }

  /** The namespace of that name, created from the fixtures when new: a 503 when the cap leaves no room. */
  admit(name: string = DEFAULT_NAMESPACE): Namespace {
    const existing = this.find(name);
    if (existing) return existing;
    NamespaceRegistry.checkName(name);
    this.makeRoom(name);
    return this.keep(name, this.options.storage.newStore(name, this.template()));
  }

  /** The fixtures as a store never written, which namespaces share until they change a collection. */
  templateStore(): Store {
    return this.template();
  }

  /**
   * Keeps a namespace made on `store` (a shared sandbox loading one from Redis), in place of any of
   * that name; its parts start fresh, for the caller to import.
   */
  install(name: string, store: Store): Namespace {
    const existing = this.namespaces.get(name);
    if (existing) {
      this.namespaces.delete(name);
      existing.dispose();
    } else this.makeRoom(name);
    return this.keep(name, store);
  }

  /** Forgets a namespace without a trace here (a shared sandbox handed it to another node); `default` too. */
  remove(name: string): Namespace | undefined {
    const ns = this.namespaces.get(name);
    if (!ns) return undefined;
    this.namespaces.delete(name);
    ns.dispose();
    return ns;
  }

  /** A namespace of that name for one request only, never kept (a call that may not create one). */
  throwaway(name: string): Namespace {
    return new Namespace(name, Store.sharing(this.template()), this.kinds, false);
  }

  /** The namespace of that name, created when new (code and tests; requests go through find/admit). */
  get(name: string = DEFAULT_NAMESPACE): Namespace {
    return this.admit(name);
  }

  has(name: string): boolean {
    return this.namespaces.has(name);
  }

  list(): Namespace[] {
    return [...this.namespaces.values()];
  }

  /** Namespaces besides `default`. */
  get count(): number {
    return this.namespaces.size - (this.namespaces.has(DEFAULT_NAMESPACE) ? 1 : 0);
  }

  reset(name: string): void {
    // A file-backed store writes the fixtures out as its own; a memory store shares them again.
    this.admit(name).reset((store) => (store.keepsOwnRecords ? store.replaceAll(this.options.fixtures()) : store.shareAll(this.template())));
  }

  delete(name: string): boolean {
    if (name === DEFAULT_NAMESPACE) return false;
    const ns = this.namespaces.get(name);
    if (!ns) return false;
    this.namespaces.delete(name);
    ns.dispose();
    this.options.storage.removed(ns, 'deleted');
    return true;
  }

  /** Every namespace stops its work in progress (the sandbox is closing). */
  disposeAll(): void {
    for (const ns of this.namespaces.values()) ns.dispose();
  }

  /**
   * A live journal stream follows namespace `name` (existing now or not): while it is open the
   * namespace counts as in use, so eviction passes it by, as one with a request in flight. Returns
   * the release, to call once when the stream ends (a second call does nothing).
   */
  watch(name: string): () => void {
    this.watched.set(name, (this.watched.get(name) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.watched.get(name) ?? 1) - 1;
      if (left > 0) this.watched.set(name, left);
      else this.watched.delete(name);
    };
  }

  get evictedCount(): number {
    return this.evicted;
  }

  /** Keeps a namespace made here on `store`, and tells the storage. */
  private keep(name: string, store: Store): Namespace {
    const ns = new Namespace(name, store, this.kinds);
    this.namespaces.set(name, ns);
    this.options.storage.created(ns);
    return ns;
  }

  /** At the cap, evicts the namespace idle longest if it is idle enough and not in use; else a 503. */
  private makeRoom(refused: string): void {
    if (this.count < this.options.cap) return;
    const now = Date.now();
    let oldest: Namespace | null = null;
    let oldestBusy: Namespace | null = null;
    for (const ns of this.namespaces.values()) {
      if (ns.name === DEFAULT_NAMESPACE) continue;
      if (ns.inFlight > 0 || this.watched.has(ns.name)) continue;
      if (now - ns.lastUsedAt >= this.options.idleMs) {
        if (!oldest || ns.lastUsedAt < oldest.lastUsedAt) oldest = ns;
      } else if (!oldestBusy || ns.lastUsedAt < oldestBusy.lastUsedAt) oldestBusy = ns;
    }
    if (oldest) {
      this.namespaces.delete(oldest.name);
      oldest.dispose();
      this.evicted++;
      this.options.storage.removed(oldest, 'evicted');
      return;
    }
    const retryAfter = oldestBusy ? (oldestBusy.lastUsedAt + this.options.idleMs - now) / 1000 : 1;
    this.options.onCapReached?.(refused, Math.max(1, Math.ceil(retryAfter)));
    throw ApiError.unavailable(
      `Namespace '${refused}' cannot be created: the sandbox keeps at most ${this.options.cap} namespaces besides default (--namespace-cap) and none has been idle for ${Math.round(this.options.idleMs / 1000)} s (--namespace-idle-seconds) with no request in flight and no journal stream open. Retry later, drop one (DELETE /_sandbox/namespaces/{name}), or start the sandbox with a larger --namespace-cap.`,
      retryAfter,
    );
  }
}
