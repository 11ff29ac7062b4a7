// Issue 36, part 3: in a shared sandbox (Redis, two nodes, HAProxy running deploy/haproxy.cfg), a
// subscription aimed through the proxy at its own delivery's retry route (a retry takes the
// subscription's current URL, and the route answers 202 and starts the next attempt) looped: the
// owner answered thousands of retries a second while the deliveries list showed one attempt. No
// node knows the proxy's address, so the target rules cannot refuse the URL; each delivery carries
// x-sandbox-webhook-delivery instead, which every route of every node refuses. With the loop
// attempted, the retries stop at the refused attempt (the next one waits the 1 min backoff), and
// every attempt the nodes refused is in the deliveries list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HaProxy, type RedisServer, type SandboxNode, startNode, startProxy, startRedis, stopCluster, waitFor } from './support.js';

let redis: RedisServer;
let nodes: SandboxNode[] = [];
let proxy: HaProxy;

beforeAll(async () => {
  redis = await startRedis();
  nodes = await Promise.all(['node1', 'node2'].map((id) => startNode(redis, id)));
  proxy = await startProxy(nodes);
}, 60_000);

afterAll(() => stopCluster(proxy, nodes, redis), 60_000);

/** Requests of every node by operation and status, from their metrics. */
async function requestsOf(operation: string, status: number): Promise<number> {
  let total = 0;
  for (const node of nodes) {
    const text = await (await fetch(`${node.url}/_sandbox/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('payments_sandbox_requests_total{') && l.includes(`operation="${operation}"`) && l.includes(`status="${status}"`));
    total += line ? Number(line.split(' ').at(-1)) : 0;
  }
  return total;
}

describe('a webhook loop through the proxy', { timeout: 120_000 }, () => {
  it('is refused on every node: retries stay bounded and every attempt is listed', async () => {
    const base = `${proxy.url}/ns/loop`;
    const json = { 'content-type': 'application/json' };
    const retryRoute = (id: string) => `${base}/_sandbox/webhooks/deliveries/${id}/retry`;
    const created = await fetch(`${base}/_sandbox/records/webhook_subscriptions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ url: retryRoute('not-yet-known') }),
    });
    expect(created.status).toBe(201);
    const subscription = await created.json();
    const emitted = await fetch(`${base}/_sandbox/events`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'buyer.updated' }) });
    expect(emitted.status).toBe(201);
    const [delivery] = (await emitted.json()).deliveries;
    const attemptsOf = async () =>
      (await (await fetch(`${base}/_sandbox/webhooks/deliveries/${delivery.id}`)).json()).attempts as Array<Record<string, unknown>>;
    await waitFor('the first attempt', async () => ((await attemptsOf()).length === 1 ? true : undefined));

    // The loop: the subscription now points at this delivery's retry route, through the proxy; one retry starts it.
    const patched = await fetch(`${base}/_sandbox/records/webhook_subscriptions/${subscription.id}`, {
      method: 'PATCH',
      headers: json,
      body: JSON.stringify({ url: retryRoute(delivery.id) }),
    });
    expect(patched.status).toBe(200);
    expect((await fetch(retryRoute(delivery.id), { method: 'POST' })).status).toBe(202);
    await waitFor('the retried attempt', async () => ((await attemptsOf()).length === 2 ? true : undefined));

    // Over the next two seconds: no retry runs (the test's own was the last), no delivery comes back.
    const before = { retries: await requestsOf('retryWebhookDelivery', 202), refused: await requestsOf('(none)', 403) };
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 2000)); // a window to measure a rate in, not a wait for an event
    const seconds = (performance.now() - started) / 1000;
    const after = { retries: await requestsOf('retryWebhookDelivery', 202), refused: await requestsOf('(none)', 403) };
    expect((after.retries - before.retries) / seconds).toBe(0);
    expect((after.refused - before.refused) / seconds).toBe(0);

    // Every attempt was refused by a node and is listed: as many as the nodes refused, each a 403.
    const attempts = await attemptsOf();
    expect(attempts.map((a) => [a.status_code, a.manual, a.url])).toEqual([
      [403, false, retryRoute('not-yet-known')],
      [403, true, retryRoute(delivery.id)],
    ]);
    expect(after.refused).toBe(attempts.length);
    expect(after.retries).toBe(1);
  });
});
