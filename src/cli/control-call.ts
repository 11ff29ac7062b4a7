// One call of a running sandbox's control API from a command (listen, upstream): JSON in and out,
// the admin token when given, and every failure as one line that says what to do.
import { UsageError } from './usage-error.js';

export interface ControlTarget {
  /** The sandbox's base URL, without /ns/{name}. */
  url: string;
  namespace?: string;
  adminToken?: string;
}

/** The answer's JSON; `fail(message)` is thrown when the sandbox cannot be reached or refuses. */
export async function controlCall(target: ControlTarget, method: string, path: string, body: unknown, fail: (message: string) => Error): Promise<any> {
  const base = `${target.namespace ? `${target.url}/ns/${encodeURIComponent(target.namespace)}` : target.url}/_sandbox`;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(target.adminToken ? { 'x-sandbox-admin-token': target.adminToken } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw fail(`cannot reach the sandbox at ${target.url}: ${cause?.code ?? cause?.message ?? (err as Error).message} (is it running? set --url)`);
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text.slice(0, 500);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not JSON: the text as it came
    }
    const hint = res.status === 401 || res.status === 403 ? ' (give the admin token: --admin-token or SANDBOX_ADMIN_TOKEN)' : '';
    throw fail(`the sandbox answered ${res.status} to ${method} /_sandbox${path.split('?')[0]}: ${message}${hint}`);
  }
  return JSON.parse(text);
}

/** --url, else $SANDBOX_URL, else where the sandbox listens by default; without a trailing slash. */
export function sandboxUrlOf(given: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  const url = (given ?? env.SANDBOX_URL ?? 'http://127.0.0.1:4010').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+/.test(url)) throw new UsageError(`--url must be the sandbox's base URL, e.g. http://127.0.0.1:4010, got ${JSON.stringify(url)}`);
  return url;
}
