// Secrets out of what the journal keeps and shows. What the client sent is cleaned when it is
// recorded (headers in record-request.ts, URL and body in journal.ts: no stored or exported form of
// an entry holds a secret), with a cheap look first so that a request holding none costs a scan;
// turning an entry into its fields when the journal is read cleans again (an answer's private key,
// and entries recorded before this). Secrets are found by name (the headers below, `private_key`,
// PEM private keys) and, in what the client sent, by value: any bearer credential or JWT, in any
// header, query parameter or body field (tokens.ts).
import { mayHoldToken, REDACTED, redactTokensInText, redactTokensInValue } from './tokens.js';

export { REDACTED } from './tokens.js';
export const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-sandbox-admin-token']);
const SECRET_FIELDS = new Set(['private_key']);
/** A body longer than this is kept as its first MAX_BODY_CHARS characters, marked truncated. */
export const MAX_BODY_CHARS = 64 * 1024;

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = Object.create(null); // a header may be named __proto__
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = SECRET_HEADERS.has(lower) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The query parameters of a request URL, bearer credentials and JWTs redacted whatever the parameter's name. */
export function queryOf(url: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const start = url.indexOf('?');
  if (start < 0) return query;
  for (const [key, raw] of new URLSearchParams(url.slice(start + 1))) {
    const value = redactTokensInValue(raw);
    const seen = query[key];
    query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/** The URL as the client sent it, with every query value holding a bearer credential or a JWT redacted (as queryOf). */
export function urlWithoutSecrets(url: string): string {
  const start = url.indexOf('?');
  // Nothing to look at without a query; nothing to find when the URL shows no token and escapes
  // none of its characters (a `%2E` for a JWT's dot).
  if (start < 0 || (!mayHoldToken(url) && !url.includes('%', start))) return url;
  const params = new URLSearchParams(url.slice(start + 1));
  let changed = false;
  const clean = new URLSearchParams();
  for (const [key, raw] of params) {
    const value = redactTokensInValue(raw);
    if (value !== raw) changed = true;
    clean.append(key, value);
  }
  // Unchanged: exactly as sent (URLSearchParams would re-encode it).
  return changed ? `${url.slice(0, start + 1)}${clean.toString().replaceAll('%5Bredacted%5D', '[redacted]')}` : url;
}

/**
 * Parsed JSON when it is JSON, the raw text otherwise, null when there is none; secrets redacted.
 * `length`: the body's whole length, when `text` was already cut to its first MAX_BODY_CHARS.
 * `sentByClient`: a request body, where bearer credentials and JWTs are secrets too; an answer's
 * tokens (a session token the sandbox signed) are what the client asked for, and kept.
 */
export function bodyOf(text: string, contentType: string | null | undefined, length = text.length, sentByClient = false): unknown {
  if (text === '') return null;
  // Too long to keep whole: a prefix, never parsed (so a secret field cannot be cut past redaction).
  if (length > MAX_BODY_CHARS) return `${cleanText(text.slice(0, MAX_BODY_CHARS), sentByClient, true)}... [truncated: ${length} characters]`;
  if (isJson(contentType)) {
    try {
      return redactFields(JSON.parse(text), sentByClient);
    } catch {
      return cleanText(text, sentByClient);
    }
  }
  return cleanText(text, sentByClient);
}

/**
 * A request body as the journal keeps it (at most MAX_BODY_CHARS of it; `length`: the whole body's),
 * secrets gone: the text itself when a cheap look finds none (almost always), else what bodyOf
 * shows of it as text (JSON cleaned field by field, then written compactly), so reading it later
 * shows exactly what reading the original did.
 */
export function requestTextWithoutSecrets(text: string, contentType: string | null, length = text.length): string {
  if (!mayHoldToken(text) && !text.includes('PRIVATE KEY-----') && !text.includes('"private_key"')) return text;
  if (length > MAX_BODY_CHARS) return cleanText(text.slice(0, MAX_BODY_CHARS), true, true);
  if (isJson(contentType)) {
    try {
      return JSON.stringify(redactFields(JSON.parse(text), true));
    } catch {
      // Not JSON after all: cleaned as raw text, below.
    }
  }
  return cleanText(text, true);
}

const isJson = (contentType: string | null | undefined) => !contentType || /json/i.test(contentType);

/** Raw text cleaned: private keys; with `tokens` (sent by the client), bearer credentials and JWTs too, one cut by the end of a prefix (`cut`) included. */
function cleanText(raw: string, tokens: boolean, cut = false): string {
  return tokens ? redactTokensInText(redactText(raw), cut) : redactText(raw);
}

const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g;

/** Whether a string holds a PEM private key (sent by mistake, e.g. as `public_key`). */
function holdsPrivateKey(text: string): boolean {
  return text.includes('PRIVATE KEY-----');
}

/** Best effort for raw text: a "private_key": "..." pair loses its value, and so does any PEM private key. */
export function redactText(text: string): string {
  return text.replace(/("private_key"\s*:\s*)"(?:[^"\\]|\\.)*("|$)/g, `$1"${REDACTED}"`).replace(PEM_PRIVATE_KEY, REDACTED);
}

/** A string field's value, secrets removed: a private key whole; with `tokens`, bearer credentials and JWTs. */
function redactString(value: string, tokens: boolean): string {
  if (holdsPrivateKey(value)) return REDACTED;
  return tokens ? redactTokensInValue(value) : value;
}

/**
 * `private_key` fields and private keys anywhere; with `tokens` (a request body), bearer
 * credentials and JWTs in string values at any depth. Iterative, so a deeply nested body cannot
 * overflow the stack.
 */
export function redactFields(value: unknown, tokens = false): unknown {
  if (typeof value === 'string') return redactString(value, tokens);
  if (!value || typeof value !== 'object') return value;
  const root = Array.isArray(value) ? [...value] : { ...value };
  const stack: Array<Record<string, unknown> | unknown[]> = [root as Record<string, unknown>];
  while (stack.length) {
    const node = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (SECRET_FIELDS.has(key) && v !== null && !Array.isArray(node)) node[key] = REDACTED;
      else if (typeof v === 'string') node[key] = redactString(v, tokens);
      else if (v && typeof v === 'object') {
        const copy = Array.isArray(v) ? [...v] : { ...(v as object) };
        node[key] = copy;
        stack.push(copy as Record<string, unknown>);
      }
    }
  }
  return root;
}
