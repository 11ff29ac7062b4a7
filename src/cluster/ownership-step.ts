// The pipeline step of a shared sandbox, right after the namespace step (app.ts adds it only with
// --store redis://: one process pays nothing for it). A namespace this node owns, by a lease valid
// on its own monotonic clock, is served from memory: a map lookup and a clock read, no round trip.
// Otherwise the node takes the lease (loading the state) or waits for the owner to hand it over,
// within a bounded time, else 503 with Retry-After (owner.ts).
import type { Call } from '../http/call.js';
import type { Step } from '../http/pipeline.js';
import type { NamespaceRegistry } from '../namespace/registry.js';
import type { Cluster } from './cluster.js';

/** `skip`: calls not bound to a namespace (health, metrics, what spans namespaces), served by any node. */
export function ownNamespace(cluster: Cluster, registry: NamespaceRegistry, skip: (call: Call) => boolean = () => false): Step {
  const { ownership } = cluster;
  return {
    name: 'own namespace',
    requires: ['namespace'],
    before(call) {
      const owned = ownership.serving(call.namespaceName);
      if (owned !== undefined) {
        owned.touched = true;
        return;
      }
      if (skip(call)) return;
      cluster.checkReady();
      return ownership.ensure(call.namespaceName).then(() => rebind(call, registry));
    },
  };
}

/** The call's namespace is now the one this node loaded (or, never created, the fresh state admit() will make it from). */
function rebind(call: Call, registry: NamespaceRegistry): void {
  const ns = registry.find(call.namespaceName);
  if (ns === call.ns) return;
  if (call.ns?.admitted) call.ns.inFlight--;
  if (ns) {
    call.ns = ns;
    ns.inFlight++;
  } else call.ns = registry.unadmitted(call.namespaceName);
}

/** Control calls any node answers without a lease: health, metrics, and at the root what spans namespaces. */
export function servedByAnyNode(call: Call): boolean {
  const id = call.operation?.id;
  if (id === 'getHealth' || id === 'getMetrics') return true;
  if (call.namespaceNamed) return false;
  return id === 'listNamespaces' || id === 'deleteNamespace' || (id === 'resetSandbox' && call.context.req.query('all') === 'true');
}
