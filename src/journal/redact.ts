// Secrets out of what the journal keeps and shows. What the client sent is cleaned when it is
// recorded (headers in record-request.ts, URL and body in journal.ts: no stored or exported form of
// an entry holds a secret), with a cheap look first so that a request holding none costs a scan;
// turning an entry into its fields when the journal is read cleans again (an answer's private key,
// and entries recorded before this). Secrets are found by name (the headers below, `private_key`,
// PEM private keys) and, in what the client sent, by value: any bearer credential or JWT, in any
// header, the path, a query parameter's value or name, a body field's value or key, percent-encoded
// or JSON-escaped too (tokens.ts).
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

/** The query parameters of a request URL, bearer credentials and JWTs redacted in their values and names. */
export function queryOf(url: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const start = url.indexOf('?');
  if (start < 0) return query;
  for (const [name, raw] of new URLSearchParams(url.slice(start + 1))) {
    const key = redactTokensInValue(name);
    const value = redactTokensInValue(raw);
    const seen = query[key];
    query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/** Where the path of an absolute URL starts (0 for a path alone): its host is not looked at. */
function pathStartOf(url: string): number {
  const authority = url.indexOf('//');
  if (authority < 0) return 0;
  const path = url.indexOf('/', authority + 2);
  return path < 0 ? url.length : path;
}

/**
 * The URL as the client sent it, with every bearer credential and JWT redacted: in the path (a
 * token sent as an id), a query value or a query parameter's name (the names and values as
 * queryOf shows them).
 */
export function urlWithoutSecrets(url: string): string {
  const pathStart = pathStartOf(url);
  if (!mayHoldToken(url, pathStart)) return url;
  const start = url.indexOf('?', pathStart);
  const path = redactTokensInText(url.slice(0, start < 0 ? url.length : start));
  if (start < 0) return path;
  const clean = new URLSearchParams();
  let changed = false;
  for (const [name, raw] of new URLSearchParams(url.slice(start + 1))) {
    const key = redactTokensInValue(name);
    const value = redactTokensInValue(raw);
    if (key !== name || value !== raw) changed = true;
    clean.append(key, value);
  }
  // Unchanged: exactly as sent (URLSearchParams would re-encode it).
  const query = changed ? clean.toString().replaceAll('%5Bredacted%5D', REDACTED) : url.slice(start + 1);
  return `${path}?${query}`;
}

/** The API path with a bearer credential or JWT in it (an id, a segment) redacted. */
export function pathWithoutSecrets(path: string): string {
  return mayHoldToken(path) ? redactTokensInText(path) : path;
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

/** The field whose value is a private key (a generated key pair's answer): text holding it is redacted before it is kept. */
export const PRIVATE_KEY_FIELD = '"private_key"';

/**
 * A request body as the journal keeps it (at most MAX_BODY_CHARS of it; `length`: the whole body's),
 * secrets gone: the text itself when a cheap look finds none (almost always), else what bodyOf
 * shows of it as text (JSON cleaned field by field, then written compactly), so reading it later
 * shows exactly what reading the original did.
 */
export function requestTextWithoutSecrets(text: string, contentType: string | null, length = text.length): string {
  if (!mayHoldToken(text) && !text.includes('PRIVATE KEY-----') && !text.includes(PRIVATE_KEY_FIELD)) return text;
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
 * credentials and JWTs in string values and in keys at any depth. Iterative, so a deeply nested
 * body cannot overflow the stack.
 */
export function redactFields(value: unknown, tokens = false): unknown {
  if (typeof value === 'string') return redactString(value, tokens);
  if (!value || typeof value !== 'object') return value;
  const root = copyOf(value, tokens);
  const stack: Array<Record<string, unknown> | unknown[]> = [root as Record<string, unknown>];
  while (stack.length) {
    const node = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (SECRET_FIELDS.has(key) && v !== null && !Array.isArray(node)) node[key] = REDACTED;
      else if (typeof v === 'string') node[key] = redactString(v, tokens);
      else if (v && typeof v === 'object') {
        const copy = copyOf(v, tokens);
        node[key] = copy;
        stack.push(copy as Record<string, unknown>);
      }
    }
  }
  return root;
}

/**
 * A shallow copy of an array or object; with `tokens`, an object's keys holding a bearer
 * credential or a JWT redacted in place (order kept; `[redacted] 2`, ... when the name is taken).
 */
function copyOf(value: object, tokens: boolean): object {
  if (Array.isArray(value)) return [...value];
  if (!tokens || !Object.keys(value).some((key) => mayHoldToken(key))) return { ...value };
  const entries: [string, unknown][] = [];
  const names = new Set(Object.keys(value));
  for (const [key, v] of Object.entries(value)) {
    const clean = mayHoldToken(key) ? redactTokensInValue(key) : key;
    if (clean === key) {
      entries.push([key, v]);
      continue;
    }
    let name = clean;
    for (let n = 2; names.has(name); n++) name = `${clean} ${n}`;
    names.add(name);
    entries.push([name, v]);
  }
  return Object.fromEntries(entries); // defines each key, `__proto__` included, as its own
}
