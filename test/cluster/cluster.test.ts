// A shared sandbox on one machine: Redis, three nodes (the built command, --store redis://) and
// HAProxy running deploy/haproxy.cfg. Through the proxy a namespace always reaches one node; a
// scenario failing the 5th call answers once under 50 concurrent requests, and the journal counts
// every request; a node paused past its lease never serves or acknowledges what another node took
// over; after kill -9 of a node under a stream of writes (each a record of its own) every write
// acknowledged before and after the kill is served by the new owners; a fourth node takes only namespaces the ring gives it, with their state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../support/sandbox.js';
import {
  adminHeaders,
  type HaProxy,
  LEASE_MS,
  postReport,
  type RedisServer,
  redisCli,
  type SandboxNode,
  startCluster,
  startNode,
  stopCluster,
  untilServed,
  waitFor,
} from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;
let redis: RedisServer;
let nodes: SandboxNode[] = [];
let proxy: HaProxy;
let auth: Record<string, string>;

beforeAll(async () => {
  ({ redis, nodes, proxy } = await startCluster(['node1', 'node2', 'node3']));
  auth = await adminHeaders();
}, 150_000);

afterAll(() => stopCluster(proxy, nodes, redis), 60_000);

const nsUrl = (base: string, ns: string) => `${base}/ns/${ns}`;

