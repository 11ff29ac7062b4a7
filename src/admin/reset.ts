// POST /_sandbox/reset: the request's namespace (or all of them, at the root only) back to the seeded fixtures, with
// its clock and every per-namespace counter (scenarios) cleared. The journal survives a reset so a
// test can still read what its client sent, unless `journal` asks for it to be cleared too.
import { JOURNAL } from '../journal/journal.js';
import type { Namespace } from '../namespace/namespace.js';
import type { NamespaceRegistry } from '../namespace/registry.js';
import { onlyAtRoot } from './scope.js';
import type { AdminHandlerMap } from './types.js';

export const resetHandlers: AdminHandlerMap = {
  async resetSandbox(ctx) {
    const { deps, ns, query, body } = ctx;
    const all = Boolean(query.all ?? body?.all);
    if (all) onlyAtRoot(ctx, 'A reset of every namespace (all=true)');
    const clearJournal = Boolean(query.journal ?? body?.journal);
    // A shared sandbox: every node resets the namespaces it owns, and those nobody holds are reset in Redis.
    const names = all ? await deps.host.resetAll(clearJournal) : [resetNamespace(deps.namespaces, ns.name, clearJournal).name];
    return { body: { namespaces: names, journal_cleared: clearJournal } };
  },
};

/** One namespace back to the fixtures, its journal cleared too when asked (every host resets one this way). */
export function resetNamespace(registry: NamespaceRegistry, name: string, clearJournal: boolean): Namespace {
  registry.reset(name);
  const ns = registry.peek(name) as Namespace;
  if (clearJournal) ns.existingPart(JOURNAL)?.clear();
  return ns;
}
