// Writes every API request and its response into the journal of the request's namespace, after the
// response is made (error responses included). Control requests (/_sandbox/*) are not journaled:
// reading the journal must not change what it counts. Only raw text is kept here, parsed when the
// journal is read, so recording costs the request path almost nothing. Secrets never wait in it:
// header secrets are dropped here (headerLinesWithoutSecrets), those in the URL and body when the
// journal adds the entry (Journal.add, redact.ts), after a cheap look that finds none in most.
import { type Call, CallSlot } from '../http/call.js';
import { type SentBody, sentBody, sentHeaders } from '../http/json-response.js';
import type { Step } from '../http/pipeline.js';
import type { ScenarioNote } from './entry.js';
import { JOURNAL, type Journal } from './journal.js';
import type { PendingJournals } from './pending.js';
import { MAX_BODY_CHARS, PRIVATE_KEY_FIELD, REDACTED, redactText, SECRET_HEADERS } from './redact.js';
import { redactTokensInHeader } from './tokens.js';

export { MAX_BODY_CHARS, REDACTED, redactFields } from './redact.js';

/** The namespace clock when the request arrived: its journal entry's timestamp. */
const ARRIVED_AT = new CallSlot<string>('journal timestamp');

/** The id of the call's journal entry, once kept (compare mode files its comparison under it). */
export const JOURNAL_ENTRY_ID = new CallSlot<number>('journal entry id');

/** What a scenario did beyond answering under its name (most requests: nothing, and no slot is used). */
const SCENARIO_NOTE = new CallSlot<ScenarioNote>('journal scenario note');

/** The journal will say the answer's status is outside the operation's contract (an injected 429 or 5xx it does not declare). */
export function noteOutsideContract(call: Call): void {
  const note = call.get(SCENARIO_NOTE) ?? {};
  note.outside_contract = true;
  call.set(SCENARIO_NOTE, note);
}

/** The upstream answered the call (record mode), not the sandbox. */
const ANSWERED_BY_UPSTREAM = new CallSlot<true>('journal answered by upstream');

/** The journal will say the upstream answered the call (record mode): the recording is those entries. */
export function noteAnsweredByUpstream(call: Call): void {
  call.set(ANSWERED_BY_UPSTREAM, true);
}

/** The journal will keep the answer the operation gave, which a scenario kept from the client (its JSON text; '' for none). */
export function noteLostAnswer(call: Call, status: number, body: SentBody): void {
  const note = call.get(SCENARIO_NOTE) ?? {};
  const clipped = clip(body);
  const text = typeof clipped.text === 'string' ? clipped.text : clipped.text.toString('utf8');
  // A generated key pair's answer holds a private key: it never waits in memory.
  note.lost = { status, text: text.includes(PRIVATE_KEY_FIELD) ? redactText(text) : text, length: clipped.length };
  call.set(SCENARIO_NOTE, note);
}

/**
 * Records every request that gets this far, after its answer exists (error answers included); a
 * request to a namespace that was never created goes to `pending` under the name it gave.
 */
export function recordInJournal(pending: PendingJournals): Step {
  return {
    name: 'journal',
    requires: ['request id', 'namespace'],
    before(call) {
      call.set(ARRIVED_AT, call.ns.clock.nowIso());
    },
    // The namespace's journal, or the one set aside for a namespace not created yet: chosen once, here.
    after: (call) => record(call, call.ns.admitted ? call.ns.part(JOURNAL) : pending.journalFor(call.namespaceName)),
  };
}

/** Synchronous when there is nothing left to read (body read by validation or none, our own JSON answer): most calls. */
function record(call: Call, journal: Journal): void | Promise<void> {
  const sent = sentBody(call);
  // Validation has read the body of most requests that have one; others are read here.
  const bodyText = call.bodyText;
  const withBody = bodyText === undefined && hasBody(call);
  if (sent !== undefined && !withBody) return keep(call, journal, bodyText ?? '', sent, sent);
  return Promise.all([
    withBody ? readText(() => call.readBody()) : (bodyText ?? ''),
    sent ?? (call.res.body ? readText(() => call.res.clone().text()) : ''),
  ]).then(([requestText, responseBody]) => keep(call, journal, requestText, responseBody, sent));
}

/** `sent`: the JSON body this sandbox answered with, undefined when the answer was made otherwise. */
function keep(call: Call, journal: Journal, requestText: string, responseBody: SentBody, sent: SentBody | undefined): void {
  // Bounded: one long body cannot crowd every other entry out of the journal's byte budget.
  const request = clip(requestText);
  const response = clip(responseBody);
  journal.add({
    timestamp: call.get(ARRIVED_AT) as string,
    namespace: call.namespaceName,
    method: call.method,
    path: call.path,
    url: call.url,
    headerLines: headerLinesWithoutSecrets(call),
    requestText: request.text,
    requestLength: request.length,
    requestContentType: call.header('content-type') ?? null,
    status: call.res.status,
    responseHeaderLines: responseHeaderLines(call),
    responseText: response.text,
    responseLength: response.length,
    // Our own answers are JSON (or empty): reading res.headers would build a Headers object.
    responseContentType: sent !== undefined ? (sent === '' ? null : 'application/json') : call.res.headers.get('content-type'),
    // Only a key pair's creation answers with a private key; an answer made elsewhere (a scenario's
    // rewrite) is searched too, to be safe.
    responseMayHoldPrivateKey: sent === undefined || (call.operation?.answerMayHoldPrivateKey ?? false),
    duration_ms: Math.round((performance.now() - call.receivedAt) * 1000) / 1000,
    operation_id: call.operation?.id ?? null,
    merchant_account_id: merchantAccountOf(call),
    scenario: call.scenario,
    request_id: call.requestId,
    scenarioNote: call.scenario === null ? null : noteText(call),
    answeredBy: call.get(ANSWERED_BY_UPSTREAM) ? 'upstream' : null,
  });
  if (journal.capacity > 0) call.set(JOURNAL_ENTRY_ID, journal.lastId);
}

/** Longest merchant account id kept: an unknown one (refused, 403) may be any length; messages show 100 characters too. */
const MAX_MERCHANT_ACCOUNT_CHARS = 100;

/** The merchant account the request chose; null when it chose none (refused before, or an empty header). */
function merchantAccountOf(call: Call): string | null {
  const id = call.merchantAccountId;
  if (id === undefined) return null;
  return id.length > MAX_MERCHANT_ACCOUNT_CHARS ? id.slice(0, MAX_MERCHANT_ACCOUNT_CHARS) : id;
}

function noteText(call: Call): string | null {
  const note = call.get(SCENARIO_NOTE);
  return note ? JSON.stringify(note) : null;
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
function headerLinesWithoutSecrets(call: Call): string {
  const headers = call.allHeaders();
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

/**
 * The answer's headers as lines: our own answers' plain header object (no Headers instance built
 * on the request path), else the Response's (a scenario's rewrite, a docs page).
 */
function responseHeaderLines(call: Call): string {
  const own = sentHeaders(call);
  let lines = '';
  if (own) for (const name in own) lines += `${name}: ${own[name]}\n`;
  else for (const [name, value] of call.res.headers) lines += `${name}: ${value}\n`;
  return lines;
}

function hasBody(call: Call): boolean {
  const length = call.header('content-length');
  return (length !== undefined && length !== '0') || call.header('transfer-encoding') !== undefined;
}

/** A body the journal cannot read (already consumed, aborted) is recorded as empty, never an error. */
async function readText(read: () => Promise<string>): Promise<string> {
  try {
    return await read();
  } catch {
    return '';
  }
}
