// A namespace's first write reaching Redis after its lease lapsed, with nobody holding it (what a
// node starved of CPU past --lease-ms does: its first call on a new namespace can be slow, e.g. a
// clock moved years ahead, and no renewal runs meanwhile). One node and a Redis, with a relay between
// them that holds the node's commands from that write on until the test has deleted the lease (as
// its TTL would), then lets them through. The write is refused by the fence and never acknowledged:
// a 503 that says the lease lapsed (not "moved to another node": there is no other node), nothing
// of the namespace in Redis, and a retry is served (the node takes the lease again) and written.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/sandbox.js';
import { freePort, type RedisServer, redisCli, type SandboxNode, startNode, startRedis, waitFor } from './support.js';

const NS = 'lapsing';
const LEASE = `payments-sandbox:ns:${NS}:lease`;
let redis: RedisServer;
let relay: Server;
let node: SandboxNode;
/** Set to hold the node's commands from its first write of NS on: each with the connection to Redis it goes to. */
let hold: { server: Socket; chunk: Buffer }[] | null = null;

/** Forwards one connection of the node to Redis (and back); while `hold` is set, from a write of NS on, the node's commands wait. */
function forward(client: Socket, port: number): void {
  const server = connect(port, '127.0.0.1');
  server.pipe(client);
  client.on('data', (chunk: Buffer) => {
    if (hold && (hold.length > 0 || chunk.includes(`ns:${NS}:log`))) {
      hold.push({ server, chunk });
      return;
    }
    server.write(chunk);
  });
  client.on('close', () => server.destroy());
  server.on('close', () => client.destroy());
  client.on('error', () => undefined);
  server.on('error', () => undefined);
}

/** Lets the held commands through, in order, each on its own connection. */
function release(): void {
  for (const { server, chunk } of hold ?? []) server.write(chunk);
  hold = null;
}

beforeAll(async () => {
  redis = await startRedis();
  const port = await freePort();
  relay = createServer((client) => forward(client, redis.port));
  await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve));
  node = await startNode({ ...redis, url: `redis://127.0.0.1:${port}` }, 'node1');
}, 60_000);

afterAll(async () => {
  release();
  await node?.stop();
  relay?.close();
  await redis?.stop();
}, 60_000);

const setClock = (now: string) =>
  fetch(`${node.url}/ns/${NS}/_sandbox/clock`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ now, frozen: true }) });

describe('a write that reaches Redis after its lease lapsed, on a node alone', () => {
  it('is refused and never acknowledged, with a 503 that says the lease lapsed; the retry takes the lease again and is written', async () => {
    hold = [];
    const answer = setClock('2020-01-02T03:04:05.000Z');
    await waitFor('the write held at the relay', async () => (hold?.length ? true : undefined));
    const [holder, epoch] = redisCli(redis, 'get', LEASE).split('\n');
    expect([holder, epoch]).toEqual(['node1', '1']);
    redisCli(redis, 'del', LEASE); // its TTL ran out before the write got there
    release();

    const refused = await answer;
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '1']);
    const body = await refused.json();
    expectErrorBody(body, 503, 'service_unavailable');
    expect(body.message).toBe(
      `Namespace '${NS}' was not written to the shared store: this node's lease on it lapsed before the change got there (this node was paused or too busy, or Redis was unreachable, for longer than --lease-ms), so the change is not acknowledged. Retry: the namespace is loaded again from Redis.`,
    );
    // Nothing of it was written, and the node says it lost the lease, as a lapse.
    expect(redisCli(redis, 'sismember', 'payments-sandbox:namespaces', NS)).toBe('0');
    expect(redisCli(redis, 'exists', `payments-sandbox:ns:${NS}:log`, `payments-sandbox:ns:${NS}:snap`)).toBe('0');
    expect(node.output()).toContain(`namespace '${NS}' is no longer this node's: its lease lapsed and nobody holds it now`);

    // The retry: served by the node alone, under a new epoch, and in Redis.
    const retried = await setClock('2020-01-02T03:04:05.000Z');
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({ now: '2020-01-02T03:04:05.000Z', frozen: true });
    expect(redisCli(redis, 'get', LEASE).split('\n').slice(0, 2)).toEqual(['node1', '2']);
    expect(redisCli(redis, 'sismember', 'payments-sandbox:namespaces', NS)).toBe('1');
    expect(redisCli(redis, 'lrange', `payments-sandbox:ns:${NS}:log`, '0', '-1')).toContain(`"frozenAt":${Date.parse('2020-01-02T03:04:05.000Z')}`);
  });
});
