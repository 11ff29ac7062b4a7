// GET /_sandbox/metrics: the Prometheus text format, made by prom-client from counters kept in
// plain numbers (logging/metrics.ts on the request path; the namespace host's own), read only when
// scraped. prom-client is loaded on the first scrape: a sandbox nobody scrapes never loads it.
// The figures are the whole process's (every namespace's requests): served at the root only.
import { LATENCY_BUCKETS } from '../logging/metrics.js';
import { onlyAtRoot } from './scope.js';
import type { AdminDeps, AdminHandlerMap } from './types.js';

type PromClient = typeof import('prom-client');
type Registry = InstanceType<PromClient['Registry']>;
type Value = { labels?: Record<string, string | number>; value: number; metricName?: string };

const registries = new WeakMap<AdminDeps, Promise<Registry>>();

/** A metric whose values are read from our counters at scrape time (prom-client formats it). */
function collected(name: string, help: string, type: 'counter' | 'gauge' | 'histogram', values: () => Value[]) {
  return { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: values() }), reset() {} };
}

async function registryOf(deps: AdminDeps): Promise<Registry> {
  const loaded = (await import('prom-client')) as PromClient & { default?: PromClient };
  const prom = loaded.Registry ? loaded : (loaded.default as PromClient); // CommonJS, however the bundle loads it
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry, prefix: 'payments_sandbox_' });
  const metric = (m: ReturnType<typeof collected>) => registry.registerMetric(m as never);
  metric(
    collected('payments_sandbox_requests_total', 'Requests answered, by operation (operationId; (none): matched none) and status.', 'counter', () =>
      deps.stats.metrics.series().map((s) => ({ labels: { operation: s.operation, status: s.status }, value: s.count })),
    ),
  );
  metric(
    collected('payments_sandbox_request_duration_seconds', 'Time from arrival to answer, by operation and status.', 'histogram', () =>
      deps.stats.metrics.series().flatMap((s) => {
        const labels = { operation: s.operation, status: s.status };
        let cumulative = 0;
        const buckets: Value[] = LATENCY_BUCKETS.map((le, i) => {
          cumulative += s.buckets[i];
          return { labels: { ...labels, le }, value: cumulative, metricName: 'payments_sandbox_request_duration_seconds_bucket' };
        });
        return [
          ...buckets,
          { labels: { ...labels, le: '+Inf' }, value: s.count, metricName: 'payments_sandbox_request_duration_seconds_bucket' },
          { labels, value: s.sumSeconds, metricName: 'payments_sandbox_request_duration_seconds_sum' },
          { labels, value: s.count, metricName: 'payments_sandbox_request_duration_seconds_count' },
        ];
      }),
    ),
  );
  const host = () => deps.host.metrics();
  metric(
    collected('payments_sandbox_namespaces', 'Namespaces held by this process (in a shared sandbox: those whose lease it holds).', 'gauge', () => [
      { value: host().held },
    ]),
  );
  metric(
    collected('payments_sandbox_store_round_trips_total', 'Round trips to the shared store (Redis): appends, snapshots, leases, loads.', 'counter', () => [
      { value: host().storeRoundTrips },
    ]),
  );
  metric(
    collected('payments_sandbox_store_failures_total', 'Round trips to the shared store that failed (Redis unreachable, a write refused).', 'counter', () => [
      { value: host().storeFailures },
    ]),
  );
  metric(
    collected(
      'payments_sandbox_lease_changes_total',
      'Namespace leases this node acquired, released (handed over) and lost (lapsed or taken).',
      'counter',
      () => Object.entries(host().leaseChanges).map(([change, value]) => ({ labels: { change }, value })),
    ),
  );
  metric(
    collected(
      'payments_sandbox_lease_renewals_total',
      "Leases this node's renewal calls renewed, found taken by another node, or found lapsed (a renewal that reached no Redis is a store failure).",
      'counter',
      () => Object.entries(host().leaseRenewals).map(([result, value]) => ({ labels: { result }, value })),
    ),
  );
  const upstream = deps.upstream;
  if (upstream) {
    metric(
      collected('payments_sandbox_upstream_comparisons_total', 'Compare mode: calls by outcome (same, differs, upstream_failed, not_sent).', 'counter', () =>
        Object.entries(upstream.comparisons.outcomes).map(([outcome, value]) => ({ labels: { outcome }, value })),
      ),
    );
    metric(
      collected('payments_sandbox_upstream_differences_total', 'Compare mode: contract differences found, by operation and kind.', 'counter', () =>
        upstream.comparisons.differenceCounts().map((d) => ({ labels: { operation: d.operation, kind: d.kind }, value: d.count })),
      ),
    );
  }
  return registry;
}

export const metricsHandlers: AdminHandlerMap = {
  async getMetrics(ctx) {
    onlyAtRoot(ctx, "The process's metrics (every namespace's requests)");
    const { deps } = ctx;
    let registry = registries.get(deps);
    if (!registry) {
      registry = registryOf(deps);
      registries.set(deps, registry);
      registry.catch(() => registries.delete(deps));
    }
    const text = await (await registry).metrics();
    return { response: new Response(text, { status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } }) };
  },
};
