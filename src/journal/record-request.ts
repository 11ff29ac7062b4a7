// Writes every API request and its response into the journal of the request's namespace, after the
// response is made (error responses included). Control requests (/_sandbox/*) are not journaled:
// reading the journal must not change what it counts. Only raw text is kept here; parsing and
// redaction (every non-null `private_key`, bearer credentials and JWTs in the query and body)
// happen when the journal is read (see redact.ts), so recording costs the request path almost
// nothing. Header secrets are dropped here already (see headerLinesWithoutSecrets).
import type { Context } from 'hono';
import type { SandboxEnv } from '../http/env.js';
import { requestHeader, requestHeaders } from '../http/headers.js';
import { type SentBody, sentBody } from '../http/json-response.js';
import type { Step } from '../http/pipeline.js';
import { journalOf } from './journal.js';
import { MAX_BODY_CHARS, REDACTED, SECRET_HEADERS } from './redact.js';
import { redactTokensInHeader } from './tokens.js';

export { MAX_BODY_CHARS, REDACTED, redactFields } from './redact.js';

export interface JournalOptions {
  /** Most entries kept per namespace (config.journalSize). */
  size: number;
}

/** Runs after requestId() (arrival time) and selectNamespace() (whose journal). */
export function recordInJournal(options: JournalOptions): Step {
  return {
    before(c) {
      c.set('journalTimestamp', c.get('ns').clock.nowIso());
    },
    after: (c) => record(c, options),
  };
}

/** Synchronous when there is nothing left to read (body read by validation or none, our own JSON answer): most calls. */
function record(c: Context<SandboxEnv>, options: JournalOptions): void | Promise<void> {
  const sent = sentBody(c);
  // Validation has read the body of most requests that have one; others are read here.
  const bodyText = c.get('bodyText');
  const withBody = bodyText === undefined && hasBody(c);
  if (sent !== undefined && !withBody) return keep(c, options, bodyText ?? '', sent, sent);
  return Promise.all([withBody ? readText(() => c.req.text()) : (bodyText ?? ''), sent ?? (c.res.body ? readText(() => c.res.clone().text()) : '')]).then(
    ([requestText, responseBody]) => keep(c, options, requestText, responseBody, sent),
  );
}

/** `sent`: the JSON body this sandbox answered with, undefined when the answer was made otherwise. */
function keep(c: Context<SandboxEnv>, options: JournalOptions, requestText: string, responseBody: SentBody, sent: SentBody | undefined): void {
  const ns = c.get('ns');
  // Kept bounded: one long body cannot crowd every other entry out of the journal's byte budget.
  const request = clip(requestText);
  const response = clip(responseBody);
  journalOf(ns, options.size).add({
    timestamp: c.get('journalTimestamp'),
    namespace: ns.name,
    method: c.req.method,
    path: c.req.path,
    url: c.req.url,
    headerLines: headerLinesWithoutSecrets(c),
    requestText: request.text,
    requestLength: request.length,
    requestContentType: requestHeader(c, 'content-type') ?? null,
    status: c.res.status,
    responseText: response.text,
    responseLength: response.length,
    // Our own answers are JSON (or empty): reading c.res.headers would build a Headers object.
    responseContentType: sent !== undefined ? (sent === '' ? null : 'application/json') : c.res.headers.get('content-type'),
    // Only a key pair's creation answers with a private key; an answer made elsewhere (a scenario's
    // rewrite) is searched too, to be safe.
    responseMayHoldPrivateKey: sent === undefined || (c.get('operation')?.answerMayHoldPrivateKey ?? false),
    duration_ms: Math.round((performance.now() - c.get('receivedAt')) * 1000) / 1000,
    operation_id: c.get('operation')?.id ?? null,
    scenario: c.get('scenario') ?? null,
    request_id: c.get('requestId'),
  });
}

/** At most MAX_BODY_CHARS characters of a body (text, or UTF-8 bytes), and its whole length in characters. */
export function clip(body: string): { text: string; length: number };
export function clip(body: SentBody): { text: string | Buffer; length: number };
export function clip(body: SentBody): { text: string | Buffer; length: number } {
  if (typeof body === 'string') return { text: body.length > MAX_BODY_CHARS ? body.slice(0, MAX_BODY_CHARS) : body, length: body.length };
  if (body.chars <= MAX_BODY_CHARS) return { text: body.bytes, length: body.chars };
  // Bytes are cut at a character boundary at or before MAX_BODY_CHARS bytes: never more characters than that.
  let end = Math.min(body.bytes.length, MAX_BODY_CHARS);
  while (end > 0 && (body.bytes[end] & 0xc0) === 0x80) end--; // not inside a multi-byte character
  return { text: body.bytes.subarray(0, end), length: body.chars };
}

/**
 * The request headers as `name: value` lines (a header cannot hold a line break), secrets dropped
 * now, not only when the journal is read: a token need not wait in memory. The named secret
 * headers lose their value; in any other (Cookie, x-api-key, ...) a bearer credential or a JWT is
 * replaced, the rest kept (one regular expression test per value when it holds none). Lines rather
 * than JSON: no copy of the header object, and nothing to escape.
 */
function headerLinesWithoutSecrets(c: Context<SandboxEnv>): string {
  const headers = requestHeaders(c);
  let lines = '';
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (SECRET_HEADERS.has(name)) lines += `${name}: ${REDACTED}\n`;
    else if (typeof value === 'string') lines += `${name}: ${redactTokensInHeader(value)}\n`;
    else for (const each of value) lines += `${name}: ${redactTokensInHeader(each)}\n`;
  }
  return lines;
}

function hasBody(c: Context<SandboxEnv>): boolean {
  const length = requestHeader(c, 'content-length');
  return (length !== undefined && length !== '0') || requestHeader(c, 'transfer-encoding') !== undefined;
}

/** A body the journal cannot read (already consumed, aborted) is recorded as empty, never an error. */
async function readText(read: () => Promise<string>): Promise<string> {
  try {
    return await read();
  } catch {
    return '';
  }
}
