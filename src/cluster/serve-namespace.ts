// How a node of a shared sandbox serves a request's namespace (NamespaceHost's own and admit; the
// pipeline's steps in http/namespace.ts call them, as they call one process's host).
//
// Own, before anything reads the namespace: one this node owns, by a lease valid on its own
// monotonic clock, is served from memory (a map lookup and a clock read, no round trip). Otherwise
// the node takes the lease of a namespace that exists (loading its state) or waits for its owner to
// hand it over, within a bounded time, else 503 with Retry-After (owner.ts). A namespace never
// created takes no lease here: the call goes on with the state a new one starts from.
//
// Admit: a call that creates the namespace (an authenticated API call, a control call past the
// admin token) takes its lease first, so only such a call leaves anything of a name in Redis; a
// name it then fails to create is released.
import type { HostedCall } from '../namespace/host.js';
import type { Namespace } from '../namespace/namespace.js';
import type { NamespaceRegistry } from '../namespace/registry.js';
import type { Ownership } from './owner.js';

/** What of a node these need: its leases, and whether it may serve now (cluster.ts). */
export interface Node {
  readonly ownership: Ownership;
  /** Throws the 503 of a node that has not joined yet, or is leaving. */
  checkReady(): void;
  /** Throws the 503 of a change while Redis cannot be reached. */
  checkWritable(method: string): void;
}

/** `anyNode`: calls not bound to a namespace (health, metrics, what spans namespaces), served by any node. */
export function ownNamespace<C extends HostedCall>(node: Node, call: C, anyNode: (call: C) => boolean): void | Promise<void> {
  const owned = node.ownership.serving(call.namespaceName);
  if (owned !== undefined) {
    owned.touched = true;
    node.checkWritable(call.method);
    return;
  }
  if (anyNode(call)) return;
  node.checkReady();
  return node.ownership.ensure(call.namespaceName);
}

/**
 * Creates the namespace under a lease this node takes for it (a 503 when another node holds it and
 * does not hand it over, or at the cap); one that exists in Redis is loaded instead.
 */
export function admitNamespace(node: Node, registry: NamespaceRegistry, name: string): Namespace | Promise<Namespace> {
  if (node.ownership.serving(name)) return admitHere(node, registry, name);
  node.checkReady();
  return node.ownership.ensure(name, true).then(() => registry.find(name) ?? admitHere(node, registry, name));
}

/** Makes the namespace under the lease just taken; a refusal (the cap) gives the lease back. */
function admitHere(node: Node, registry: NamespaceRegistry, name: string): Namespace {
  try {
    return registry.admit(name);
  } catch (err) {
    node.ownership.releaseUnadmitted(name);
    throw err;
  }
}
