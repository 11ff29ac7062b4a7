// Namespaces keep parallel test runs apart: each has its own records seeded from the fixtures, its
// own clock and its own parts (journal, scenario counters, report schedules). The `default`
// namespace is the one a plain base URL uses, and the only one persisted to a data file. One
// registry creates, keeps and evicts them.
import { ApiError } from '../errors/api-error.js';
import type { StoreData } from '../store/records.js';
import { Store } from '../store/store.js';
import { Namespace, type PartKind, PartKinds } from './namespace.js';

export const DEFAULT_NAMESPACE = 'default';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface NamespaceOptions {
  /** A fresh deep copy of the seeded fixtures, each call. */
  fixtures: () => StoreData;
  /** Store of the default namespace (may be file-backed). */
  defaultStore: Store;
  /** Most namespaces besides `default` kept at once; the least recently used idle one is evicted. */
  cap: number;
  /** Every kind of part a namespace of this sandbox has. */
  parts: readonly PartKind[];
}

export class NamespaceRegistry {
  private readonly namespaces = new Map<string, Namespace>();
  private readonly kinds: PartKinds;
  private evicted = 0;

  constructor(private readonly options: NamespaceOptions) {
    this.kinds = new PartKinds(options.parts);
    this.create(DEFAULT_NAMESPACE, options.defaultStore);
  }

  static isValidName(name: string): boolean {
    return NAME.test(name);
  }

  /** The part kinds every namespace has (for checking an imported state before touching anything). */
  get partKinds(): PartKinds {
    return this.kinds;
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

  get evictedCount(): number {
    return this.evicted;
  }

  private create(name: string, store: Store): Namespace {
    const ns = new Namespace(name, store, this.kinds);
    this.namespaces.set(name, ns);
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
