// What compare mode found, kept for the journal (each comparison under its call's namespace and
// journal id, so GET /_sandbox/requests shows it beside the call), the console, the metrics and the
// report. Bounded: the newest MAX_KEPT comparisons are kept whole; the report's totals and grouped
// differences cover every call since start (at most MAX_GROUPS groups).
import { bodyOf } from '../journal/redact.js';
import type { Difference, DifferenceKind } from './contract.js';

/** `same`: no contract difference; `differs`: at least one; `upstream_failed`: no answer to compare (unreachable, timeout, 5xx); `not_sent`: a write, sent only with --compare-writes. */
export type Outcome = 'same' | 'differs' | 'upstream_failed' | 'not_sent';

/** The upstream's side of one call: headers without secrets; its body as text, parsed and redacted when read (comparisonView). */
export interface UpstreamSide {
  status: number | null;
  headers: Record<string, string>;
  /**
   * Its UTF-8 bytes, at most MAX_BODY_CHARS characters, a private key already gone (as the journal
   * keeps answers); empty for none. Bytes: the compare worker hands them over without a copy.
   */
  bodyBytes: Uint8Array;
  duration_ms: number;
  /** Why there is no answer to compare: unreachable, timeout, too_large, or `status 5xx`. */
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

/** Comparisons kept whole, for the journal and the console (the journal's own default size). */
const MAX_KEPT = 10_000;
/** Groups of differences and failures the report keeps (each distinct operation, kind and place is one). */
const MAX_GROUPS = 1_000;

export class Comparisons {
  private readonly byEntry = new Map<string, Comparison>();
  private readonly groups = new Map<string, DifferenceGroup>();
  private readonly failureGroups = new Map<string, FailureGroup>();
  readonly outcomes: Record<Outcome, number> = { same: 0, differs: 0, upstream_failed: 0, not_sent: 0 };

  add(comparison: Comparison): void {
    this.outcomes[comparison.outcome]++;
    if (comparison.journal_id !== null) {
      const key = entryKey(comparison.namespace, comparison.journal_id);
      this.byEntry.set(key, comparison);
      if (this.byEntry.size > MAX_KEPT) this.byEntry.delete(this.byEntry.keys().next().value as string);
    }
    for (const d of comparison.differences) {
      const key = `${comparison.operation_id} ${d.kind} ${d.at}`;
      const group = this.groups.get(key);
      if (group) group.count++;
      else if (this.groups.size < MAX_GROUPS) {
        const example = { request_id: comparison.request_id, path: comparison.path, sandbox: d.sandbox, upstream: d.upstream };
        this.groups.set(key, { operation_id: comparison.operation_id, kind: d.kind, at: d.at, message: d.message, count: 1, example });
      }
    }
    const failure = comparison.upstream.failure;
    if (failure !== null) {
      const key = `${comparison.operation_id} ${failure}`;
      const group = this.failureGroups.get(key);
      if (group) group.count++;
      else if (this.failureGroups.size < MAX_GROUPS) {
        this.failureGroups.set(key, { operation_id: comparison.operation_id, failure, count: 1, example_request_id: comparison.request_id });
      }
    }
  }

  /** The comparison of a journal entry, if compare mode made one and still keeps it. */
  of(namespace: string, journalId: number): Comparison | undefined {
    return this.byEntry.get(entryKey(namespace, journalId));
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
    this.groups.clear();
    this.failureGroups.clear();
    for (const outcome of Object.keys(this.outcomes) as Outcome[]) this.outcomes[outcome] = 0;
  }
}

/** A comparison as readers get it: the upstream's body parsed, bearer credentials, JWTs and private keys redacted as in the journal. */
export function comparisonView({ outcome, differences, sandbox_status, upstream }: Comparison) {
  const { bodyBytes, ...side } = upstream;
  const text = Buffer.from(bodyBytes.buffer, bodyBytes.byteOffset, bodyBytes.byteLength).toString('utf8');
  const body = bodyOf(text, 'application/json', text.length, true);
  return { outcome, differences, sandbox_status, upstream: { ...side, body } };
}

function entryKey(namespace: string, journalId: number): string {
  return `${namespace}\u0000${journalId}`;
}
