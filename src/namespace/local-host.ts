// The namespaces of one process (the default: --store memory): all of them here, in its registry.
// The default namespace alone may be kept in a data file, so a control call waits for its store.
import { Store } from '../store/store.js';
import type { HostStore, NamespaceHost, NamespaceItem, NamespaceViews } from './host.js';
import type { Namespace } from './namespace.js';
import { DEFAULT_NAMESPACE, type NamespaceRegistry, type NamespaceStorage } from './registry.js';

/** One process's storage: `default` exists from the start, in the data file when there is one; every other namespace in memory. */
export class LocalStorage implements NamespaceStorage {
  readonly madeAtStart = [DEFAULT_NAMESPACE];

  /** `dataFileStore`: the default namespace's store when --data-file keeps it; null: in memory, sharing the fixtures like any other. */
  constructor(private readonly dataFileStore: Store | null) {}

  newStore(name: string, template: Store): Store {
    return name === DEFAULT_NAMESPACE && this.dataFileStore ? this.dataFileStore : Store.sharing(template);
  }

  /** Nothing to record: the registry is all there is of a namespace. */
  created(): void {}

  removed(): void {}
}

export class LocalHost implements NamespaceHost {
  private readonly store: HostStore;

  constructor(
    readonly registry: NamespaceRegistry,
    private readonly views: NamespaceViews,
    dataFile: string | null,
  ) {
    this.store = dataFile ? { kind: 'file', address: dataFile, status: 'ok' } : { kind: 'memory', status: 'ok' };
  }

  /** Every namespace of one process is here already: nothing to do. */
  own(): void {}

  admit(name: string): Namespace {
    return this.registry.admit(name);
  }

  /** Reset, imports and the records API may change the default namespace's file-backed store (?all=true too). */
  storeOfControlCall(): Store {
    return this.registry.get(DEFAULT_NAMESPACE).store;
  }

  list(): NamespaceItem[] {
    return this.registry.list().map(this.views.describe);
  }

  drop(name: string): boolean {
    return this.registry.delete(name);
  }

  resetAll(clearJournal: boolean): string[] {
    return this.registry.list().map((ns) => this.views.reset(this.registry, ns.name, clearJournal).name);
  }

  health() {
    return { ready: true, store: this.store, owned: null };
  }

  metrics() {
    return {
      held: this.registry.count + 1,
      storeRoundTrips: 0,
      storeFailures: 0,
      leaseChanges: { acquired: 0, released: 0, lost: 0 },
      leaseRenewals: { renewed: 0, taken: 0, lapsed: 0 },
    };
  }

  async start(): Promise<void> {}

  /** No proxy to tell: one process stops at once. */
  async drain(): Promise<void> {}

  async close(): Promise<void> {
    await this.registry.get(DEFAULT_NAMESPACE).store.flush();
  }
}
