// The compare report: what compare mode found since start, as JSON (compare-report.json, GET
// /_sandbox/upstream/report) and as a summary a person reads in a CI log. `drift` is what a CI job
// fails on: at least one contract difference. Upstream failures are counted apart: a real service
// that was down says nothing of the sandbox's contract.
import type { DifferenceGroup, FailureGroup, Outcome } from './comparisons.js';
import type { Upstream } from './upstream.js';

export interface CompareReport {
  upstream: string;
  generated_at: string;
  /** At least one call's answers differ by the contract. */
  drift: boolean;
  calls: Record<Outcome, number> & { total: number };
  /** Each distinct difference (operation, kind, place) once, with how many calls showed it and the first. */
  differences: DifferenceGroup[];
  /** Calls the upstream did not answer (unreachable, timeout) or answered with a 5xx. */
  upstream_failures: FailureGroup[];
  /** Writes compare mode did not send (--compare-writes sends them). */
  writes_sent: boolean;
}

export function compareReport(upstream: Upstream): CompareReport {
  const { comparisons } = upstream;
  const calls = { ...comparisons.outcomes, total: Object.values(comparisons.outcomes).reduce((a, b) => a + b, 0) };
  return {
    upstream: upstream.client.origin + upstream.client.basePath,
    generated_at: new Date().toISOString(),
    drift: comparisons.outcomes.differs > 0,
    calls,
    differences: comparisons.differenceGroups(),
    upstream_failures: comparisons.failures(),
    writes_sent: upstream.options.compareWrites,
  };
}

/** The report as lines: the verdict first, then each difference by operation. */
export function reportSummary(report: CompareReport): string {
  const { calls } = report;
  const lines = [
    `payments-sandbox compare report: ${report.drift ? 'CONTRACT DRIFT' : 'no contract drift'} against ${report.upstream}`,
    `${calls.total} calls: ${calls.same} same, ${calls.differs} differ, ${calls.upstream_failed} upstream failed, ${calls.not_sent} writes not sent${report.writes_sent ? '' : ' (--compare-writes sends them)'}`,
  ];
  let operation = '';
  for (const d of report.differences) {
    if (d.operation_id !== operation) {
      operation = d.operation_id;
      lines.push('', `${operation}:`);
    }
    lines.push(`  ${d.kind} ${d.at}: ${d.message} (${d.count} call${d.count === 1 ? '' : 's'}; first ${d.example.request_id})`);
  }
  if (report.upstream_failures.length) {
    lines.push('', 'upstream failures (not drift):');
    for (const f of report.upstream_failures) lines.push(`  ${f.operation_id}: ${f.failure} (${f.count} call${f.count === 1 ? '' : 's'})`);
  }
  return `${lines.join('\n')}\n`;
}
