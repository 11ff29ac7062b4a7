// Namespaces keep parallel test runs apart: each has its own state seeded from the fixtures, its
// own clock and whatever per-run state other areas attach (scenario counters, journal). The
// `default` namespace is the one a plain base URL uses, and the only one persisted to a data file.
import { Clock } from '../clock.js';
import { ApiError } from '../errors/api-error.js';
import type { StoreData } from './records.js';
import { Store } from './store.js';

export const DEFAULT_NAMESPACE = 'default';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class Namespace {
  readonly clock = new Clock();
  lastUsedAt = Date.now();
  private readonly resetHooks: Array<() => void> = [];

  constructor(
    readonly name: string,
    readonly store: Store,
  ) {}

  /** Other areas register how to clear their per-namespace state on reset. */
  onReset(hook: () => void): void {
    this.resetHooks.push(hook);
  }

  /** Back to the seeded fixtures, with the clock and every attached counter cleared. */
  reset(fixtures: StoreData): void {
    this.store.replaceAll(fixtures);
    // Hooks first: the clock's change listeners (report schedules) then see the cleared state.
    for (const hook of this.resetHooks) hook();
    this.clock.reset();
  }
}

export interface NamespaceOptions {
  /** A fresh deep copy of the seeded fixtures, each call. */
  fixtures: () => StoreData;
  /** Store of the default namespace (may be file-backed). */
  defaultStore: Store;
  /** Most namespaces besides `default` kept at once; the least recently used idle one is evicted. */
  cap: number;
  /** Called once for every namespace created, so other areas can attach their state. */
  onCreate?: (ns: Namespace) => void;
}

export class NamespaceRegistry {
  private readonly namespaces = new Map<string, Namespace>();
  private readonly createHooks: Array<(ns: Namespace) => void> = [];
  private evicted = 0;

  constructor(private readonly options: NamespaceOptions) {
    this.create(DEFAULT_NAMESPACE, options.defaultStore);
  }

  static isValidName(name: string): boolean {
    return NAME.test(name);
  }

  /** The namespace of that name, created from the fixtures on first use. */
  get(name: string = DEFAULT_NAMESPACE): Namespace {
    let ns = this.namespaces.get(name);
    if (!ns) {
      if (!NAME.test(name)) {
        throw ApiError.badRequest(
          `Namespace '${name.slice(0, 80)}' is not valid: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
          [
            {
              location: 'header',
              pointer: '/x-sandbox-namespace',
              type: 'string_pattern_mismatch',
              message: 'A namespace is 1-64 letters, digits, ".", "_" or "-".',
            },
          ],
        );
      }
      ns = this.create(name, Store.inMemory(this.options.fixtures()));
      this.evictIdle();
    }
    ns.lastUsedAt = Date.now();
    return ns;
  }

  has(name: string): boolean {
    return this.namespaces.has(name);
  }

  list(): Namespace[] {
    return [...this.namespaces.values()];
  }

  reset(name: string): void {
    this.get(name).reset(this.options.fixtures());
  }

  delete(name: string): boolean {
    if (name === DEFAULT_NAMESPACE) return false;
    return this.namespaces.delete(name);
  }

  /** Registers another area's per-namespace setup; it also runs at once for the namespaces that exist. */
  onCreate(hook: (ns: Namespace) => void): void {
    this.createHooks.push(hook);
    for (const ns of this.namespaces.values()) hook(ns);
  }

  get evictedCount(): number {
    return this.evicted;
  }

  private create(name: string, store: Store): Namespace {
    const ns = new Namespace(name, store);
    this.namespaces.set(name, ns);
    this.options.onCreate?.(ns);
    for (const hook of this.createHooks) hook(ns);
    return ns;
  }

  private evictIdle(): void {
    const others = [...this.namespaces.values()].filter((ns) => ns.name !== DEFAULT_NAMESPACE);
    if (others.length <= this.options.cap) return;
    others.sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const ns of others.slice(0, others.length - this.options.cap)) {
      this.namespaces.delete(ns.name);
      this.evicted++;
    }
  }
}
