// What compare mode found, kept for the journal (each comparison under its call's namespace and
// journal id, so GET /_sandbox/requests shows it beside the call), the console, the metrics and the
// report. Bounded: the newest MAX_KEPT comparisons (KEPT_BYTES of them at most) are kept whole; the report's totals and grouped
// differences cover every call since start (at most MAX_GROUPS groups).
// Each comparison is kept as one byte array (its JSON text and the upstream's body, made by the
// compare worker and moved to this thread), decoded only when read: thousands of comparisons kept as object graphs (headers,
// differences, the upstream's side) were garbage the collector marked again and again on the thread
// that answers calls; kept, the bytes are copied into one ring buffer. Only what the totals and
// groups need comes beside them, as a small summary.
import { ByteRing } from '../journal/byte-ring.js';
import { bodyOf } from '../journal/redact.js';
import type { Difference, DifferenceKind } from './contract.js';

/** `same`: no contract difference; `differs`: at least one; `upstream_failed`: no answer to compare (unreachable, timeout, 5xx); `not_sent`: a write, sent only with --compare-writes. */
export type Outcome = 'same' | 'differs' | 'upstream_failed' | 'not_sent';

/** The upstream's side of one call: headers without secrets; its body as text, parsed and redacted when read (comparisonView). */
export interface UpstreamSide {
  status: number | null;
  headers: Record<string, string>;
  /** At most MAX_BODY_CHARS characters, a private key already gone (as the journal keeps answers); '' for none. */
  bodyText: string;
  duration_ms: number;
  /** Why there is no answer to compare: unreachable, timeout, too_large, `status 5xx`, or backlog (not sent: too many calls waiting). */
  failure: string | null;
}

export interface Comparison {
  namespace: string;
  /** The call's journal entry (null when the journal did not keep it: --journal-size 0). */
  journal_id: number | null;
  request_id: string;
  operation_id: string;
  method: string;
  path: string;
  outcome: Outcome;
  differences: Difference[];
  sandbox_status: number;
  upstream: UpstreamSide;
}

/** A call compared with no answer from the upstream: a write not sent, or a call the upstream failed or was never asked. */
export function withoutAnswer(
  base: Omit<Comparison, 'outcome' | 'differences' | 'upstream'>,
  outcome: 'upstream_failed' | 'not_sent',
  failure: string | null,
  durationMs = 0,
): Comparison {
  return { ...base, outcome, differences: [], upstream: { status: null, headers: {}, bodyText: '', duration_ms: durationMs, failure } };
}

/** What the totals and groups need of a comparison, beside its bytes. */
export interface ComparisonSummary {
  namespace: string;
  journal_id: number | null;
  request_id: string;
  operation_id: string;
  path: string;
  outcome: Outcome;
  /** Where each difference is (its message and values are read from the bytes, for a new group only). */
  differences: Array<{ kind: DifferenceKind; at: string }>;
  failure: string | null;
}

/**
 * A comparison as it travels from the compare worker and is kept: as UTF-8, its JSON text without
 * the upstream's body, a line break, then that body as it is (`bodyText`, or the bytes given); and its summary.
 */
export interface PackedComparison {
  bytes: Uint8Array;
  summary: ComparisonSummary;
}

/**
 * The comparison as kept: one byte array of its own (TextEncoder's: movable to another thread), and
 * its summary. The body comes after the JSON rather than in it: JSON.stringify writes no line break
 * of its own, so the first one ends the JSON, and escaping a 25 KB body into the JSON took the
 * worker twice the time (255 against 113 µs a comparison).
 */
