// One comparison, start to end: the call sent to the upstream, its answer compared with the
// sandbox's by the contract, the result as compare mode keeps it. Runs in the compare worker
// (compare-worker.ts), off the thread that answers calls.
import { MAX_BODY_CHARS, PRIVATE_KEY_FIELD, redactFields, redactHeaders, redactText } from '../journal/redact.js';
import { redactTokensInHeader } from '../journal/tokens.js';
import { endToEnd, textOf, type UpstreamClient, type UpstreamRequest, type UpstreamResult } from './client.js';
import { type Comparison, type UpstreamSide, withoutAnswer } from './comparisons.js';
import type { ComparedAnswer, ContractComparer } from './contract.js';

/** What the request thread hands over of a call once its answer is written. */
export interface CompareJob {
  base: Omit<Comparison, 'outcome' | 'differences' | 'upstream'>;
  request: UpstreamRequest;
  /** The sandbox's answer; its body as JSON text, or its UTF-8 bytes (a copy, handed over without another), null for none. */
  sandbox: { status: number; headers: Record<string, string>; body: string | Uint8Array | null };
}

/** A comparison as the worker makes it: the upstream's body, when kept as its bytes, beside it (packComparison puts it after the JSON). */
export interface ComparedCall {
  comparison: Comparison;
  body?: Uint8Array;
}

export async function runCompareJob(job: CompareJob, client: UpstreamClient, comparer: ContractComparer): Promise<ComparedCall> {
  return compared(job, await client.send(job.request), comparer);
}

/** A body holding the private key field has its value redacted before it is kept (as the journal does). */
const PRIVATE_KEY_BYTES = Buffer.from(PRIVATE_KEY_FIELD);

function compared({ base, sandbox }: CompareJob, result: UpstreamResult, comparer: ContractComparer): ComparedCall {
  if (!result.ok) return { comparison: withoutAnswer(base, 'upstream_failed', `${result.failure}: ${result.message}`, result.durationMs) };
  // Kept as the journal keeps answers (parsed and redacted when read); a private key never waits in memory.
  const kept = endToEnd(result.headers);
  const headers = redactHeaders(Object.fromEntries(Object.entries(kept).map(([name, value]) => [name, redactTokensInHeader(value)])));
  const { bytes } = result;
  // Bytes no longer than MAX_BODY_CHARS are no more characters than that, and without a private key
  // nothing is redacted: kept as they came, not decoded and encoded again.
  const asBytes = bytes.length <= MAX_BODY_CHARS && !bytes.includes(PRIVATE_KEY_BYTES);
  const failure = result.status >= 500 ? `status ${result.status}` : null;
  const side: UpstreamSide = { status: result.status, headers, bodyText: asBytes ? '' : keptText(bytes), duration_ms: result.durationMs, failure };
  const body = asBytes ? bytes : undefined;
  if (failure) return { comparison: { ...base, outcome: 'upstream_failed', differences: [], upstream: side }, body };
  const operation = comparer.operation(base.operation_id);
  if (!operation) return { comparison: { ...base, outcome: 'same', differences: [], upstream: side }, body };
  const theirs = (text: string): ComparedAnswer => ({ status: result.status, headers, body: text === '' ? undefined : parseJson(text) });
  // First the upstream's body read as Latin-1 (a copy; UTF-8 decoding made V8 keep a page with a few
  // accented letters two bytes a character, and parse it slower), without the sandbox's body: the
  // contract checks read the upstream's answer only, the sandbox's values are only quoted, or excuse
  // a field both send. Latin-1 gives the same structure, keys and ASCII strings; a string with other
  // characters differs, and no check that passes it would refuse the same text decoded (the formats
  // are ASCII grammars, an enum or constant does not hold such a string: formats.test.ts), so no
  // difference then means none. Only when there is one are both bodies decoded and compared again.
  let found = comparer.compare(operation, { status: sandbox.status, headers: sandbox.headers, body: undefined }, theirs(bytes.toString('latin1')));
  if (found.length) {
    found = comparer.compare(operation, { status: sandbox.status, headers: sandbox.headers, body: sandboxBody(sandbox.body) }, theirs(textOf(bytes)));
  }
  // Only the values a difference quotes are kept of the parsed bodies: those lose their secrets now.
  const differences = found.map((d) => ({
    ...d,
    sandbox: redactFields(d.sandbox, true),
    upstream: redactFields(d.upstream, true),
  }));
  return { comparison: { ...base, outcome: differences.length ? 'differs' : 'same', differences, upstream: side }, body };
}

/** The upstream's body as the journal keeps an answer: at most MAX_BODY_CHARS characters, a private key gone. */
function keptText(bytes: Buffer): string {
  const text = textOf(bytes);
  const clipped = text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS) : text;
  return clipped.includes(PRIVATE_KEY_FIELD) ? redactText(clipped) : clipped;
}

function sandboxBody(body: CompareJob['sandbox']['body']): unknown {
  const text = typeof body === 'string' || body === null ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return text ? parseJson(text) : undefined;
}

/** JSON text as a value; text that is not JSON stays text (the comparison then finds a type difference). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
