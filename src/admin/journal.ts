// GET /_sandbox/requests, GET /_sandbox/requests/count, DELETE /_sandbox/requests: proof of what a
// client sent. The request's namespace by default; `namespace=*` reads every namespace.
import { JOURNAL, type JournalEntry, type JournalFilter, matchesFilter } from '../journal/journal.js';
import type { Namespace } from '../namespace/namespace.js';
import { onlyAtRoot } from './scope.js';
import type { AdminContext, AdminHandlerMap } from './types.js';

export const journalHandlers: AdminHandlerMap = {
  listRequests(ctx) {
    const { limit, offset } = ctx.query;
    const matching = matchingEntries(ctx);
    return { body: { items: matching.slice(offset, offset + limit), total: matching.length, limit, offset } };
  },

  countRequests(ctx) {
    return { body: { count: matchingEntries(ctx).length } };
  },

  clearRequests(ctx) {
    for (const ns of namespacesOf(ctx)) ns.existingPart(JOURNAL)?.clear();
    return { status: 204 };
  },
};

/** Reading never creates a namespace: an unknown name simply has no entries. */
function namespacesOf(ctx: AdminContext): Namespace[] {
  const { deps, ns, query } = ctx;
  const wanted: string | undefined = query.namespace;
  if (wanted === undefined || wanted === ns.name) return [ns];
  onlyAtRoot(ctx, `namespace=${wanted.slice(0, 64)}`);
  if (wanted === '*') return deps.namespaces.list();
  return deps.namespaces.list().filter((n) => n.name === wanted);
}

function matchingEntries(ctx: AdminContext): JournalEntry[] {
  const filter: JournalFilter = ctx.query;
  const entries = namespacesOf(ctx).flatMap((ns) => ns.existingPart(JOURNAL)?.entries() ?? []);
  const matching = entries.filter((e) => matchesFilter(e, filter));
  // Across namespaces, newest first by arrival time (the namespace clocks may differ).
  return namespacesOf(ctx).length > 1 ? matching.sort((a, b) => b.timestamp.localeCompare(a.timestamp)) : matching;
}