export function packComparison(comparison: Comparison, body?: Uint8Array): PackedComparison {
  const { namespace, journal_id, request_id, operation_id, path, outcome } = comparison;
  const differences = comparison.differences.map(({ kind, at }) => ({ kind, at }));
  const summary = { namespace, journal_id, request_id, operation_id, path, outcome, differences, failure: comparison.upstream.failure };
  const { bodyText, ...side } = comparison.upstream;
  const json = JSON.stringify({ ...comparison, upstream: side });
  if (!body) return { bytes: encoder.encode(`${json}\n${bodyText}`), summary };
  // The body's UTF-8 bytes as they came (the compare worker's, when it needs no clipping or redaction): copied, not decoded and encoded.
  const head = encoder.encode(`${json}\n`);
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return { bytes, summary };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const LINE_BREAK = 0x0a;

/** The comparison packComparison kept; its upstream's body only when asked. */
function unpack(bytes: Uint8Array, withBody = true): Comparison {
  const end = bytes.indexOf(LINE_BREAK);
  const comparison = JSON.parse(decoder.decode(bytes.subarray(0, end))) as Comparison;
  comparison.upstream.bodyText = withBody ? decoder.decode(bytes.subarray(end + 1)) : '';
  return comparison;
}

export interface DifferenceGroup {
  operation_id: string;
  kind: DifferenceKind;
  at: string;
  message: string;
  count: number;
  /** The first call it was seen in. */
  example: { request_id: string; path: string; sandbox: unknown; upstream: unknown };
}

export interface FailureGroup {
  operation_id: string;
  failure: string;
  count: number;
  example_request_id: string;
}

/** Comparisons kept whole, for the journal and the console (the journal's own default size), at most. */
const MAX_KEPT = 10_000;
/** Their bytes at most (a list page's comparison holds its 25 KB body): the newest within both bounds are kept. */
export const KEPT_BYTES = 32 * 1024 * 1024;
/** Groups of differences and failures the report keeps (each distinct operation, kind and place is one). */
const MAX_GROUPS = 1_000;

export class Comparisons {
  /**
   * The kept comparisons' bytes, oldest first, in one buffer (the journal's ring): kept as a byte
   * array each, thousands of mid-lived objects with 25 KB apiece outside the heap made the
   * collector work on the thread that answers calls more than all else compare mode does there.
   */
  private readonly kept: ByteRing;
  /** Comparisons put in the ring since it was emptied: the one put as number n is at n - (put - kept.count). */
  private put = 0;
  /** Each kept comparison's number in the ring, and its outcome (the journal's `upstream=` filter reads only that), by entry. */
  private readonly byEntry = new Map<string, { n: number; outcome: Outcome }>();
  private readonly groups = new Map<string, DifferenceGroup>();
  private readonly failureGroups = new Map<string, FailureGroup>();
  readonly outcomes: Record<Outcome, number> = { same: 0, differs: 0, upstream_failed: 0, not_sent: 0 };

  constructor(keptBytes = KEPT_BYTES) {
    this.kept = new ByteRing(keptBytes);
  }

  add({ bytes, summary }: PackedComparison): void {
    this.outcomes[summary.outcome]++;
    if (summary.journal_id !== null) {
      const { buffer, offset } = this.kept.reserve(bytes.length);
      buffer.set(bytes, offset);
      const key = entryKey(summary.namespace, summary.journal_id);
      this.byEntry.delete(key); // an entry kept again (a journal cleared since) moves to the newest end
      this.byEntry.set(key, { n: this.put++, outcome: summary.outcome });
      if (this.byEntry.size > MAX_KEPT) this.byEntry.delete(this.byEntry.keys().next().value as string);
    }
    let whole: Comparison | undefined; // decoded only for a difference never seen before (its message and values)
    summary.differences.forEach((d, i) => {
      const key = `${summary.operation_id} ${d.kind} ${d.at}`;
      const group = this.groups.get(key);
      if (group) group.count++;
      else if (this.groups.size < MAX_GROUPS) {
        whole ??= unpack(bytes, false);
        const { message, sandbox, upstream } = whole.differences[i];
        const example = { request_id: summary.request_id, path: summary.path, sandbox, upstream };
        this.groups.set(key, { operation_id: summary.operation_id, kind: d.kind, at: d.at, message, count: 1, example });
      }
    });
    const { failure } = summary;
    if (failure !== null) {
      const key = `${summary.operation_id} ${failure}`;
      const group = this.failureGroups.get(key);
      if (group) group.count++;
      else if (this.failureGroups.size < MAX_GROUPS) {
        this.failureGroups.set(key, { operation_id: summary.operation_id, failure, count: 1, example_request_id: summary.request_id });
      }
    }
  }

  /** The comparison of a journal entry, if compare mode made one and still keeps it: decoded now. */
  of(namespace: string, journalId: number): Comparison | undefined {
    const kept = this.stillKept(namespace, journalId);
    return kept && unpack(this.kept.record(kept.at));
  }

  /** The outcome of a journal entry's comparison, if compare mode made one and still keeps it (nothing decoded). */
  outcomeOf(namespace: string, journalId: number): Outcome | undefined {
    return this.stillKept(namespace, journalId)?.outcome;
  }

  /** A journal entry's comparison: where it is in the ring, and its outcome; undefined when none was made or the ring dropped it. */
  private stillKept(namespace: string, journalId: number): { at: number; outcome: Outcome } | undefined {
    const kept = this.byEntry.get(entryKey(namespace, journalId));
    if (!kept) return undefined;
    const at = kept.n - (this.put - this.kept.count);
    return at >= 0 ? { at, outcome: kept.outcome } : undefined;
  }

  differenceGroups(): DifferenceGroup[] {
    return [...this.groups.values()].sort((a, b) => a.operation_id.localeCompare(b.operation_id) || a.at.localeCompare(b.at) || a.kind.localeCompare(b.kind));
  }

  failures(): FailureGroup[] {
    return [...this.failureGroups.values()];
  }

  /** Differences by operation and kind, for the metrics. */
  differenceCounts(): Array<{ operation: string; kind: DifferenceKind; count: number }> {
    const counts = new Map<string, { operation: string; kind: DifferenceKind; count: number }>();
    for (const g of this.groups.values()) {
      const key = `${g.operation_id} ${g.kind}`;
      const entry = counts.get(key) ?? { operation: g.operation_id, kind: g.kind, count: 0 };
      entry.count += g.count;
      counts.set(key, entry);
    }
    return [...counts.values()];
  }

  clear(): void {
    this.byEntry.clear();
    this.kept.clear();
    this.put = 0;
    this.groups.clear();
    this.failureGroups.clear();
    for (const outcome of Object.keys(this.outcomes) as Outcome[]) this.outcomes[outcome] = 0;
  }
}

/** A comparison as readers get it: the upstream's body parsed, bearer credentials, JWTs and private keys redacted as in the journal. */
export function comparisonView({ outcome, differences, sandbox_status, upstream }: Comparison) {
  const { bodyText, ...side } = upstream;
  const body = bodyOf(bodyText, 'application/json', bodyText.length, true);
  return { outcome, differences, sandbox_status, upstream: { ...side, body } };
}

function entryKey(namespace: string, journalId: number): string {
  return `${namespace}\u0000${journalId}`;
}
