import type { Logger } from 'pino';
import type { NodeName } from '../http/request-id.js';
import type { JournalFeed } from '../journal/feed.js';
import type { RequestStats } from '../logging/request-log.js';
import type { NamespaceHost } from '../namespace/host.js';
import type { Namespace } from '../namespace/namespace.js';
import type { NamespaceRegistry } from '../namespace/registry.js';
import type { ScenarioCatalog } from '../scenarios/types.js';
import type { SpecIndex } from '../spec/operations.js';
import type { Upstream } from '../upstream/upstream.js';
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
  /** Where namespaces live (this process alone, or a shared sandbox): listing, dropping and resetting them all ask it. */
  host: NamespaceHost;
  /** --upstream: what compare mode found and record mode saw (null without an upstream). */
  upstream: Upstream | null;
  /** The sandbox's log: a control call that changes how the whole sandbox works (the upstream's mode) says so there. */
  logger: Logger;
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
