// Finding credentials by their value, wherever a client put them: a JWT (JWS or JWE compact form:
// base64url parts joined by dots, the first decoding to a JSON object with `alg`) anywhere in a
// value, and a `Bearer <token>` value. Named places (Authorization, the admin token header,
// `private_key`) are redacted by name in redact.ts; this catches the same secrets sent elsewhere:
// a Cookie, x-api-key or any other header, an access_token or any query parameter (its name too),
// the path, a JSON field or key at any depth, a form body. Also escaped where no escape is needed,
// however deep: a JWT's dots (or any of its characters) percent-encoded (`%2E`, `%252E`, ...) or
// JSON-escaped (`\u002e`, `\\u002e`, ...), the two mixed, up to MAX_ESCAPE_DEPTH levels (decodeEscapes).
// One definition of a token for every sink: the journal's stored entry (requests, HAR, stream, state
// export, Redis) and the log (app.ts hands redactTokensInText to the request log).

/** What a secret's value becomes in the journal. */
export const REDACTED = '[redacted]';

/** Could the text hold a bearer credential: the scheme followed by a separator? */
const BEARER_HINT = /bearer(?:[\s+]|%20|\\u0020|\\[nrt])/i;

/**
 * A run that may be a compact JWT: a header part, then 2 (JWS) or 4 (JWE) more parts. It starts
 * only where a run of base64url characters starts (the lookbehind), or right after a JSON escape
 * such as `\n` in raw text: tried inside a long run, it would scan to the run's end from every
 * position, quadratic in the run's length.
 */
const JWT_CANDIDATE = /(?:(?<![A-Za-z0-9_-])|(?<=\\[bfnrt]))[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*){2,4}/g;

/** A whole value that is a bearer credential: the scheme (any case, RFC 7235) and a token68. */
const BEARER_VALUE = /^\s*bearer\s+[A-Za-z0-9\-._~+/]+=*\s*$/i;

/** In a header: `Bearer <token>` at the start of the value or of a piece (`a=Bearer x; b=1`, `Bearer x, Bearer y`). */
const BEARER_IN_HEADER = /(^|[;,=]\s*)bearer\s+[A-Za-z0-9\-._~+/]+=*/gi;

/** In raw text (a form body, a body that is not JSON, a cut prefix): the scheme, then a token of 8 characters or more. */
const BEARER_IN_TEXT = /\bbearer(?:\s|\+|%20|\\u0020|\\[nrt])+[A-Za-z0-9\-._~+/]{8,}=*/gi;

/**
 * Whether `text` (from `from` on) may hold a token: when false (almost always), it holds none.
 * Cheap looks, before any regular expression: a JWT is a run of 8 base64url characters or more, a
 * dot, another run and a dot; a bearer value has the scheme's letters (written Bearer, bearer or
 * BEARER: "earer" or "EARER"). Only a text with a `%` or a `\` is decoded (decodeEscapes) and
 * looked at again. Every header of every request goes through this: about 50 ns for a typical value.
 */
export function mayHoldToken(text: string, from = 0): boolean {
  if (text.length - from < 10) return false;
  if (mayHoldJwt(text, from) || ((text.includes('earer', from) || text.includes('EARER', from)) && BEARER_HINT.test(text))) return true;
  if (!text.includes('%', from) && !text.includes('\\', from)) return false;
  const decoded = decodeEscapes(from === 0 ? text : text.slice(from));
  return mayHoldJwt(decoded, 0) || BEARER_HINT.test(decoded);
}

const isBase64url = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 45 || code === 95;

/** A dot with 8 base64url characters before it and a run of them then another dot after it; linear in the text. */
function mayHoldJwt(text: string, from: number): boolean {
  for (let dot = text.indexOf('.', from); dot >= 0; dot = text.indexOf('.', dot + 1)) {
    let before = 0;
    while (before < 8 && dot - before > from && isBase64url(text.charCodeAt(dot - before - 1))) before++;
    if (before < 8) continue;
    let after = dot + 1;
    while (after < text.length && isBase64url(text.charCodeAt(after))) after++;
    if (text.charCodeAt(after) === 46) return true; // '.'
  }
  return false;
}

/** Most levels of escaping undone: a token escaped deeper is not looked for (the property test covers 3). */
export const MAX_ESCAPE_DEPTH = 4;

/** One level: `\\`, `\uXXXX` or `%XX`. */
const ESCAPE = /\\\\|\\u([0-9A-Fa-f]{4})|%([0-9A-Fa-f]{2})/g;
/** What an escape is undone for: RFC 3986's unreserved characters (a token's own), and the escape characters themselves (`%25`, `\\`, `\u005c`), which nest escapes. */
const DECODED = /^[A-Za-z0-9._~%\\-]$/;

/**
 * The text with its escapes undone, level after level (at most MAX_ESCAPE_DEPTH) while a level
 * changes something: `%252E` becomes `%2E`, then `.`; `\\u002e` (a JSON-escaped `\u002e`) becomes
 * `\u002e`, then `.`; mixed levels too (`%5Cu002e`). Only escapes of unreserved characters and of
 * the escape characters are undone: what other escapes stand for (`%20`, `%2F`, `\n`) is kept.
 * Used where a token was found this way: that text is then shown decoded.
 */
