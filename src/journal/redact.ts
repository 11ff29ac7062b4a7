// Turning what a request carried into a journal entry's fields, secrets removed. Runs when the
// journal is read, not on the request path: recording a request only keeps its raw text (header
// lines excepted, cleaned when recorded: see record-request.ts). Secrets are found by name (the
// headers below, `private_key`, PEM private keys) and, in what the client sent, by value: any
// bearer credential or JWT, in any header, query parameter or body field (tokens.ts).
import { REDACTED, redactTokensInText, redactTokensInValue } from './tokens.js';

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
  if (start < 0) return url;
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
  const clean = (raw: string, cut = false) => (sentByClient ? redactTokensInText(redactText(raw), cut) : redactText(raw));
  // Too long to keep whole: a prefix, never parsed (so a secret field cannot be cut past redaction).
  if (length > MAX_BODY_CHARS) return `${clean(text.slice(0, MAX_BODY_CHARS), true)}... [truncated: ${length} characters]`;
  if (!contentType || /json/i.test(contentType)) {
    try {
      return redactFields(JSON.parse(text), sentByClient);
    } catch {
      return clean(text);
    }
  }
  return clean(text);
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
