// GET /_sandbox/namespaces and DELETE /_sandbox/namespaces/{name}: what parallel runs have made,
// and a way to drop one before eviction would. Through a namespace, only that one: its counts too
// (namespaceCounts), so a CI job learns nothing of the others.

import { ApiError } from '../errors/api-error.js';
import { JOURNAL } from '../journal/journal.js';
import type { NamespaceItem, NamespaceViews } from '../namespace/host.js';
import type { Namespace } from '../namespace/namespace.js';
import { DEFAULT_NAMESPACE } from '../namespace/registry.js';
import { resetNamespace } from './reset.js';
import { onlyAtRoot } from './scope.js';
import { recordCounts } from './snapshot.js';
import type { AdminDeps, AdminHandlerMap } from './types.js';

export const namespaceHandlers: AdminHandlerMap = {
  /** Through a namespace, only that one (other namespaces are seen at the root only). */
  async listNamespaces({ deps, ns: own, scoped }) {
    // A shared sandbox's root lists every node's namespaces (through Redis and each node).
    const items = scoped ? [namespaceItem(own)] : await deps.host.list();
    return { body: { items, ...namespaceCounts(deps, scoped ? own : null) } };
  },

  async deleteNamespace(ctx) {
    const { deps, params } = ctx;
    if (params.name !== ctx.ns.name) onlyAtRoot(ctx, `Dropping namespace '${params.name.slice(0, 64)}'`);
    if (params.name === DEFAULT_NAMESPACE) {
      throw ApiError.badRequest('The default namespace cannot be dropped; POST /_sandbox/reset resets it.', [
        { location: 'path', pointer: '/name', type: 'value_error', message: 'Name a namespace other than default.' },
      ]);
    }
    const deleted = await deps.host.drop(params.name);
    if (!deleted) throw ApiError.notFound(`There is no namespace ${params.name}.`);
    return { status: 204 };
  },
};

/** A namespace as the list shows it. */
export function namespaceItem(ns: Namespace): NamespaceItem {
  return {
    name: ns.name,
    last_used_at: new Date(ns.lastUsedAt).toISOString(),
    record_counts: recordCounts(ns.store.data),
    journal_size: ns.existingPart(JOURNAL)?.size ?? 0,
    journal_dropped: ns.existingPart(JOURNAL)?.dropped ?? 0,
  };
}

/** How every host lists and resets a namespace. */
export const namespaceViews: NamespaceViews = { describe: namespaceItem, reset: resetNamespace };

/**
 * How many namespaces exist besides default, the most kept, how long one must be idle to be
 * evicted, and how many were. Through a namespace (`seenFrom`) only what it sees: itself (count 1,
 * 0 for default) and the settings; how many others were evicted is told at the root only.
 */
export function namespaceCounts(deps: AdminDeps, seenFrom: Namespace | null): NamespaceCounts {
  const settings = { cap: deps.namespaces.cap, idle_seconds: deps.namespaces.idleMs / 1000 };
  if (seenFrom) return { count: seenFrom.name === DEFAULT_NAMESPACE ? 0 : 1, ...settings };
  return { count: deps.namespaces.count, ...settings, evicted: deps.namespaces.evictedCount };
}

export interface NamespaceCounts {
  count: number;
  cap: number;
  idle_seconds: number;
  /** At the root only. */
  evicted?: number;
}
