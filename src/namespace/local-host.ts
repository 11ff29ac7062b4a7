// The namespaces of one process (the default: --store memory): all of them here, in its registry.
// The default namespace alone may be kept in a data file, so a control call waits for its store.
import type { Store } from '../store/store.js';
import type { HostStore, NamespaceHost, NamespaceItem, NamespaceViews } from './host.js';
import type { Namespace } from './namespace.js';
import { DEFAULT_NAMESPACE, type NamespaceRegistry } from './registry.js';

export class LocalHost implements NamespaceHost {
  private readonly store: HostStore;

  constructor(
    readonly registry: NamespaceRegistry,
    private readonly views: NamespaceViews,
    dataFile: string | null,
  ) {
    this.store = dataFile ? { kind: 'file', address: dataFile, status: 'ok' } : { kind: 'memory', status: 'ok' };
  }

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
    return { held: this.registry.count + 1, storeRoundTrips: 0, storeFailures: 0, leaseChanges: { acquired: 0, released: 0, lost: 0 } };
  }

  async start(): Promise<void> {}

  /** No proxy to tell: one process stops at once. */
  async drain(): Promise<void> {}

  async close(): Promise<void> {
    await this.registry.get(DEFAULT_NAMESPACE).store.flush();
  }
}
