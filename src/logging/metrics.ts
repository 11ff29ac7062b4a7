// Request counts and latencies by operation and status, for GET /_sandbox/metrics (Prometheus text,
// admin/metrics.ts). Counted in plain numbers on the request path: two map lookups and a few
// additions, no allocation once a series exists; prom-client reads them only when scraped, so a
// sandbox nobody scrapes pays nothing else.

/** Upper bounds of the latency buckets, in seconds (Prometheus `le`). */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** One operation and status: how many answers, their total time, and how many fell in each bucket (not cumulative). */
export interface LatencySeries {
  operation: string;
  status: number;
  count: number;
  sumSeconds: number;
  buckets: Float64Array;
}

/** The operation label of requests that matched none (unknown paths, answers before matching). */
export const NO_OPERATION = '(none)';

export class RequestMetrics {
  private readonly byOperation = new Map<string, Map<number, LatencySeries>>();

  record(operation: string | undefined, status: number, seconds: number): void {
    const op = operation ?? NO_OPERATION;
    let byStatus = this.byOperation.get(op);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.byOperation.set(op, byStatus);
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { operation: op, status, count: 0, sumSeconds: 0, buckets: new Float64Array(LATENCY_BUCKETS.length) };
      byStatus.set(status, series);
    }
    series.count++;
    series.sumSeconds += seconds;
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]) i++;
    if (i < LATENCY_BUCKETS.length) series.buckets[i]++;
  }

  /** Every series so far (read at scrape time). */
  series(): LatencySeries[] {
    const all: LatencySeries[] = [];
    for (const byStatus of this.byOperation.values()) for (const s of byStatus.values()) all.push(s);
    return all;
  }
}
