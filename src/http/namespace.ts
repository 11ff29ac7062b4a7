// Picks the namespace of a request: the URL prefix /ns/{name}/ (so an SDK needs only a new base URL)
// or the x-sandbox-namespace header; neither means `default`.
import type { MiddlewareHandler } from 'hono';
import { getPath } from 'hono/utils/url';
import type { NamespaceRegistry } from '../store/namespaces.js';
import type { SandboxEnv } from './env.js';
import { requestHeader } from './headers.js';

export const NAMESPACE_HEADER = 'x-sandbox-namespace';
const PREFIX = /^\/ns\/([^/]+)(\/.*)?$/;

/** Hono's `getPath` with the namespace prefix removed, so routes see the API path. */
export function pathWithoutNamespace(request: Request): string {
  const path = getPath(request);
  const match = PREFIX.exec(path);
  return match ? match[2] || '/' : path;
}

export function namespaceOfPath(path: string): string | null {
  const match = PREFIX.exec(path);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

export function selectNamespace(registry: NamespaceRegistry): MiddlewareHandler<SandboxEnv> {
  return async function selectNamespaceOfRequest(c, next) {
    const name = namespaceOfPath(getPath(c.req.raw)) ?? requestHeader(c, NAMESPACE_HEADER) ?? undefined;
    c.set('ns', registry.get(name || undefined));
    await next();
  };
}
