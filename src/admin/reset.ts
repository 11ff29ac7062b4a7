// POST /_sandbox/reset: the request's namespace (or all of them, at the root only) back to the seeded fixtures, with
// its clock and every per-namespace counter (scenarios) cleared. The journal survives a reset so a
// test can still read what its client sent, unless `journal` asks for it to be cleared too.
import { JOURNAL } from '../journal/journal.js';
import type { Namespace } from '../namespace/namespace.js';
import { onlyAtRoot } from './scope.js';
import type { AdminHandlerMap } from './types.js';

export const resetHandlers: AdminHandlerMap = {
  async resetSandbox(ctx) {
    const { deps, ns, query, body } = ctx;
    const all = Boolean(query.all ?? body?.all);
    if (all) onlyAtRoot(ctx, 'A reset of every namespace (all=true)');
    const clearJournal = Boolean(query.journal ?? body?.journal);
    // A shared sandbox: every node resets the namespaces it owns, and those nobody holds are reset in Redis.
    if (all && deps.cluster) return { body: { namespaces: await deps.cluster.resetAll(clearJournal), journal_cleared: clearJournal } };
    const targets: Namespace[] = all ? deps.namespaces.list() : [ns];
    for (const target of targets) {
      deps.namespaces.reset(target.name);
      if (clearJournal) target.existingPart(JOURNAL)?.clear();
    }
    return { body: { namespaces: targets.map((t) => t.name), journal_cleared: clearJournal } };
  },
};