export function decodeEscapes(text: string): string {
  let current = text;
  for (let level = 0; level < MAX_ESCAPE_DEPTH && (current.includes('%') || current.includes('\\')); level++) {
    const next = current.replace(ESCAPE, (written, json: string | undefined, percent: string | undefined) => {
      if (json === undefined && percent === undefined) return '\\';
      const char = String.fromCharCode(Number.parseInt(json ?? percent ?? '', 16));
      return DECODED.test(char) ? char : written;
    });
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * `redact` applied to the text with its escapes decoded (decodeEscapes) when it holds any, so a
 * token written with escapes is found whole; the text as written when nothing is found that way
 * (an unchanged text keeps its escapes). Decoded first: redacting the text as written first would
 * take a token's unescaped beginning and leave the rest after its first escaped character
 * (`...MzQ\u0035.sig`) readable.
 */
function withEscapes(text: string, redact: (text: string) => string): string {
  if (!text.includes('%') && !text.includes('\\')) return redact(text);
  const decoded = decodeEscapes(text);
  if (decoded !== text) {
    const again = redact(decoded);
    if (again !== decoded) return again;
  }
  return redact(text);
}

/**
 * How many parts a compact token with this first part has: 5 for a JWE (its header has `enc`), 3
 * for a JWS, 0 when the part does not decode to a JOSE header (a JSON object with a string `alg`).
 */
function compactParts(header: string): 0 | 3 | 5 {
  const decoded = Buffer.from(header, 'base64url').toString('utf8').trimStart();
  if (!decoded.startsWith('{')) return 0;
  try {
    const parsed = JSON.parse(decoded);
    if (typeof parsed !== 'object' || parsed === null || typeof parsed.alg !== 'string') return 0;
    return typeof parsed.enc === 'string' ? 5 : 3;
  } catch {
    return 0;
  }
}

/** Every compact JWT in `text` replaced by the marker; the text around it kept. */
export function redactJwts(text: string): string {
  let out = '';
  let copied = 0;
  JWT_CANDIDATE.lastIndex = 0;
  for (let match = JWT_CANDIDATE.exec(text); match; match = JWT_CANDIDATE.exec(text)) {
    const parts = match[0].split('.');
    const count = compactParts(parts[0]);
    if (count === 0) {
      // The letter of a JSON escape (`\n` in raw text) is not the token's: it may start one further on.
      const afterEscape = text.charCodeAt(match.index - 1) === 92 && 'bfnrt'.includes(match[0][0]);
      // Not a JWT from here; one may still start at its next part (`prefix.eyJ...`).
      JWT_CANDIDATE.lastIndex = afterEscape ? match.index + 1 : match.index + parts[0].length + 1;
      continue;
    }
    // The token's own parts only: what follows its last one (`<jwt>.<jwt>`) is looked at again.
    const length = parts.slice(0, count).join('.').length;
    out += text.slice(copied, match.index) + REDACTED;
    copied = match.index + length;
    JWT_CANDIDATE.lastIndex = copied;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A header value with its bearer credentials and JWTs replaced (the rest of a Cookie kept). */
export function redactTokensInHeader(value: string): string {
  if (!mayHoldToken(value)) return value;
  return withEscapes(value, (text) => redactJwts(text.replace(BEARER_IN_HEADER, `$1${REDACTED}`)));
}

/** A query or JSON string value (or key): the marker when it is a bearer credential, else its JWTs replaced. */
export function redactTokensInValue(value: string): string {
  if (!mayHoldToken(value)) return value;
  return withEscapes(value, (text) => (BEARER_VALUE.test(text) ? REDACTED : redactJwts(text)));
}

/**
 * Raw text (a form body, a body that is not JSON, the kept prefix of a long one): bearer
 * credentials and JWTs replaced, and a JWT cut short by the end of a prefix (header and part of
 * its payload) too.
 */
export function redactTokensInText(text: string, cut = false): string {
  const redacted = mayHoldToken(text) ? withEscapes(text, (raw) => redactJwts(raw.replace(BEARER_IN_TEXT, REDACTED))) : text;
  const torn = cut ? tornJwtAt(redacted) : -1;
  return torn < 0 ? redacted : redacted.slice(0, torn) + REDACTED;
}

/** Where a JWT cut after its header (`<header>.<part of the payload>` at the very end) starts, or -1. */
function tornJwtAt(text: string): number {
  let dot = text.length;
  while (dot > 0 && isBase64url(text.charCodeAt(dot - 1))) dot--;
  if (dot === 0 || text[dot - 1] !== '.') return -1;
  dot--;
  let start = dot;
  while (start > 0 && isBase64url(text.charCodeAt(start - 1))) start--;
  return dot - start >= 8 && compactParts(text.slice(start, dot)) > 0 ? start : -1;
}
