// Journal entries as an HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/):
// the format browser devtools, proxies and HTTP clients open. Built from entries as the journal
// gives them, so secrets are redacted exactly as in GET /_sandbox/requests. Fields HAR has no place
// for (namespace, operation, scenario, ...) go in custom fields, which the spec lets start with `_`.
import { STATUS_CODES } from 'node:http';
import type { JournalEntry } from './entry.js';
import { MAX_BODY_CHARS } from './redact.js';

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string; comment?: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  _journalId: number;
  _namespace: string;
  _operationId: string | null;
  _merchantAccountId: string | null;
  _scenario: string | null;
  _requestId: string;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    comment: string;
    entries: HarEntry[];
  };
}

/** What every export says about itself. */
const LOG_COMMENT =
  'Requests from the payments-sandbox journal, oldest first. Times are the namespace clock when each request arrived; ' +
  'secret headers and private keys are "[redacted]"; a body over 65,536 characters is its beginning only.';

/** The entries (newest first, as the journal lists them) as a HAR log, oldest first as HAR viewers expect. */
export function toHar(entries: readonly JournalEntry[], creator: { name: string; version: string }): Har {
  return { log: { version: '1.2', creator, comment: LOG_COMMENT, entries: entries.map(harEntry).reverse() } };
}

function harEntry(entry: JournalEntry): HarEntry {
  const requestBody = bodyText(entry.body);
  const responseBody = bodyText(entry.response_body);
  const requestType = entry.headers['content-type'] ?? '';
  const responseType = entry.response_headers['content-type'] ?? (responseBody.text === null ? '' : 'application/json');
  const time = Math.max(0, entry.duration_ms);
  return {
    startedDateTime: entry.timestamp,
    time,
    request: {
      method: entry.method,
      url: entry.url,
      // The journal does not keep the protocol version; the sandbox speaks HTTP/1.1.
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: nameValues(entry.headers),
      queryString: Object.entries(entry.query).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v }))),
      ...(requestBody.text === null ? {} : { postData: { mimeType: requestType, text: requestBody.text, ...truncationComment(requestBody) } }),
      headersSize: -1,
      bodySize: requestBody.bytes,
    },
    response: {
      status: entry.status,
      statusText: STATUS_CODES[entry.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: nameValues(entry.response_headers),
      content: {
        size: Math.max(0, responseBody.bytes),
        mimeType: responseType,
        ...(responseBody.text === null ? {} : { text: responseBody.text }),
        ...truncationComment(responseBody),
      },
      redirectURL: entry.response_headers.location ?? '',
      headersSize: -1,
      bodySize: responseBody.bytes,
    },
    cache: {},
    // The sandbox measures only the time from arrival to answer: all of it is waiting, as HAR sees it.
    timings: { send: 0, wait: time, receive: 0 },
    _journalId: entry.id,
    _namespace: entry.namespace,
    _operationId: entry.operation_id,
    _merchantAccountId: entry.merchant_account_id,
    _scenario: entry.scenario,
    _requestId: entry.request_id,
  };
}

interface BodyText {
  /** null: no body. */
  text: string | null;
  /** Its size in UTF-8 bytes; -1 when only its beginning was kept (the whole size is unknown in bytes). */
  bytes: number;
  truncated: boolean;
}

const TRUNCATED = /\.\.\. \[truncated: (\d+) characters\]$/;

function bodyText(body: unknown): BodyText {
  if (body === null || body === undefined) return { text: null, bytes: 0, truncated: false };
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const truncated = typeof body === 'string' && body.length > MAX_BODY_CHARS && TRUNCATED.test(body);
  return { text, bytes: truncated ? -1 : Buffer.byteLength(text), truncated };
}

function truncationComment(body: BodyText): { comment?: string } {
  return body.truncated ? { comment: 'Only the beginning of this body was kept by the journal.' } : {};
}

function nameValues(headers: Record<string, string>): HarNameValue[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}