/** fetch, tried again when a kept-alive connection was closed under it (the proxy or a node restarted): reads only. */
async function read(url: string, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

function putBuyer(base: string, ns: string, displayName: string): Promise<Response> {
  return fetch(`${nsUrl(base, ns)}/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: JSON.stringify({ display_name: displayName }) });
}

async function buyerName(base: string, ns: string): Promise<{ status: number; name: string | null; node: string | null }> {
  const res = await read(`${nsUrl(base, ns)}/_sandbox/records/buyers/${BUYER}`);
  const body = res.status === 200 ? await res.json() : null;
  return { status: res.status, name: body?.display_name ?? null, node: res.headers.get('x-sandbox-node') };
}

/** The ids of every report the namespace's owner serves (the records API, a page of 1000 at a time), through the proxy. */
async function reportIds(ns: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 1000) {
    const res = await read(`${nsUrl(proxy.url, ns)}/_sandbox/records/reports?limit=1000&offset=${offset}`);
    expect(res.status).toBe(200);
    expect(nodes.map((n) => n.id)).toContain(res.headers.get('x-sandbox-node'));
    const page = await res.json();
    for (const report of page.items) ids.add(report.id);
    if (offset + 1000 >= page.total) return ids;
  }
}

/** The node that answers a namespace through the proxy (a read of the API). */
async function ownerThroughProxy(ns: string): Promise<string> {
  const res = await read(`${nsUrl(proxy.url, ns)}/connections`, { headers: auth });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get('x-sandbox-node') as string;
}

describe('a shared sandbox behind HAProxy', () => {
  it('sends each namespace to one node, by header or /ns/ prefix, and the node says so', async () => {
    const seen = new Map<string, Set<string>>();
    for (let i = 0; i < 12; i++) {
      const ns = `route-${i}`;
      for (let k = 0; k < 4; k++) {
        const byHeader = k % 2 === 0;
        const res = await fetch(byHeader ? `${proxy.url}/connections` : `${nsUrl(proxy.url, ns)}/connections`, {
          headers: byHeader ? { ...auth, 'x-sandbox-namespace': ns } : auth,
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        const node = res.headers.get('x-sandbox-node') as string;
        expect(nodes.map((n) => n.id)).toContain(node);
        seen.set(ns, (seen.get(ns) ?? new Set()).add(node));
      }
    }
    for (const [ns, owners] of seen) expect([ns, owners.size]).toEqual([ns, 1]);
    // The ring spreads them: more than one node serves some of the 12.
    expect(new Set([...seen.values()].map((s) => [...s][0])).size).toBeGreaterThan(1);
    // The control API follows the namespace too: its journal is on the same node.
    const journal = await fetch(`${nsUrl(proxy.url, 'route-0')}/_sandbox/requests/count`);
    expect(journal.headers.get('x-sandbox-node')).toBe([...(seen.get('route-0') as Set<string>)][0]);
    expect(await journal.json()).toEqual({ count: 4 });
    // The health check is any node's and takes no lease.
    const health = await (await fetch(`${proxy.url}/_sandbox/health`)).json();
    expect(health).toMatchObject({ status: 'ok', store: { kind: 'redis', address: redis.url, status: 'connected', problem: null } });
  });

  it('answers a run-time scenario failing the 5th call exactly once under 50 concurrent requests, and journals all 50', async () => {
    const ns = 'fifth-call';
    const base = nsUrl(proxy.url, ns);
    // Setting up (not what this test is about): retried while a busy machine answers 503.
    const defined = await untilServed(() =>
      fetch(`${base}/_sandbox/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'fifth-fails',
          description: 'The 5th list answers 500.',
          operations: ['listConnections'],
          calls: [5],
          respond: { status: 500 },
        }),
      }),
    );
    expect(defined.status).toBe(201);
    const activated = await untilServed(() =>
      fetch(`${base}/_sandbox/scenarios/active`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ scenarios: ['fifth-fails'] }),
      }),
    );
    expect(activated.status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await fetch(`${base}/connections`, { headers: auth });
        await res.arrayBuffer();
        return { status: res.status, node: res.headers.get('x-sandbox-node') };
      }),
    );
    expect(answers.filter((a) => a.status === 500)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(49);
    expect(new Set(answers.map((a) => a.node)).size).toBe(1);
    expect(await (await fetch(`${base}/_sandbox/requests/count`)).json()).toEqual({ count: 50 });
    const counters = await (await fetch(`${base}/_sandbox/scenarios/fifth-fails`)).json();
    expect(counters.counters).toMatchObject({ matched: 50, answered: 1 });

    // Moved to another node (asked directly there): the definition, activation, counters and journal come along.
    const owner = answers[0].node;
    const other = nodes.find((n) => n.id !== owner) as SandboxNode;
    // The handover waits at most --lease-ms + 1 s for the owner, which a busy machine may not give it: a 503 says retry.
    const moved = await untilServed(() => fetch(`${nsUrl(other.url, ns)}/connections`, { headers: auth }));
    await moved.arrayBuffer();
    expect([moved.status, moved.headers.get('x-sandbox-node')]).toEqual([200, other.id]);
    expect(await (await fetch(`${nsUrl(other.url, ns)}/_sandbox/requests/count`)).json()).toEqual({ count: 51 });
    const after = await (await fetch(`${nsUrl(other.url, ns)}/_sandbox/scenarios/fifth-fails`)).json();
    expect(after.counters).toMatchObject({ matched: 51, answered: 1 });
    expect(after.active).toBeDefined();
  });

  it('refuses a write from a node whose lease another node took meanwhile (the Lua fence), and serves nothing stale after', async () => {
    // A node that renews every 20 s: between renewals only the fence of the write script can notice.
    const a = await startNode(redis, 'node9', ['--lease-ms', '60000']);
    try {
      const ns = 'fenced';
      expect((await putBuyer(a.url, ns, 'by-a')).status).toBe(200);
      // Another owner takes the lease behind a's back (what a paused node finds when it wakes), epoch + 1.
      const [holder, epoch] = redisCli(redis, 'get', `payments-sandbox:ns:${ns}:lease`).split('\n');
      expect(holder).toBe(a.id);
      redisCli(redis, 'set', `payments-sandbox:ns:${ns}:epoch`, String(Number(epoch) + 1));
      redisCli(redis, 'set', `payments-sandbox:ns:${ns}:lease`, `intruder\n${Number(epoch) + 1}`, 'PX', '60000');
      const logBefore = redisCli(redis, 'lrange', `payments-sandbox:ns:${ns}:log`, '0', '-1');
      const refused = await putBuyer(a.url, ns, 'stale-write');
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((await refused.json()).message).toContain(`Namespace '${ns}' moved to another node`);
      expect(redisCli(redis, 'lrange', `payments-sandbox:ns:${ns}:log`, '0', '-1')).toBe(logBefore);
      const metrics = await (await fetch(`${a.url}/_sandbox/metrics`)).text();
      expect(metrics).toContain('payments_sandbox_lease_changes_total{change="lost"} 1');
      // Once the intruder is gone, a takes it again from Redis: what it had acknowledged, not the refused write.
      redisCli(redis, 'del', `payments-sandbox:ns:${ns}:lease`);
      expect(await buyerName(a.url, ns)).toEqual({ status: 200, name: 'by-a', node: a.id });
    } finally {
      await a.stop();
    }
  });

  it('never lets two nodes own one namespace: a node paused past its lease hands nothing stale out when it wakes', async () => {
    const ns = 'paused-owner';
    const [a, b] = nodes;
    expect((await putBuyer(a.url, ns, 'w-1')).status).toBe(200);
    a.signal('SIGSTOP');
    try {
      // b asks a to hand over; a is paused, so b takes the lease once it lapses (epoch + 1).
      const taken = await putBuyer(b.url, ns, 'w-2');
      expect([taken.status, taken.headers.get('x-sandbox-node')]).toEqual([200, b.id]);
      expect(redisCli(redis, 'get', `payments-sandbox:ns:${ns}:lease`)).toMatch(new RegExp(`^${b.id}\\n\\d+\\n[0-9a-f]{12}$`));
    } finally {
      a.signal('SIGCONT');
    }
    // At once after waking, a serves nothing from its memory (w-1): it takes the namespace back with w-2, or answers 503.
    const read = await buyerName(a.url, ns);
    if (read.status === 200) expect(read).toEqual({ status: 200, name: 'w-2', node: a.id });
    else expect(read.status).toBe(503);
    const write = await putBuyer(a.url, ns, 'w-3');
    expect([200, 503]).toContain(write.status);
    const final = await waitFor('the namespace settles', async () => {
      const r = await buyerName(b.url, ns);
      return r.status === 200 ? r : undefined;
    });
    expect(final.name).toBe(write.status === 200 ? 'w-3' : 'w-2');
    // a counted the lease it lost.
    const metrics = await (await fetch(`${a.url}/_sandbox/metrics`)).text();
    expect(Number(/payments_sandbox_lease_changes_total\{change="lost"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  });

  it(
    'keeps every acknowledged write when a node is killed (kill -9) under a stream of writes',
    async () => {
      // One kill by default; CLUSTER_KILL_CYCLES (SOAK: 10) kills again, each time after the killed node was replaced.
      const cycles = Number(process.env.CLUSTER_KILL_CYCLES ?? (process.env.SOAK ? 10 : 1));
      const names = Array.from({ length: 8 }, (_, i) => `stream-${i}`);
      for (let cycle = 1; cycle <= cycles; cycle++) {
        const owners = new Map<string, string>();
        for (const ns of names) owners.set(ns, await ownerThroughProxy(ns));
        const victim = nodes.find((n) => n.id === owners.get(names[cycle % names.length])) as SandboxNode;
        // Every write makes a record of its own (a report), so a later write never hides a lost one:
        // each acknowledged before the kill must be there after it, as must each acknowledged after.
        const acked = new Map<string, string[]>(names.map((ns) => [ns, []]));
        const ackedBeforeKill = new Map<string, string[]>();
        let running = true;
        let killed = false;
        const writers = names.map(async (ns) => {
          for (let n = 1; running; n++) {
            try {
              const res = await postReport(nsUrl(proxy.url, ns), `c${cycle}-${ns}-${n}`, auth);
              if (res.status === 201) (acked.get(ns) as string[]).push((await res.json()).id);
              else {
                expect(res.status).toBe(503);
                await res.arrayBuffer();
              }
            } catch {
              // the connection to the killed node
            }
          }
        });
        await waitFor('a few writes acknowledged in every namespace', async () =>
          names.every((ns) => (acked.get(ns) as string[]).length >= 3) ? true : undefined,
        );
        for (const ns of names) ackedBeforeKill.set(ns, [...(acked.get(ns) as string[])]);
        victim.signal('SIGKILL');
        killed = true;
        await victim.exited;
        // Its namespaces lapse and move: writes go on, acknowledged by the others.
        await waitFor(
          'two more writes acknowledged in every namespace after the kill',
          async () => (names.every((ns) => (acked.get(ns) as string[]).length >= (ackedBeforeKill.get(ns) as string[]).length + 2) ? true : undefined),
          LEASE_MS + 30_000,
        );
        running = false;
        await Promise.all(writers);
        expect(killed).toBe(true);
        nodes = nodes.filter((n) => n !== victim);
        expect(names.some((ns) => owners.get(ns) === victim.id)).toBe(true);
        for (const ns of names) {
          const before = ackedBeforeKill.get(ns) as string[];
          expect(before.length, `${ns}: writes acknowledged before the kill`).toBeGreaterThan(0);
          const served = await reportIds(ns);
          expect(
            before.filter((id) => !served.has(id)),
            `${ns}: reports acknowledged before the kill of ${victim.id} (its owner: ${owners.get(ns)})`,
          ).toEqual([]);
          expect(
            (acked.get(ns) as string[]).filter((id) => !served.has(id)),
            `${ns}: every acknowledged report`,
          ).toEqual([]);
        }
        if (cycle < cycles) {
          nodes.push(await startNode(redis, victim.id));
          await proxy.reload(nodes);
        }
      }
    },
    30_000 + 8_000 * Number(process.env.CLUSTER_KILL_CYCLES ?? (process.env.SOAK ? 10 : 1)),
  );

  it('moves only the namespaces the ring gives a fourth node, with their state', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `ring-${i}`);
    const before = new Map<string, string>();
    for (const ns of names) {
      expect((await putBuyer(proxy.url, ns, `w-${ns.length}`)).status).toBe(200);
      before.set(ns, await ownerThroughProxy(ns));
    }
    const fourth = await startNode(redis, 'node4');
    nodes.push(fourth);
    await proxy.reload(nodes);
    const after = new Map<string, string>();
    for (const ns of names) after.set(ns, await ownerThroughProxy(ns));
    const movedTo = names.filter((ns) => after.get(ns) !== before.get(ns)).map((ns) => after.get(ns));
    expect(movedTo.length).toBeGreaterThan(0);
    expect(new Set(movedTo)).toEqual(new Set(['node4'])); // none moved between the old nodes
    expect(movedTo.length).toBeLessThan(names.length);
    for (const ns of names) expect(await buyerName(proxy.url, ns)).toEqual({ status: 200, name: `w-${ns.length}`, node: after.get(ns) });
  }, 30_000);

  it('lists and resets namespaces across nodes', async () => {
    const list = await (await fetch(`${proxy.url}/_sandbox/namespaces`)).json();
    const byName = new Map(list.items.map((i: { name: string; node: string | null }) => [i.name, i]));
    expect(byName.get('ring-0')).toMatchObject({ name: 'ring-0', node: await ownerThroughProxy('ring-0'), epoch: expect.any(Number) });
    // Every node must answer within 2 s, which a busy machine may not give it: a 503 says retry (a reset is idempotent).
    const reset = await untilServed(() => fetch(`${proxy.url}/_sandbox/reset?all=true`, { method: 'POST' }));
    expect(reset.status).toBe(200);
    expect((await reset.json()).namespaces).toEqual(expect.arrayContaining(['ring-0', 'stream-0', 'fifth-call']));
    expect((await buyerName(proxy.url, 'ring-0')).name).toBe('Jane Doe');
    expect((await buyerName(proxy.url, 'stream-0')).name).toBe('Jane Doe');

    // Dropped at the root, wherever it lives: gone from the list and from Redis.
    expect((await putBuyer(proxy.url, 'ring-1', 'dropped soon')).status).toBe(200);
    const dropped = await fetch(`${proxy.url}/_sandbox/namespaces/ring-1`, { method: 'DELETE' });
    expect(dropped.status).toBe(204);
    const names = (await (await fetch(`${proxy.url}/_sandbox/namespaces`)).json()).items.map((i: { name: string }) => i.name);
    expect(names).not.toContain('ring-1');
    expect(names).toContain('ring-0');
    expect(redisCli(redis, 'sismember', 'payments-sandbox:namespaces', 'ring-1')).toBe('0');
    expect(redisCli(redis, 'exists', 'payments-sandbox:ns:ring-1:log')).toBe('0');

    // A node that does not answer is named, not skipped.
    const [silent, asked] = nodes;
    silent.signal('SIGSTOP');
    try {
      const res = await fetch(`${asked.url}/_sandbox/namespaces`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect((await res.json()).message).toContain(`Node ${silent.id} of the shared sandbox did not answer within 2 s`);
    } finally {
      silent.signal('SIGCONT');
    }
  }, 40_000);

  it('keeps serving reads and answers writes 503 while Redis is lost, and recovers by itself', async () => {
    const ns = 'redis-lost';
    expect((await untilServed(() => putBuyer(proxy.url, ns, 'kept'))).status).toBe(200); // setting up: retried while busy
    const owner = nodes[0];
    await redis.kill();
    try {
      const read = await buyerName(proxy.url, ns);
      expect([read.status, read.name]).toEqual([200, 'kept']);
      const write = await putBuyer(proxy.url, ns, 'lost');
      expect(write.status).toBe(503);
      expect(write.headers.get('retry-after')).toBe('1');
      expect((await write.json()).message).toContain(`Redis at ${redis.url}`);
      // Refused before it was made: reads still show what was acknowledged.
      const after = await buyerName(proxy.url, ns);
      expect([after.status, after.name]).toEqual([200, 'kept']);
      const health = await (await fetch(`${owner.url}/_sandbox/health`)).json();
      expect(health).toMatchObject({ status: 'degraded', store: { status: 'unavailable' } });
    } finally {
      await redis.restart();
    }
    const written = await waitFor('a write after Redis is back', async () => {
      const res = await putBuyer(proxy.url, ns, 'after');
      return res.status === 200 ? res : undefined;
    });
    expect(written.status).toBe(200);
    expect((await buyerName(proxy.url, ns)).name).toBe('after');
    // Each node's client reconnects on its own back-off, so the one that took the write may be back
    // before the one asked: wait for every node to say so, as a load balancer's check would.
    for (const node of nodes) {
      const health = await waitFor(`${node.id} to report its store connected again`, async () => {
        const body = await (await fetch(`${node.url}/_sandbox/health`)).json();
        return body.status === 'ok' ? body : undefined;
      });
      expect(health).toMatchObject({ status: 'ok', store: { status: 'connected', problem: null } });
    }
  }, 40_000);
});
