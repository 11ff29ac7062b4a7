// Writes every API request and its response into the journal of the request's namespace, after the
// response is made (error responses included). Control requests (/_sandbox/*) are not journaled:
// reading the journal must not change what it counts. Secrets never enter it: the Authorization and
// admin token headers and every non-null `private_key` (the one-time key of POST /api-key-pairs) are
// replaced by "[redacted]".
import type { MiddlewareHandler } from 'hono';
import type { SandboxEnv } from '../http/env.js';
import { journalOf } from './journal.js';

export const REDACTED = '[redacted]';
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-sandbox-admin-token']);
const SECRET_FIELDS = new Set(['private_key']);
/** A body longer than this is kept as its first MAX_BODY_CHARS characters, marked truncated. */
export const MAX_BODY_CHARS = 64 * 1024;

export interface JournalOptions {
  /** Most entries kept per namespace (config.journalSize). */
  size: number;
}

export function recordInJournal(options: JournalOptions): MiddlewareHandler<SandboxEnv> {
  return async function recordRequestInJournal(c, next) {
    if (c.req.path === '/_sandbox' || c.req.path.startsWith('/_sandbox/')) return next();
    const ns = c.var.ns;
    const timestamp = ns.clock.nowIso();
    const started = performance.now();
    await next();
    const duration = performance.now() - started;
    const requestText = await readText(() => c.req.text());
    const responseText = await readText(() => c.res.clone().text());
    const headers = redactHeaders(c.req.raw.headers);
    const bytes = Math.min(requestText.length, MAX_BODY_CHARS) + Math.min(responseText.length, MAX_BODY_CHARS) + JSON.stringify(headers).length;
    journalOf(ns, options.size).add({
      timestamp,
      namespace: ns.name,
      method: c.req.method,
      path: c.req.path,
      query: queryOf(c.req.url),
      headers,
      body: redactFields(parseBody(requestText, c.req.header('content-type'))),
      status: c.res.status,
      response_body: redactFields(parseBody(responseText, c.res.headers.get('content-type'))),
      duration_ms: Math.round(duration * 1000) / 1000,
      operation_id: c.var.operation?.id ?? null,
      scenario: c.var.scenario ?? null,
      request_id: c.var.requestId,
    }, bytes);
  };
}

function queryOf(url: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of new URL(url).searchParams) {
    const seen = query[key];
    query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) out[name] = SECRET_HEADERS.has(name) ? REDACTED : value;
  return out;
}

/** A body the journal cannot read (already consumed, aborted) is recorded as null, never an error. */
async function readText(read: () => Promise<string>): Promise<string> {
  try {
    return await read();
  } catch {
    return '';
  }
}

/** Parsed JSON when it is JSON, the raw text otherwise, null when there is none. */
function parseBody(text: string, contentType: string | null | undefined): unknown {
  if (text === '') return null;
  // Too long to keep whole: a prefix, never parsed (so a secret field cannot be cut past redaction).
  if (text.length > MAX_BODY_CHARS) return `${redactText(text.slice(0, MAX_BODY_CHARS))}... [truncated: ${text.length} characters]`;
  if (!contentType || /json/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return redactText(text);
    }
  }
  return redactText(text);
}

/** Best effort for raw text: a "private_key": "..." pair loses its value. */
function redactText(text: string): string {
  return text.replace(/("private_key"\s*:\s*)"(?:[^"\\]|\\.)*("|$)/g, `$1"${REDACTED}"`);
}

export function redactFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactFields);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [key, SECRET_FIELDS.has(key) && v !== null ? REDACTED : redactFields(v)]),
    );
  }
  return value;
}
