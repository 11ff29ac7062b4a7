// The two pipeline steps of --upstream (app.ts places them whenever an upstream is configured; each
// acts only in its mode, read once per call by the compare step, the earlier of the two, so a call
// in flight when the mode is switched finishes in the mode it started in):
// - record mode: the upstream answers the call (the caller's token and merchant account header
//   passed through unchanged); the journal, an earlier step, records that answer as any other.
// - compare mode (placed before the journal's step, so its `after` comes after the journal's): the
//   sandbox answers as usual; once its answer is written, the same call goes to the upstream
//   (writes only with --compare-writes) and the two answers are compared by the contract. Nothing
//   on the sandbox's answer waits for the upstream, and no upstream failure reaches it.
import { type Call, CallSlot } from '../http/call.js';
import { keepSentBytes, sentBody, sentHeaders } from '../http/json-response.js';
import type { Step } from '../http/pipeline.js';
import { JOURNAL_ENTRY_ID, noteAnsweredByUpstream } from '../journal/record-request.js';
import { endToEnd, forwardedHeaders, textOf, type UpstreamRequest } from './client.js';
import { type CompareJob, parseJson } from './compare-job.js';
import { packComparison, withoutAnswer } from './comparisons.js';
import type { Upstream, UpstreamMode } from './upstream.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The upstream's mode when the call arrived (set by the compare step's `before`; absent when off). */
const MODE_OF_CALL = new CallSlot<UpstreamMode>('upstream mode');

/** Record mode's step, after the operation is matched: the upstream answers. None without --upstream. */
export function answerFromUpstream(upstream: Upstream | null): Step[] {
  if (!upstream) return [];
  return [
    {
      name: 'answer from upstream',
      requires: ['operation', 'upstream mode'],
      // Not async itself: a step that returns a promise makes every call's answer asynchronous
      // (pipeline.ts), which in compare mode cost each call the sandbox answers alone.
      before(call) {
        if (call.get(MODE_OF_CALL) === 'record') return answeredByUpstream(upstream, call);
      },
    },
  ];
}

async function answeredByUpstream(upstream: Upstream, call: Call): Promise<Response> {
  const result = await upstream.client.send(await upstreamRequest(call));
  if (!result.ok) return upstreamFailure(result.failure, result.message);
  noteAnsweredByUpstream(call); // the recording is the entries the upstream answered (not the 502/504 above)
  const text = textOf(result.bytes);
  if (result.status < 300) upstream.seen.collect(parseJson(text));
  const headers = endToEnd(result.headers);
  const noBody = result.status === 204 || result.status === 304 || call.method === 'HEAD';
  return new Response(noBody ? null : text, { status: result.status, headers });
}

/** Record mode's answer when the upstream gave none: 502 (unreachable) or 504 (timeout), in the reference's error shape. */
function upstreamFailure(failure: string, message: string): Response {
  const status = failure === 'timeout' ? 504 : 502;
  const body = {
    type: 'error',
    code: status === 504 ? 'gateway_timeout' : 'bad_gateway',
    status,
    message: `the upstream did not answer: ${message}`,
    details: [],
  };
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Compare mode's step, placed before the journal's: its `after` runs once the journal has kept the
 * call (the comparison is filed under that entry). Its `before` reads the mode the call runs in,
 * for both steps. None without --upstream.
 */
export function compareWithUpstream(upstream: Upstream | null): Step[] {
  if (!upstream) return [];
  return [
    {
      name: 'compare with upstream',
      provides: ['upstream mode'],
      before(call) {
        const mode = upstream.mode;
        if (mode !== 'off') call.set(MODE_OF_CALL, mode);
      },
      after(call) {
        if (call.get(MODE_OF_CALL) !== 'compare') return;
        const operationId = call.operation?.id;
        if (!operationId) return;
        const sent = sentBody(call);
        const status = call.res.status;
        const headers = { ...(sentHeaders(call) ?? Object.fromEntries(call.res.headers)) };
        // Handed over once the answer is over (written whole, or its client gone), and a moment later
        // (Upstream.handOverLater): nothing here delays it, and bytes from the answer pool go to the
        // worker as they are, kept out of the pool.
        const handOverWith = (body: string | Uint8Array | null) => () =>
          upstream.handOverLater(() => handOver(upstream, call, operationId, { status, headers, body }));
        if (sent === undefined || typeof sent === 'string') {
          if (!call.onClosed(handOverWith(sent ?? null))) handOverWith(sent ?? null)();
        } else if (call.onClosed(handOverWith(sent.bytes))) {
          keepSentBytes(sent);
        } else {
          // In process: the caller's Response still reads the bytes, so the worker gets a copy of its own.
          handOverWith(new Uint8Array(sent.bytes))();
        }
      },
    },
  ];
}

async function handOver(upstream: Upstream, call: Call, operationId: string, sandbox: CompareJob['sandbox']): Promise<void> {
  const base = {
    namespace: call.namespaceName,
    journal_id: call.get(JOURNAL_ENTRY_ID) ?? null,
    request_id: call.requestId,
    operation_id: operationId,
    method: call.method,
    path: call.path,
    sandbox_status: sandbox.status,
  };
  if (!READS.has(call.method) && !upstream.options.compareWrites) {
    upstream.comparisons.add(packComparison(withoutAnswer(base, 'not_sent', null)));
    return;
  }
  upstream.compare({ base, request: await upstreamRequest(call), sandbox });
}

/** The call as the upstream gets it: same method, path (without /ns/{name}), query, headers and body. */
async function upstreamRequest(call: Call): Promise<UpstreamRequest> {
  const url = call.url;
  const queryAt = url.indexOf('?');
  const query = queryAt < 0 ? '' : url.slice(queryAt);
  const withBody = !READS.has(call.method);
  const body = withBody ? (call.bodyText ?? (await call.readBody().catch(() => ''))) : undefined;
  return { method: call.method, pathAndQuery: call.path + query, headers: forwardedHeaders(call.allHeaders()), body: withBody ? body : undefined };
}
