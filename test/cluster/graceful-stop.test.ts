// Issue 35, part 2: a node stopped on purpose (SIGTERM: a rolling restart, a scale-down) costs the CI
// jobs using it nothing. Three nodes behind deploy/haproxy.cfg and one Redis; writers create a report
// of their own per call in eight namespaces through the proxy, without retrying, while the owner of
// some of them stops. Every call must be answered 201 (the calls that meet the hand-over wait for it),
// and every report acknowledged must be served afterwards, read from Redis by a node restarted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminHeaders,
  type HaProxy,
  postReport,
  type RedisServer,
  recordIds,
  type SandboxNode,
  startCluster,
  startNode,
  startProxy,
  stopCluster,
  waitFor,
} from './support.js';

let redis: RedisServer;
let nodes: SandboxNode[] = [];
let proxy: HaProxy;
let auth: Record<string, string>;

beforeAll(async () => {
  ({ redis, nodes, proxy } = await startCluster(['node1', 'node2', 'node3']));
  auth = await adminHeaders();
}, 150_000);

afterAll(() => stopCluster(proxy, nodes, redis), 60_000);

describe('a node stopped with SIGTERM under a stream of writes', () => {
  it('answers every call 201 through the proxy, and loses none of them', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `drain-${i}`);
    const ownerOf = new Map<string, string>();
    for (const ns of names) {
      const res = await fetch(`${proxy.url}/ns/${ns}/connections`, { headers: auth });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      ownerOf.set(ns, res.headers.get('x-sandbox-node') as string);
    }
    const victim = nodes.find((n) => n.id === ownerOf.get(names[0])) as SandboxNode;
    const acked = new Map<string, string[]>(names.map((ns) => [ns, []]));
    const servedBy = new Map<string, Set<string>>(names.map((ns) => [ns, new Set()]));
    const failures: string[] = [];
    let running = true;
    const writers = names.map(async (ns) => {
      for (let n = 1; running; n++) {
        try {
          const res = await postReport(`${proxy.url}/ns/${ns}`, `${ns}-${n}`, auth);
          const body = await res.text();
          if (res.status === 201) {
            (acked.get(ns) as string[]).push(JSON.parse(body).id);
            servedBy.get(ns)?.add(res.headers.get('x-sandbox-node') as string);
          } else failures.push(`${ns} call ${n}: ${res.status} ${body.slice(0, 300)}`);
        } catch (err) {
          failures.push(`${ns} call ${n}: ${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`);
        }
      }
    });
    const count = () => names.map((ns) => (acked.get(ns) as string[]).length);
    const atLeast = (floor: number[], more: number) => async () => (count().every((c, i) => c >= floor[i] + more) ? true : undefined);
    await waitFor('three writes acknowledged in every namespace', atLeast(count().fill(0), 3), 30_000);
    victim.signal('SIGTERM');
    expect(await victim.exited).toBe(0);
    // Writes go on through the proxy, to the next node on the ring.
    await waitFor('five more writes in every namespace once the node is gone', atLeast(count(), 5), 30_000);
    running = false;
    await Promise.all(writers);
    nodes = nodes.filter((n) => n !== victim);

    expect(failures).toEqual([]);
    const moved = names.filter((ns) => ownerOf.get(ns) === victim.id);
    expect(moved.length).toBeGreaterThan(0);
    for (const ns of moved) expect([...(servedBy.get(ns) as Set<string>)].filter((id) => id !== victim.id).length, ns).toBe(1);

    // Read back from Redis alone: every node restarted, the stopped one too.
    const ids = nodes.map((n) => n.id).concat(victim.id);
    await proxy.stop();
    await Promise.all(nodes.map((n) => n.stop()));
    nodes = await Promise.all(ids.map((id) => startNode(redis, id)));
    proxy = await startProxy(nodes);
    for (const ns of names) {
      const served = await recordIds(proxy.url, ns, 'reports', 1000);
      expect(
        (acked.get(ns) as string[]).filter((id) => !served.has(id)),
        `${ns}: acknowledged reports`,
      ).toEqual([]);
    }
  }, 180_000);
});
