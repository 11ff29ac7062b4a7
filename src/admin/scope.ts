// Through a namespace (/ns/{name} or x-sandbox-namespace) the control API sees and changes that
// namespace only: what spans namespaces (the journal of another or of all, reset of all, dropping
// another) is served at the root /_sandbox only, so one CI job cannot read or reset another's.
import { ApiError } from '../errors/api-error.js';
import type { Call } from '../http/call.js';
import type { AdminContext } from './types.js';

/** The 403 of a cross-namespace read or action asked through a namespace. */
export function onlyAtRoot(ctx: AdminContext, what: string): void {
  if (!ctx.scoped) return;
  throw ApiError.forbidden(
    `${what} spans namespaces, which the control API serves only at the root /_sandbox (no /ns/{name} prefix, no x-sandbox-namespace header); through namespace '${ctx.ns.name}' it sees and changes that namespace only.`,
  );
}

/**
 * Control calls any process of a shared sandbox answers without holding the namespace: at the root,
 * health, metrics, the upstream's mode (each process's own) and what spans namespaces.
 */
export function servedByAnyNode(call: Call): boolean {
  if (call.namespaceNamed) return false;
  const id = call.operation?.id;
  return (
    id === 'getHealth' ||
    id === 'getMetrics' ||
    id === 'getUpstream' ||
    id === 'setUpstreamMode' ||
    id === 'listNamespaces' ||
    id === 'deleteNamespace' ||
    (id === 'resetSandbox' && call.queryParam('all') === 'true')
  );
}
