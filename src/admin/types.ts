import type { NodeName } from '../http/request-id.js';
import type { JournalFeed } from '../journal/feed.js';
import type { RequestStats } from '../logging/request-log.js';
import type { Namespace } from '../namespace/namespace.js';
import type { NamespaceRegistry } from '../namespace/registry.js';
import type { ScenarioCatalog } from '../scenarios/types.js';
import type { SpecIndex } from '../spec/operations.js';
import type { WebhookService } from '../webhooks/service.js';

export type { HandlerResult } from '../http/handler.js';

/** What the control API's handlers may use of the sandbox: built once at boot (sandbox.ts). */
export interface AdminDeps {
  version: string;
  seed: number;
  namespaces: NamespaceRegistry;
  scenarios: ScenarioCatalog;
  /** openapi.admin.json: the stored-shape schemas of the records API, snapshot and state import. */
  adminSpec: SpecIndex;
  /** openapi.json, which the stored shapes refer to. */
  apiSpec: SpecIndex;
  /** Where followers of the live journal (GET /_sandbox/requests/stream) are woken. */
  journalFeed: JournalFeed;
  /** Event catalog and the --forward-webhooks-to target (control routes of webhooks and events). */
  webhooks: WebhookService;
  /** The default namespace's data file (--data-file), null in memory. */
  dataFile: string | null;
  /** Request counts and latencies (GET /_sandbox/metrics). */
  stats: RequestStats;
  /** This process's id (x-sandbox-node). */
  node: NodeName;
  /** With --store redis://: this node's part in the shared sandbox (cluster/); null for one process. */
  cluster: ClusterControl | null;
}

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

/** What the control API asks of the shared sandbox (src/cluster/ implements it). */
export interface ClusterControl {
  /** The node, its store and the namespaces it owns (GET /_sandbox/health); `ready` false: answer 503. */
  health(): { ready: boolean; store: { kind: 'redis'; address: string; status: 'connected' | 'unavailable' }; owned: string[]; problem: string | null };
  /** Every namespace of every node (an error names a node that did not answer). */
  listNamespaces(): Promise<NamespaceItem[]>;
  /** Resets every namespace of every node; returns their names. */
  resetAll(clearJournal: boolean): Promise<string[]>;
  /** Drops a namespace wherever it lives (its state in Redis too); false when there is none of that name. */
  dropNamespace(name: string): Promise<boolean>;
  /** Gauges and counters for GET /_sandbox/metrics. */
  metrics(): { owned: number; storeRoundTrips: number; storeFailures: number; leaseChanges: Record<'acquired' | 'released' | 'lost', number> };
}

/** What a control-API handler receives: the sandbox's admin deps and the request's namespace and input. */
export interface AdminContext {
  deps: AdminDeps;
  ns: Namespace;
  /**
   * Whether the request named its namespace (/ns/{name} or x-sandbox-namespace): then it sees and
   * changes that namespace only; reads and actions across namespaces are served at the root only.
   */
  scoped: boolean;
  params: Record<string, string>;
  query: Record<string, any>;
  headers: Record<string, any>;
  body: any;
  requestId: string;
  /** Where the client reached the sandbox (origin, and /ns/{name} in a namespace): links to hosted pages start with it. */
  sandboxBase: string;
}

export type AdminHandler = (ctx: AdminContext) => import('../http/handler.js').HandlerResult | Promise<import('../http/handler.js').HandlerResult>;
export type AdminHandlerMap = Record<string, AdminHandler>;
