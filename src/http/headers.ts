// Request headers on the hot path. Served by @hono/node-server, Node has already parsed the headers
// into a plain object; reading it directly avoids building a Headers instance and normalizing the
// name on every lookup (a request looks up a dozen headers). In process (app.request()), the
// Request's headers are used.
import type { Context } from 'hono';

type IncomingHeaders = Record<string, string | string[] | undefined>;

function incomingHeaders(c: Context): IncomingHeaders | undefined {
  return (c.env as { incoming?: { headers?: IncomingHeaders } } | undefined)?.incoming?.headers;
}

/** One header by its lower-case name. */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = incomingHeaders(c);
  if (!incoming) return c.req.header(name);
  const value = incoming[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The request headers as a plain object with lower-case names, not to be changed. */
export function requestHeaders(c: Context): Readonly<IncomingHeaders> {
  return incomingHeaders(c) ?? Object.fromEntries(c.req.raw.headers);
}

/**
 * The first request header whose name `test` accepts (names as the client spelled them), lower-cased;
 * undefined when none does. Served by Node, it walks the raw name list Node keeps anyway: no copy,
 * no object built.
 */
export function findHeaderName(c: Context, test: (name: string) => boolean): string | undefined {
  const raw = (c.env as { incoming?: { rawHeaders?: string[] } } | undefined)?.incoming?.rawHeaders;
  if (raw) {
    for (let i = 0; i < raw.length; i += 2) if (test(raw[i])) return raw[i].toLowerCase();
    return undefined;
  }
  for (const name of c.req.raw.headers.keys()) if (test(name)) return name;
  return undefined;
}
