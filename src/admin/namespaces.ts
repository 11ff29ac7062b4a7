// GET /_sandbox/namespaces and DELETE /_sandbox/namespaces/{name}: what parallel runs have made,
// and a way to drop one before eviction would.

import { ApiError } from '../errors/api-error.js';
import { JOURNAL } from '../journal/journal.js';
import { DEFAULT_NAMESPACE } from '../namespace/registry.js';
import { recordCounts } from './snapshot.js';
import type { AdminHandlerMap } from './types.js';

export const namespaceHandlers: AdminHandlerMap = {
  listNamespaces({ deps }) {
    const items = deps.namespaces.list().map((ns) => ({
      name: ns.name,
      last_used_at: new Date(ns.lastUsedAt).toISOString(),
      record_counts: recordCounts(ns.store.data),
      journal_size: ns.existingPart(JOURNAL)?.size ?? 0,
    }));
    return { body: { items, cap: deps.namespaceCap, evicted: deps.namespaces.evictedCount } };
  },

  deleteNamespace({ deps, params }) {
    if (params.name === DEFAULT_NAMESPACE) {
      throw ApiError.badRequest('The default namespace cannot be dropped; POST /_sandbox/reset resets it.', [
        { location: 'path', pointer: '/name', type: 'value_error', message: 'Name a namespace other than default.' },
      ]);
    }
    if (!deps.namespaces.delete(params.name)) throw ApiError.notFound(`There is no namespace ${params.name}.`);
    return { status: 204 };
  },
};
