// One process: every answer names the node (x-sandbox-node: --node-id, else host:port), GET
// /_sandbox/metrics is the Prometheus text format with request counts and latencies by operation
// and status, and health names the node and the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';

let sandbox: RunningSandbox;
let named: RunningSandbox;
let auth: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ logLevel: 'silent', validateResponses: true });
  named = await startSandbox({ logLevel: 'silent', validateResponses: true, nodeId: 'edge-7' });
  auth = { authorization: `Bearer ${await sandbox.token()}` };
});
afterAll(async () => {
  await sandbox.close();
  await named.close();
});

describe('x-sandbox-node', () => {
  it('is on API answers, errors, control answers and the docs, host:port by default', async () => {
    const node = `127.0.0.1:${sandbox.port}`;
    for (const [path, headers, status] of [
      ['/connections', auth, 200],
      ['/connections', {}, 401],
      ['/no-such-path', auth, 404],
      ['/_sandbox/clock', {}, 200],
      ['/openapi.json', {}, 200],
    ] as const) {
      const res = await fetch(`${sandbox.url}${path}`, { headers });
      await res.arrayBuffer();
      expect([path, res.status, res.headers.get('x-sandbox-node')]).toEqual([path, status, node]);
    }
  });

  it('is --node-id when given, and health says the node and the store', async () => {
    const res = await fetch(`${named.url}/_sandbox/health`);
    expect(res.headers.get('x-sandbox-node')).toBe('edge-7');
    expect(await res.json()).toMatchObject({ status: 'ok', node: 'edge-7', store: { kind: 'memory', status: 'ok' } });
    expect((await fetch(`${named.url}/_sandbox/health`)).headers.get('access-control-expose-headers') ?? '').toBe('');
  });
});

describe('GET /_sandbox/metrics', () => {
  it('counts requests by operation and status, with latency buckets, in the Prometheus text format', async () => {
    for (let i = 0; i < 3; i++) await (await fetch(`${named.url}/connections`, { headers: auth })).arrayBuffer();
    await (await fetch(`${named.url}/connections`)).arrayBuffer(); // 401
    const res = await fetch(`${named.url}/_sandbox/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('# TYPE payments_sandbox_requests_total counter');
    expect(text).toContain('payments_sandbox_requests_total{operation="listConnections",status="200"} 3');
    expect(text).toContain('payments_sandbox_requests_total{operation="listConnections",status="401"} 1');
    expect(text).toContain('# TYPE payments_sandbox_request_duration_seconds histogram');
    expect(text).toContain('payments_sandbox_request_duration_seconds_bucket{operation="listConnections",status="200",le="+Inf"} 3');
    expect(text).toContain('payments_sandbox_request_duration_seconds_count{operation="listConnections",status="200"} 3');
    expect(text).toMatch(/payments_sandbox_request_duration_seconds_sum\{operation="listConnections",status="200"\} \d/);
    expect(text).toContain('payments_sandbox_namespaces 1');
    expect(text).toContain('payments_sandbox_store_round_trips_total 0');
    expect(text).toContain('payments_sandbox_lease_changes_total{change="acquired"} 0');
    for (const result of ['renewed', 'taken', 'lapsed']) expect(text).toContain(`payments_sandbox_lease_renewals_total{result="${result}"} 0`);
    expect(text).toMatch(/payments_sandbox_process_cpu_seconds_total \d/);
    // Buckets are cumulative: each at least the one before it.
    const buckets = [...text.matchAll(/payments_sandbox_request_duration_seconds_bucket\{operation="listConnections",status="200",le="([^"]+)"\} (\d+)/g)].map(
      (m) => Number(m[2]),
    );
    expect(buckets.length).toBe(15);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
  });
});
