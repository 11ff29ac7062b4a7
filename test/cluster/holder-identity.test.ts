// A lease names the process that holds it, not only its node id (issue 27 part 1): a process started
// under the id of one that is only frozen does not inherit that one's leases at the same epoch; it
// takes them once they lapse, at a new epoch, under its own holder, and the frozen one, woken, has
// its writes refused by the fence and says it lost the lease. Checked on the scripts themselves and
// with two processes of one node id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, KEYS, nsKeys, type SandboxRedis } from '../../src/cluster/redis.js';
import { expectErrorBody, WELL_KNOWN } from '../support/sandbox.js';
import { adminHeaders, type RedisServer, redisCli, type SandboxNode, startNode, startRedis, waitFor } from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;
let redis: RedisServer;
let client: SandboxRedis;
let auth: Record<string, string>;

beforeAll(async () => {
  redis = await startRedis();
  client = await connectRedis(redis.url);
  auth = await adminHeaders();
}, 60_000);

afterAll(async () => {
  client?.client.disconnect();
  await redis?.stop();
}, 60_000);

describe('the lease scripts', () => {
  it('give two processes of one node id two holders: the second waits, then takes it at a new epoch, and the first is fenced', async () => {
    const keys = nsKeys('twins');
    const acquire = (instance: string) => client.run('leaseAcquire', [keys.lease, keys.epoch, KEYS.namespaces], ['nodeX', 60_000, 'twins', '1', instance]);
    const append = (holder: string, entry: string) =>
      client.run('stateAppend', [keys.lease, keys.snap, keys.log, KEYS.namespaces], [holder, '0', entry, 'twins']);
    expect(await acquire('aaaaaaaaaaaa')).toEqual([1, 1, 1, 0]);
    expect(redisCli(redis, 'get', keys.lease)).toBe('nodeX\n1\naaaaaaaaaaaa');
    expect(await acquire('aaaaaaaaaaaa')).toEqual([1, 1, 0, 0]); // the same process again: renewed, same epoch
    const [held, node, pttl, epoch] = (await acquire('bbbbbbbbbbbb')) as [number, string, number, number];
    expect([held, node, epoch]).toEqual([0, 'nodeX', 1]); // held by the earlier process, not handed to the later one
    expect(pttl).toBeGreaterThan(50_000);
    expect(await append('nodeX\n1\naaaaaaaaaaaa', '{"by":"first"}')).toBe(1);
    redisCli(redis, 'del', keys.lease); // the first process's lease lapses while it is frozen
    expect(await acquire('bbbbbbbbbbbb')).toEqual([1, 2, 1, 1]);
    await expect(append('nodeX\n1\naaaaaaaaaaaa', '{"by":"first, woken"}')).rejects.toThrow('FENCED: another node holds the lease');
    await expect(append('nodeX\n2\naaaaaaaaaaaa', '{"by":"first, guessing the epoch"}')).rejects.toThrow('FENCED');
    expect(await append('nodeX\n2\nbbbbbbbbbbbb', '{"by":"second"}')).toBe(2);
    expect(redisCli(redis, 'lrange', keys.log, '0', '-1')).toBe('{"by":"first"}\n{"by":"second"}');
  });

  it("renew many leases in one call, each only for its own holder: renewed, another's (untouched), lapsed", async () => {
    const [first, second, theirs, gone] = ['renew-first', 'renew-second', 'renew-theirs', 'renew-gone'].map((name) => nsKeys(name).lease);
    redisCli(redis, 'set', first, 'nodeX\n1\naaaaaaaaaaaa', 'PX', '1000');
    redisCli(redis, 'set', second, 'nodeX\n3\naaaaaaaaaaaa', 'PX', '1000'); // this process's too, at another epoch
    redisCli(redis, 'set', theirs, 'nodeY\n4\ncccccccccccc', 'PX', '1000');
    redisCli(redis, 'del', gone);
    const holders = ['nodeX\n1\naaaaaaaaaaaa', 'nodeX\n3\naaaaaaaaaaaa', 'nodeX\n4\naaaaaaaaaaaa', 'nodeX\n2\naaaaaaaaaaaa'];
    expect(await client.run('leaseRenewMany', [first, second, theirs, gone], [...holders, 60_000])).toEqual([1, 1, 0, -1]);
    for (const renewed of [first, second]) expect(Number(redisCli(redis, 'pttl', renewed))).toBeGreaterThan(50_000);
    expect(Number(redisCli(redis, 'pttl', theirs))).toBeLessThanOrEqual(1000); // not this holder's: left to lapse
    expect(redisCli(redis, 'get', theirs)).toBe('nodeY\n4\ncccccccccccc');
    expect(redisCli(redis, 'exists', gone)).toBe('0'); // a lapsed lease is not brought back
  });
});

describe('a process started under the node id of one that is frozen', () => {
  let first: SandboxNode | undefined;
  let second: SandboxNode | undefined;
  afterAll(async () => {
    first?.signal('SIGCONT');
    await Promise.all([first?.stop(), second?.stop()]);
  }, 30_000);

  const putBuyer = async (node: SandboxNode, displayName: string) => {
    const res = await fetch(`${node.url}/ns/twin/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: JSON.stringify({ display_name: displayName }) });
    return { status: res.status, node: res.headers.get('x-sandbox-node'), body: await res.json() };
  };
  const lease = () => redisCli(redis, 'get', 'payments-sandbox:ns:twin:lease').split('\n');

  it('takes the lease at a new epoch under its own holder; the frozen one, woken, is fenced and says it lost the lease', async () => {
    first = await startNode(redis, 'node7');
    expect((await putBuyer(first, 'by-first')).status).toBe(200);
    const [, firstEpoch, firstInstance] = lease();
    first.signal('SIGSTOP');
    second = await startNode(redis, 'node7'); // starts once the frozen one's node key lapses
    const taken = await putBuyer(second, 'by-second'); // once the frozen one's lease lapses
    expect([taken.status, taken.node, taken.body.display_name]).toEqual([200, 'node7', 'by-second']);
    const [node, epoch, instance] = lease();
    expect([node, Number(epoch)]).toEqual(['node7', Number(firstEpoch) + 1]);
    expect(instance).toMatch(/^[0-9a-f]{12}$/);
    expect(instance).not.toBe(firstInstance);

    first.signal('SIGCONT');
    const lostLine = "namespace 'twin' is no longer this node's: its lease lapsed and another node holds it now";
    await waitFor('the woken process saying it lost the lease', async () => ((first as SandboxNode).output().includes(lostLine) ? true : undefined));
    const stale = await putBuyer(first, 'by-first-woken');
    expect(stale.status).toBe(503);
    expectErrorBody(stale.body, 503, 'service_unavailable');
    expect(stale.body.message).toContain("Namespace 'twin' is held by node node7 of the shared sandbox");
    expect(lease()).toEqual([node, epoch, instance]);

    // Redis alone: both stopped, a fresh node loads what was acknowledged.
    await Promise.all([first.stop(), second.stop()]);
    const fresh = await startNode(redis, 'node8');
    try {
      const read = await fetch(`${fresh.url}/ns/twin/_sandbox/records/buyers/${BUYER}`);
      expect([read.status, (await read.json()).display_name]).toEqual([200, 'by-second']);
    } finally {
      await fresh.stop();
    }
  }, 40_000);
});
