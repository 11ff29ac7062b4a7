// Through a namespace (/ns/{name} or x-sandbox-namespace) the control API sees and changes that
// namespace only: what spans namespaces (the journal of another or of all, reset of all, dropping
// another) is served at the root /_sandbox only, so one CI job cannot read or reset another's.
import { ApiError } from '../errors/api-error.js';
import type { AdminContext } from './types.js';

/** The 403 of a cross-namespace read or action asked through a namespace. */
export function onlyAtRoot(ctx: AdminContext, what: string): void {
  if (!ctx.scoped) return;
  throw ApiError.forbidden(
    `${what} spans namespaces, which the control API serves only at the root /_sandbox (no /ns/{name} prefix, no x-sandbox-namespace header); through namespace '${ctx.ns.name}' it sees and changes that namespace only.`,
  );
}
