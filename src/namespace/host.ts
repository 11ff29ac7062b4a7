// Where a sandbox's namespaces live: in this process alone (local-host.ts), or shared by several
// processes through Redis (cluster/). Boot (sandbox.ts) picks one; the request pipeline and the
// control API ask it, and never which one it is.
import type { Store } from '../store/store.js';
import type { Namespace } from './namespace.js';
import type { NamespaceRegistry } from './registry.js';

/** A namespace as GET /_sandbox/namespaces lists it. */
export interface NamespaceItem {
  name: string;
  last_used_at: string;
  record_counts: Record<string, number>;
  journal_size: number;
  /** Entries its journal dropped (oldest first) since the namespace was made: its entry count or byte budget was reached. */
  journal_dropped: number;
  /** In a shared sandbox: the node that owns it, and its lease's epoch (null: nobody holds it now). */
  node?: string | null;
  epoch?: number | null;
}

/** Where the records of the host's namespaces are kept, as GET /_sandbox/health says it. */
export type HostStore =
  | { kind: 'memory'; status: 'ok' }
  | { kind: 'file'; address: string; status: 'ok' }
  | { kind: 'redis'; address: string; status: 'connected' | 'unavailable'; problem: string | null };

/** What a host needs to know of a call to serve its namespace (the pipeline's Call has it). */
export interface HostedCall {
  namespaceName: string;
  method: string;
}

export interface NamespaceHost {
  /** The namespaces this process holds now. */
  readonly registry: NamespaceRegistry;
  /**
   * Makes this process the one serving the call's namespace before anything reads it; a promise when
   * that takes a wait (a shared sandbox loading it or waiting for a handover). `anyNode`: calls any
   * process may answer without holding the namespace. One process has nothing to do (every namespace is here).
   */
  own<C extends HostedCall>(call: C, anyNode: (call: C) => boolean): void | Promise<void>;
  /** The namespace of that name, created when new (a 503 at the cap, or when another process holds it). */
  admit(name: string): Namespace | Promise<Namespace>;
  /** The store whose durable write a control call on `ns` waits for (and records what it changed besides records). */
  storeOfControlCall(ns: Namespace): Store;
  /** Every namespace there is (a shared sandbox: of every process, and those none holds). */
  list(): NamespaceItem[] | Promise<NamespaceItem[]>;
  /** Drops a namespace wherever it lives; false when there is none of that name. */
  drop(name: string): boolean | Promise<boolean>;
  /** Every namespace back to the fixtures (its journal cleared too when asked); their names. */
  resetAll(clearJournal: boolean): string[] | Promise<string[]>;
  /** Whether this process can serve (`ready` false: 503), where it keeps records, which namespaces it owns (shared only). */
  health(): { ready: boolean; store: HostStore; owned: string[] | null };
  /** Gauges and counters for GET /_sandbox/metrics. */
  metrics(): {
    held: number;
    storeRoundTrips: number;
    storeFailures: number;
    leaseChanges: Record<'acquired' | 'released' | 'lost', number>;
    leaseRenewals: Record<'renewed' | 'taken' | 'lapsed', number>;
  };
  /** Once listening under `nodeId` at `url`: a shared sandbox joins the others. */
  start(nodeId: string, url: string): Promise<void>;
  /** Before a graceful stop: a shared sandbox's node says it is stopping and serves on until the proxy stops sending. */
  drain(): Promise<void>;
  /** Every change written where it is kept (a shared sandbox hands its namespaces back). */
  close(): Promise<void>;
}

/** What the control API defines for hosts: how a namespace is listed, and how one is reset. */
export interface NamespaceViews {
  describe(ns: Namespace): NamespaceItem;
  /** Resets namespace `name` (its journal too when asked); returns it as it is now. */
  reset(registry: NamespaceRegistry, name: string, clearJournal: boolean): Namespace;
}
