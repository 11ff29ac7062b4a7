// Picks the namespace of a request: the URL prefix /ns/{name}/ (so an SDK needs only a new base URL)
// or the x-sandbox-namespace header; neither means `default`.
import { getPath } from 'hono/utils/url';
import type { NamespaceRegistry } from '../namespace/registry.js';
import type { Step } from './pipeline.js';

export const NAMESPACE_HEADER = 'x-sandbox-namespace';
const PREFIX = /^\/ns\/([^/]+)(\/.*)?$/;

/** Hono's `getPath` with the namespace prefix removed, so routes see the API path. */
export function pathWithoutNamespace(request: Request): string {
  const path = getPath(request);
  if (!path.startsWith('/ns/')) return path; // most requests: no regular expression
  const match = PREFIX.exec(path);
  return match ? match[2] || '/' : path;
}

export function namespaceOfPath(path: string): string | null {
  if (!path.startsWith('/ns/')) return null;
  const match = PREFIX.exec(path);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

export function selectNamespace(registry: NamespaceRegistry): Step {
  return {
    name: 'namespace',
    provides: ['namespace'],
    before(call) {
      const name = namespaceOfPath(getPath(call.context.req.raw)) ?? call.header(NAMESPACE_HEADER) ?? undefined;
      call.ns = registry.get(name || undefined);
    },
  };
}
