import type { Context } from 'hono';

/**
 * The request headers as a plain object with lower-case names. Served by @hono/node-server, this
 * copies Node's already-parsed object instead of building a Headers instance per request.
 */
export function headerObject(c: Context): Record<string, string | string[] | undefined> {
  const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  return incoming?.headers ? { ...incoming.headers } : Object.fromEntries(c.req.raw.headers);
}
