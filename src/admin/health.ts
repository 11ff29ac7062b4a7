// GET /_sandbox/health: what a proxy's health check and `payments-sandbox wait` ask. 200 while this
// node can serve; in a shared sandbox a node that cannot (its Redis never reached, stopping)
// answers 503, and one whose Redis is lost says `degraded`: it still serves reads of the
// namespaces it owns while their leases last, and answers writes 503 (docs/shared-sandbox.md).
import { namespaceCounts } from './namespaces.js';
import type { AdminHandlerMap } from './types.js';

const startedAt = Date.now();

export const healthHandlers: AdminHandlerMap = {
  getHealth({ deps, ns, scoped }) {
    const { ready, store, owned } = deps.host.health();
    const status = !ready ? 'unavailable' : store.status === 'unavailable' ? 'degraded' : 'ok';
    return {
      status: status === 'unavailable' ? 503 : 200,
      body: {
        status,
        version: deps.version,
        seed: deps.seed,
        node: deps.node.id,
        namespace: ns.name,
        uptime_seconds: (Date.now() - startedAt) / 1000,
        store,
        ...(owned ? { owned_namespaces: owned } : {}),
        namespaces: namespaceCounts(deps, scoped ? ns : null),
      },
    };
  },
};
