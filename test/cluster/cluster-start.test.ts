// A shared sandbox's start and stop, and `payments-sandbox cluster`: an unreachable Redis stops the
// start (exit 1, naming the address); a node stopped gracefully hands its namespaces over at once;
// the cluster command shows nodes, the namespaces each owns, leases and epochs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../support/sandbox.js';
import { adminHeaders, freePort, type RedisServer, ROOT, redisCli, requireBuilt, startNode, startRedis } from './support.js';

const CLI = join(ROOT, 'dist/bundle/cli.js');
let redis: RedisServer;
let auth: Record<string, string>;

beforeAll(async () => {
  requireBuilt();
  redis = await startRedis();
  auth = await adminHeaders();
}, 30_000);
afterAll(() => redis?.stop());

function cli(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });
}

describe('starting a node of a shared sandbox', () => {
  it('stops with exit code 1 and the address when Redis cannot be reached', async () => {
    const port = await freePort();
    const run = cli('--port', '0', '--store', `redis://127.0.0.1:${port}`);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`payments-sandbox: cannot start: cannot reach Redis at redis://127.0.0.1:${port} (--store)`);
  });

  it('says what it could not reach in the cluster command too, without "cannot start" (it starts nothing)', async () => {
    const port = await freePort();
    const run = cli('cluster', '--store', `redis://127.0.0.1:${port}`);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^payments-sandbox: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(--store\\): .+\n$`));
  });

  it('refuses a store that is not memory or redis://, and a data file beside Redis (exit 2)', () => {
    const bad = cli('--store', 'mongodb://x');
    expect([bad.status, bad.stderr.trim()]).toEqual([2, "payments-sandbox: --store must be memory or redis://HOST:PORT, not 'mongodb://x'"]);
    const both = cli('--store', 'redis://127.0.0.1:6379', '--data-file', '/tmp/x.json');
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('--data-file keeps one process');
  });
});

describe('a graceful stop and payments-sandbox cluster', () => {
  it('hands the namespaces of a stopped node over at once, and the cluster command shows who owns what', async () => {
    const a = await startNode(redis, 'node1');
    const b = await startNode(redis, 'node2');
    try {
      const put = await fetch(`${a.url}/ns/handed/buyers/${WELL_KNOWN.buyers.default.id}`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ display_name: 'from a' }),
      });
      expect([put.status, put.headers.get('x-sandbox-node')]).toEqual([200, 'node1']);
      // The banner says where state lives: in Redis, not in memory.
      expect(a.output()).toContain(
        `  state     shared in Redis at ${redis.url} (every change written there before its answer; namespaces move between nodes)\n`,
      );
      expect(a.output()).not.toContain('lost on exit');
      const view = JSON.parse(cli('cluster', '--store', redis.url, '--json').stdout);
      expect(view.store).toBe(redis.url);
      expect(view.nodes.map((n: { id: string; alive: boolean }) => [n.id, n.alive])).toEqual([
        ['node1', true],
        ['node2', true],
      ]);
      expect(view.nodes[0]).toMatchObject({ id: 'node1', url: a.url, namespaces: ['handed'] });
      expect(view.namespaces).toEqual([
        { name: 'handed', node: 'node1', epoch: 1, lease_ms_left: expect.any(Number), log_entries: 1, snapshot_bytes: 0, journal_entries: expect.any(Number) },
      ]);
      // A second process under a live node's id would think it holds that node's leases: refused.
      const twin = cli('--port', '0', '--store', redis.url, '--node-id', 'node1', '--lease-ms', '1500');
      expect(twin.status).toBe(1);
      expect(twin.stderr).toContain(`node id node1 is in use by a live node of the shared sandbox at ${redis.url}: give each node its own --node-id`);
      const text = cli('cluster', '--store', redis.url).stdout;
      expect(text).toContain(`shared sandbox at ${redis.url}: 2 node(s) alive, 1 namespace(s)`);
      expect(text).toMatch(/ {2}handed {2}node1 {2}epoch 1 {2}\d+ ms left {2}log 1/);

      expect(redisCli(redis, 'exists', 'payments-sandbox:ns:handed:lease')).toBe('1');
      await a.stop(); // SIGTERM: written, released, unregistered
      expect(await a.exited).toBe(0);
      // Released, not left to lapse: b has no lease to wait for.
      expect(redisCli(redis, 'exists', 'payments-sandbox:ns:handed:lease')).toBe('0');
      const read = await fetch(`${b.url}/ns/handed/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}`);
      expect([read.status, (await read.json()).display_name]).toEqual([200, 'from a']);
      const after = JSON.parse(cli('cluster', '--store', redis.url, '--json').stdout);
      expect(after.nodes.map((n: { id: string }) => n.id)).toEqual(['node2']);
      expect(after.namespaces[0]).toMatchObject({ name: 'handed', node: 'node2', epoch: 2 });
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    // Two nodes started one after the other (up to a minute each on busy cores), five CLI runs.
  }, 180_000);
});
