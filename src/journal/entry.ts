// A journal entry in its three forms: as recording keeps it (RawJournalEntry: raw text, secrets
// the client sent already gone), and as a reader gets it, whole (JournalEntry) or summarized
// (JournalSummary), parsed and redacted only then.
import { bodyOf, pathWithoutSecrets, queryOf, redactHeaders, urlWithoutSecrets } from './redact.js';

export interface JournalEntry {
  /** Increasing per namespace, never reused (clearing the journal does not restart it). */
  id: number;
  /** The namespace clock when the request arrived, RFC 3339. */
  timestamp: string;
  namespace: string;
  method: string;
  /** The API path, without the /ns/{name} prefix. */
  path: string;
  /** The URL as the client asked for it: scheme and host as the sandbox was reached, /ns/{name} prefix and query included (a bearer credential or a JWT in the path, a query value or name redacted). */
  url: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  status: number;
  /** The headers the sandbox set on its answer (not those Node adds when writing it: date, connection, content-length). */
  response_headers: Record<string, string>;
  response_body: unknown;
  duration_ms: number;
  operation_id: string | null;
  /** The merchant account the request acted on (or was refused for); null when it never got that far (an unknown path, a misnamed merchant account header). */
  merchant_account_id: string | null;
  scenario: string | null;
  request_id: string;
  /** Present when a scenario answered with a status the operation does not declare (429 or 5xx, as infrastructure would). */
  outside_contract?: true;
  /** Present when the operation ran but a scenario lost its answer: what the operation answered; the client got `status` instead. */
  lost_answer?: { status: number; body: unknown };
  /** Present when the upstream answered the call, not the sandbox (record mode): what a recording holds. */
  answered_by?: 'upstream';
}

/** An entry without its headers and bodies: what a list of requests shows (view=summary). */
export type JournalSummary = Omit<JournalEntry, 'headers' | 'body' | 'response_headers' | 'response_body'>;

/**
 * What recording a request keeps: raw text, parsed only when the journal is read, so the request
 * path pays for a few references, not for parsing and copying bodies. Secrets the client sent are
 * gone from it once added (Journal.add): what is stored, exported or shared holds none.
 */
export interface RawJournalEntry {
  timestamp: string;
  namespace: string;
  method: string;
  path: string;
  url: string;
  /** `name: value` lines, one a header (a repeated header on several lines); secrets already replaced. */
  headerLines: string;
  /** At most MAX_BODY_CHARS: a longer body is kept as its prefix, with its whole length beside it. */
  requestText: string;
  requestLength?: number;
  requestContentType: string | null;
  status: number;
  /** The answer's headers as `name: value` lines, as headerLines (absent in states exported before they were kept). */
  responseHeaderLines?: string;
  /** The response body: text, or UTF-8 bytes (an answer the sandbox sent as bytes), at most MAX_BODY_CHARS characters. */
  responseText: string | Buffer;
  responseLength?: number;
  responseContentType: string | null;
  /**
   * Whether the response text may carry a private key (a generated key pair's answer, or an answer
   * not made by the sandbox): only those are searched for one before being kept. Not stored.
   */
  responseMayHoldPrivateKey: boolean;
  duration_ms: number;
  operation_id: string | null;
  merchant_account_id?: string | null;
  scenario: string | null;
  request_id: string;
  /** What a scenario did beyond its name, as JSON text (ScenarioNote); absent for most requests. */
  scenarioNote?: string | null;
  /** `upstream` when the upstream answered (record mode); null or absent when the sandbox did. */
  answeredBy?: 'upstream' | null;
}

/** What the journal says of a scenario's answer beside its name (kept as JSON text in RawJournalEntry.scenarioNote). */
export interface ScenarioNote {
  outside_contract?: true;
  /** The answer a scenario lost (the operation ran): status, JSON text (at most MAX_BODY_CHARS) and its whole length. */
  lost?: { status: number; text: string; length: number };
}

/** The headers of `headerLines`: a header on several lines gets its values joined with ", ". */
function headersOfLines(lines: string): Record<string, string> {
  const headers: Record<string, string> = Object.create(null); // a header may be named __proto__
  for (const line of lines.split('\n')) {
    const colon = line.indexOf(': ');
    if (colon < 0) continue;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 2);
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

export function materialize(id: number, raw: RawJournalEntry): JournalEntry {
  const entry: JournalEntry = {
    ...summarize(id, raw),
    headers: redactHeaders(headersOfLines(raw.headerLines)),
    body: bodyOf(raw.requestText, raw.requestContentType, raw.requestLength, true),
    response_headers: redactHeaders(headersOfLines(raw.responseHeaderLines ?? '')),
    response_body: bodyOf(raw.responseText.toString(), raw.responseContentType, raw.responseLength),
  };
  const lost = raw.scenarioNote ? noteOf(raw.scenarioNote)?.lost : undefined;
  if (lost) entry.lost_answer = { status: lost.status, body: bodyOf(String(lost.text), 'application/json', lost.length) };
  return entry;
}

/** A note as recorded; an imported one that is not a note says nothing. */
function noteOf(text: string): ScenarioNote | null {
  try {
    const note = JSON.parse(text) as ScenarioNote;
    return note && typeof note === 'object' ? note : null;
  } catch {
    return null;
  }
}

export function summarize(id: number, raw: RawJournalEntry): JournalSummary {
  const summary: JournalSummary = {
    id,
    timestamp: raw.timestamp,
    namespace: raw.namespace,
    method: raw.method,
    path: pathWithoutSecrets(raw.path),
    url: urlWithoutSecrets(raw.url),
    query: queryOf(raw.url),
    status: raw.status,
    duration_ms: raw.duration_ms,
    operation_id: raw.operation_id,
    merchant_account_id: raw.merchant_account_id ?? null,
    scenario: raw.scenario,
    request_id: raw.request_id,
  };
  if (raw.scenarioNote && noteOf(raw.scenarioNote)?.outside_contract) summary.outside_contract = true;
  if (raw.answeredBy === 'upstream') summary.answered_by = 'upstream';
  return summary;
}

/** How much of each entry a reader wants: everything, or the summary a list shows. */
export type JournalView = 'full' | 'summary';
