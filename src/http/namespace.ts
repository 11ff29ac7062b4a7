// Picks the namespace of a request: the URL prefix /ns/{name}/ (so an SDK needs only a new base URL)
// or the x-sandbox-namespace header; neither means `default`. A namespace that does not exist yet
// is created only once the caller has proved who it is (admitNamespace, after authentication or
// the admin token); until then the request sees the fresh state a new namespace would start from.
import { getPath } from 'hono/utils/url';
import { DEFAULT_NAMESPACE, type NamespaceRegistry } from '../namespace/registry.js';
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
      const named = namespaceOfPath(getPath(call.context.req.raw)) ?? call.header(NAMESPACE_HEADER);
      call.namespaceNamed = Boolean(named);
      const name = named || DEFAULT_NAMESPACE;
      call.namespaceName = name;
      const ns = registry.find(name);
      if (!ns) {
        call.ns = registry.unadmitted(name);
        return;
      }
      call.ns = ns;
      ns.inFlight++;
    },
    after(call) {
      // Counted when the call got a kept namespace: here, or when admitted.
      if (call.ns?.admitted) call.ns.inFlight--;
    },
  };
}

/**
 * Creates the request's namespace if it is new, now that the caller is known: a verified token
 * (or --auth none) on the API, or the admin token on the control API (a 503 at the cap). A call of
 * an operation that needs no credentials may not create one: it is answered from a copy made for it.
 */
export function admitNamespace(registry: NamespaceRegistry): Step {
  return {
    name: 'admit namespace',
    requires: ['namespace'],
    before(call) {
      if (call.ns.admitted) return;
      if (call.principal?.kind === 'anonymous') {
        call.ns = registry.throwaway(call.namespaceName);
        return;
      }
      call.ns = registry.admit(call.namespaceName);
      call.ns.inFlight++;
    },
  };
}
