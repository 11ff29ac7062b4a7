// One comparison, start to end: the call sent to the upstream, its answer compared with the
// sandbox's by the contract, the result as compare mode keeps it. Runs in the compare worker
// (compare-worker.ts), off the thread that answers calls.
import { MAX_BODY_CHARS, redactFields, redactHeaders, redactText } from '../journal/redact.js';
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

export async function runCompareJob(job: CompareJob, client: UpstreamClient, comparer: ContractComparer): Promise<Comparison> {
  return compared(job, await client.send(job.request), comparer);
}

function compared({ base, sandbox }: CompareJob, result: UpstreamResult, comparer: ContractComparer): Comparison {
  if (!result.ok) return withoutAnswer(base, 'upstream_failed', `${result.failure}: ${result.message}`, result.durationMs);
  // Kept as text, as the journal keeps answers (parsed and redacted when read); a private key never waits in memory.
  const kept = endToEnd(result.headers);
  const headers = redactHeaders(Object.fromEntries(Object.entries(kept).map(([name, value]) => [name, redactTokensInHeader(value)])));
  const text = textOf(result.bytes);
  const clipped = text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS) : text;
  const bodyText = clipped.includes('"private_key"') ? redactText(clipped) : clipped;
  const failure = result.status >= 500 ? `status ${result.status}` : null;
  const side: UpstreamSide = { status: result.status, headers, bodyText, duration_ms: result.durationMs, failure };
  if (failure) return { ...base, outcome: 'upstream_failed', differences: [], upstream: side };
  const theirs: ComparedAnswer = { status: result.status, headers, body: text === '' ? undefined : parseJson(text) };
  const operation = comparer.operation(base.operation_id);
  if (!operation) return { ...base, outcome: 'same', differences: [], upstream: side };
  // First without the sandbox's body: the contract checks read the upstream's answer only, the
  // sandbox's values are only quoted, or excuse a field both send. No difference then means none
  // with it; only when there is one is the sandbox's answer decoded and parsed, and compared again.
  let found = comparer.compare(operation, { status: sandbox.status, headers: sandbox.headers, body: undefined }, theirs);
  if (found.length) found = comparer.compare(operation, { status: sandbox.status, headers: sandbox.headers, body: sandboxBody(sandbox.body) }, theirs);
  // Only the values a difference quotes are kept of the parsed bodies: those lose their secrets now.
  const differences = found.map((d) => ({
    ...d,
    sandbox: redactFields(d.sandbox, true),
    upstream: redactFields(d.upstream, true),
  }));
  return { ...base, outcome: differences.length ? 'differs' : 'same', differences, upstream: side };
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
