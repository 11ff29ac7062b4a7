// GET /_sandbox/requests, GET /_sandbox/requests/count, DELETE /_sandbox/requests: proof of what a
// client sent. The request's namespace by default; `namespace=*` reads every namespace. The list
// also comes as a HAR 1.2 file (`format=har`) or as summaries without headers and bodies
// (`view=summary`, what the console's list shows).

import type { JournalEntry, JournalSummary, JournalView } from '../journal/entry.js';
import { entryFilter, type JournalFilter } from '../journal/filters.js';
import { toHar } from '../journal/har.js';
import { JOURNAL } from '../journal/journal.js';
import type { Namespace } from '../namespace/namespace.js';
import { comparisonView } from '../upstream/comparisons.js';
import { onlyAtRoot } from './scope.js';
import type { AdminContext, AdminHandlerMap } from './types.js';

export const journalHandlers: AdminHandlerMap = {
  listRequests(ctx) {
    const { limit, offset, format } = ctx.query;
    if (format === 'har') {
      const page = matchingEntries(ctx, 'full').slice(offset, offset + limit);
      const body = toHar(page as JournalEntry[], { name: 'payments-sandbox', version: ctx.deps.version });
      return { body, headers: { 'content-disposition': `attachment; filename="${harFileName(ctx)}"` } };
    }
    const matching = matchingEntries(ctx, ctx.query.view ?? 'full');
    return { body: { items: withComparisons(ctx, matching.slice(offset, offset + limit)), total: matching.length, limit, offset } };
  },

  countRequests(ctx) {
    return { body: { count: matchingEntries(ctx, 'summary').length } };
  },

  clearRequests(ctx) {
    for (const ns of journalNamespaces(ctx)) ns.existingPart(JOURNAL)?.clear();
    return { status: 204 };
  },
};

/**
 * The namespaces whose journals the request reads: its own, or (at the root only) another by name
 * or every one (`*`). Reading never creates a namespace: an unknown name simply has no entries.
 */
export function journalNamespaces(ctx: AdminContext): Namespace[] {
  const { deps, ns, query } = ctx;
  const wanted: string | undefined = query.namespace;
  if (wanted === undefined || wanted === ns.name) return [ns];
  onlyAtRoot(ctx, `namespace=${wanted.slice(0, 64)}`);
  if (wanted === '*') return deps.namespaces.list();
  return deps.namespaces.list().filter((n) => n.name === wanted);
}

function matchingEntries(ctx: AdminContext, view: JournalView): JournalSummary[] {
  const matches = entryFilter(ctx.query as JournalFilter);
  const namespaces = journalNamespaces(ctx);
  const entries = namespaces.flatMap((ns) => ns.existingPart(JOURNAL)?.entries(view) ?? []);
  const matching = entries.filter((entry) => matches(entry) && comparedAsAsked(ctx, entry));
  // Across namespaces, newest first by arrival time (the namespace clocks may differ).
  return namespaces.length > 1 ? matching.sort((a, b) => b.timestamp.localeCompare(a.timestamp)) : matching;
}

/** An entry with its comparison with the upstream (compare mode), as the journal's readers show it. */
type ComparedEntry = JournalSummary & { upstream?: ReturnType<typeof comparisonView> };

/** Compare mode's `upstream=` filter: whether the entry's comparison had the outcome asked for (`compared`: any). */
function comparedAsAsked(ctx: AdminContext, entry: JournalSummary): boolean {
  const wanted: string | undefined = ctx.query.upstream;
  if (!wanted) return true;
  const outcome = ctx.deps.upstream?.comparisons.outcomeOf(entry.namespace, entry.id);
  return outcome !== undefined && (wanted === 'compared' || outcome === wanted);
}

/** Compare mode: each entry of the page with its comparison with the upstream (kept beside the journal, by namespace and entry id), decoded now. */
function withComparisons(ctx: AdminContext, entries: JournalSummary[]): ComparedEntry[] {
  const comparisons = ctx.deps.upstream?.comparisons;
  if (!comparisons) return entries;
  return entries.map((entry) => {
    const comparison = comparisons.of(entry.namespace, entry.id);
    return comparison ? { ...entry, upstream: comparisonView(comparison) } : entry;
  });
}

/** sandbox-requests-<namespace>-<UTC time>.har, with only characters safe in a header and a file name. */
function harFileName(ctx: AdminContext): string {
  const who = ctx.query.namespace === '*' ? 'all' : (ctx.query.namespace ?? ctx.ns.name);
  const at = new Date()
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '');
  return `sandbox-requests-${String(who).replace(/[^A-Za-z0-9._-]/g, '_')}-${at}.har`;
}
