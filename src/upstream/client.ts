// The one connection the sandbox keeps to the real service (--upstream URL, fixed at start: no
// request chooses where it goes). An undici Pool to that origin, kept-alive connections, header and
// body timeouts; send() never rejects: an unreachable upstream, a timeout or a body too large is a
// failure the caller records, never an error on the sandbox's own answer.
import type { Pool } from 'undici';
import { loadUndici } from '../http/load-undici.js';

/** What the upstream answered, or why it did not. */
export type UpstreamResult =
  | { ok: true; status: number; headers: Record<string, string>; bytes: Buffer; durationMs: number }
  | { ok: false; failure: 'unreachable' | 'timeout' | 'too_large'; message: string; durationMs: number };

export interface UpstreamRequest {
  method: string;
  /** The API path and query, without the sandbox's /ns/{name} prefix. */
  pathAndQuery: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Connections kept to the upstream at most (compare mode has as many comparisons under way). */
export const UPSTREAM_CONNECTIONS = 16;

/** Largest upstream answer read (a list page is far smaller); a larger one is a failure, not a comparison. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * Request headers never sent on: hop-by-hop ones, the sandbox's own (x-sandbox-*), and those the
 * upstream's connection sets itself. The caller's Authorization and merchant account header pass unchanged.
 */
const NOT_FORWARDED =
  /^(?:host|connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade|content-length|accept-encoding|x-sandbox-.*|x-forwarded-.*|forwarded)$/;

export function forwardedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || NOT_FORWARDED.test(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** An answer's headers of the connection itself, never passed back nor kept: the sandbox's server sets its own. */
const HOP_BY_HOP = /^(?:connection|keep-alive|transfer-encoding|content-length|upgrade|trailer|te|proxy-.*)$/;

/** An upstream answer's headers without those of its connection. */
export function endToEnd(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.test(name)));
}

export class UpstreamClient {
  private pool: Promise<Pool> | null = null;
  /** The upstream URL's path (a service under /v1 is /v1): put before every API path. */
  readonly basePath: string;
  readonly origin: string;

  constructor(
    url: string,
    private readonly timeoutMs: number,
  ) {
    const parsed = new URL(url);
    this.origin = parsed.origin;
    this.basePath = parsed.pathname.replace(/\/+$/, '');
  }

  /** The pool, made on the first call (undici is loaded then). */
  private poolNow(): Promise<Pool> {
    const timeoutMs = this.timeoutMs;
    this.pool ??= loadUndici().then(
      ({ Pool }) => new Pool(this.origin, { connections: UPSTREAM_CONNECTIONS, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs }),
    );
    return this.pool;
  }

  async send(request: UpstreamRequest): Promise<UpstreamResult> {
    const startedAt = performance.now();
    const took = () => Math.round((performance.now() - startedAt) * 1000) / 1000;
    try {
      const answer = await (await this.poolNow()).request({
        method: request.method as 'GET',
        path: this.basePath + request.pathAndQuery,
        headers: request.headers,
        body: request.body,
        signal: AbortSignal.timeout(this.timeoutMs * 2), // headers, then the body: each within timeoutMs
      });
      const declared = Number(answer.headers['content-length'] ?? 0);
      if (declared > MAX_ANSWER_BYTES) {
        answer.body.destroy();
        return {
          ok: false,
          failure: 'too_large',
          message: `the upstream's answer is ${declared} bytes (at most ${MAX_ANSWER_BYTES} are read)`,
          durationMs: took(),
        };
      }
      // Bytes in a buffer of their own: compare mode keeps them as they are and moves them to the request thread.
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      return { ok: true, status: answer.statusCode, headers: plainHeaders(answer.headers), bytes, durationMs: took() };
    } catch (err) {
      const code = (err as { code?: string }).code;
      const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || (err as Error).name === 'TimeoutError';
      const message = timedOut ? `no answer within ${this.timeoutMs} ms (--upstream-timeout-ms)` : describe(err);
      return { ok: false, failure: timedOut ? 'timeout' : 'unreachable', message, durationMs: took() };
    }
  }

  async close(): Promise<void> {
    await (await this.pool)?.close();
  }
}

const utf8 = new TextDecoder();

/** An answer's UTF-8 text, a leading byte order mark dropped (as undici's text() reads it: a TextDecoder). */
export function textOf(bytes: Buffer): string {
  return utf8.decode(bytes);
}

function plainHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** undici's message, with the system error's code when there is one (ECONNREFUSED, ENOTFOUND). */
function describe(err: unknown): string {
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  return code ? `${code}: ${e.cause?.message ?? e.message}` : e.message;
}
