// The registry keeps its namespaces' records through one NamespaceStorage that each mode implements
// in full (issue 35 part 5): it asks the storage at every turn (made at start, a store for each new
// namespace, created, evicted, deleted) without testing which mode it is in. One process's storage
// (LocalStorage) gives `default` the data file's store and every other namespace a store sharing
// the fixtures; its host has nothing to own.
import { describe, expect, it } from 'vitest';
import type { NamespaceHost } from '../../src/namespace/host.js';
import { LocalHost, LocalStorage } from '../../src/namespace/local-host.js';
import type { Namespace } from '../../src/namespace/namespace.js';
import { NamespaceRegistry, type NamespaceStorage } from '../../src/namespace/registry.js';
import type { StoreData } from '../../src/store/records.js';
import { Store } from '../../src/store/store.js';

function fixtures(): StoreData {
  return {
    schema_version: 1,
    seed: 7,
    collections: { buyers: [{ type: 'buyer', id: 'b1', display_name: 'Buyer 1' }] },
  } as unknown as StoreData;
}

/** A storage that records what the registry told it, with the stores it made. */
class RecordingStorage implements NamespaceStorage {
  readonly told: string[] = [];
  readonly stores = new Map<string, Store>();
  constructor(readonly madeAtStart: readonly string[]) {}
  newStore(name: string, template: Store): Store {
    this.told.push(`newStore ${name}`);
    const store = Store.sharing(template);
    this.stores.set(name, store);
    return store;
  }
  created(ns: Namespace): void {
    this.told.push(`created ${ns.name}`);
  }
  removed(ns: Namespace, why: 'evicted' | 'deleted' | 'handed over'): void {
    this.told.push(`removed ${ns.name} ${why}`);
  }
}

const registryOn = (storage: NamespaceStorage, cap = 5) => new NamespaceRegistry({ fixtures, storage, cap, idleMs: 0, parts: [] });

describe('the registry and its storage', () => {
  it('makes the namespaces the storage names at start, and no other', () => {
    const atStart = new RecordingStorage(['default']);
    const registry = registryOn(atStart);
    expect(atStart.told).toEqual(['newStore default', 'created default']);
    expect(registry.peek('default')?.store).toBe(atStart.stores.get('default'));

    const none = new RecordingStorage([]); // a shared sandbox: default is made when first needed
    const shared = registryOn(none);
    expect(none.told).toEqual([]);
    expect(shared.has('default')).toBe(false);
    expect(shared.admit().name).toBe('default');
    expect(none.told).toEqual(['newStore default', 'created default']);
  });

  it('asks it for the store of every namespace it admits, on the fixtures template, and tells it of each made, evicted and deleted', () => {
    const storage = new RecordingStorage([]);
    const registry = registryOn(storage, 1);
    const a = registry.admit('team-a');
    expect(a.store).toBe(storage.stores.get('team-a'));
    expect(a.store.allShared).toBe(true);
    expect(a.store.collections.buyers.get('b1')).toBe(registry.templateStore().collections.buyers.get('b1'));
    expect(registry.admit('team-a')).toBe(a); // kept: not made again
    registry.admit('team-b'); // the cap is 1, and team-a has been idle for idleMs (0)
    registry.delete('team-b');
    const installed = registry.install('team-c', Store.sharing(registry.templateStore()));
    expect(registry.find('team-c')).toBe(installed);
    expect(storage.told).toEqual([
      'newStore team-a',
      'created team-a',
      'removed team-a evicted',
      'newStore team-b',
      'created team-b',
      'removed team-b deleted',
      'created team-c',
    ]);
    expect(registry.has('team-a')).toBe(false);
    expect(registry.has('team-b')).toBe(false);
  });
});

describe('one process', () => {
  it("gives default the data file's store, every other namespace a store sharing the fixtures, and has nothing to own", () => {
    const dataFileStore = Store.inMemory(fixtures());
    const registry = registryOn(new LocalStorage(dataFileStore));
    expect(registry.has('default')).toBe(true);
    expect(registry.get('default').store).toBe(dataFileStore);
    const other = registry.admit('team-a').store;
    expect(other).not.toBe(dataFileStore);
    expect(other.allShared).toBe(true);
    expect(registry.delete('team-a')).toBe(true);
    expect(registry.has('team-a')).toBe(false);

    const inMemory = registryOn(new LocalStorage(null));
    expect(inMemory.get('default').store.allShared).toBe(true);

    const host: NamespaceHost = new LocalHost(registry, { describe: () => ({}) as never, reset: () => ({}) as never }, null);
    expect(host.own({ namespaceName: 'team-b', method: 'PUT' }, () => false)).toBeUndefined();
    expect(registry.has('team-b')).toBe(false); // owning makes nothing: admit does
  });
});
