// The pipeline steps of a shared sandbox (app.ts adds them only with --store redis://: one process
// pays nothing for them).
//
// "own namespace", right after the namespace step on the API (a token is checked against the
// namespace's key pairs, so its state must be this node's first) and after the admin token and the
// operation on the control API: a namespace this node owns, by a lease valid on its own monotonic
// clock, is served from memory (a map lookup and a clock read, no round trip). Otherwise the node
// takes the lease of a namespace that exists (loading its state) or waits for its owner to hand it
// over, within a bounded time, else 503 with Retry-After (owner.ts). A namespace never created takes
// no lease here: the call goes on with the state a new one starts from.
//
// "admit namespace" in place of one process's (http/namespace.ts): a call that creates the
// namespace (an authenticated API call, a control call past the admin token) takes its lease first,
// so only such a call leaves anything of a name in Redis; a name it then fails to create is released.
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
        cluster.checkWritable(call.method);
        return;
      }
      if (skip(call)) return;
      cluster.checkReady();
      return ownership.ensure(call.namespaceName).then(() => rebind(call, registry));
    },
  };
}

/**
 * Creates the request's namespace, once the caller is known, under a lease this node takes for it
 * (a 503 when another node holds it and does not hand it over, or at the cap). An operation that
 * needs no credentials, and a call any node serves (`skip`), get a copy made for them and take no lease.
 */
export function admitOwnedNamespace(cluster: Cluster, registry: NamespaceRegistry, skip: (call: Call) => boolean = () => false): Step {
  const { ownership } = cluster;
  return {
    name: 'admit namespace',
    requires: ['namespace'],
    before(call) {
      if (call.ns.admitted) return;
      if (call.principal?.kind === 'anonymous' || skip(call)) {
        call.ns = registry.throwaway(call.namespaceName);
        return;
      }
      if (ownership.serving(call.namespaceName)) return admitHere(call, cluster, registry);
      cluster.checkReady();
      return ownership.ensure(call.namespaceName, true).then(() => {
        rebind(call, registry);
        if (!call.ns.admitted) admitHere(call, cluster, registry);
      });
    },
  };
}

/** The call's namespace is now the one this node loaded (or, never created, the fresh state admit makes it from). */
function rebind(call: Call, registry: NamespaceRegistry): void {
  const ns = registry.find(call.namespaceName);
  if (ns === call.ns) return;
  if (call.ns?.admitted) call.ns.inFlight--;
  if (ns) {
    call.ns = ns;
    ns.inFlight++;
  } else call.ns = registry.unadmitted(call.namespaceName);
}

/** Makes the namespace under the lease just taken; a refusal (the cap) gives the lease back. */
function admitHere(call: Call, cluster: Cluster, registry: NamespaceRegistry): void {
  try {
    call.ns = registry.admit(call.namespaceName);
  } catch (err) {
    cluster.ownership.releaseUnadmitted(call.namespaceName);
    throw err;
  }
  call.ns.inFlight++;
}

/** Control calls any node answers without a lease: at the root, health, metrics and what spans namespaces. */
export function servedByAnyNode(call: Call): boolean {
  if (call.namespaceNamed) return false;
  const id = call.operation?.id;
  return (
    id === 'getHealth' ||
    id === 'getMetrics' ||
    id === 'listNamespaces' ||
    id === 'deleteNamespace' ||
    (id === 'resetSandbox' && call.queryParam('all') === 'true')
  );
}
