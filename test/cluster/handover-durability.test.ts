// A change acknowledged after a handover is in Redis: two nodes and one Redis, no proxy. A buyer
// updated through node A, then through node B (A hands over, B loads it from Redis), then read
// through A again (B hands back, A loads it) serves the update B acknowledged, and so does every
// node after all are restarted (the state then comes from Redis alone). Issue 27 part 1: each
// collection a loaded namespace owned reported its changes to a listener silenced by the next, so
// only `reports` reached Redis and the buyer's 200 went out with nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../support/sandbox.js';
import { adminHeaders, postReport, type RedisServer, redisCli, type SandboxNode, startNode, startRedis } from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;
let redis: RedisServer;
let a: SandboxNode;
let b: SandboxNode;
let auth: Record<string, string>;

beforeAll(async () => {
  redis = await startRedis();
  [a, b] = await Promise.all([startNode(redis, 'node1'), startNode(redis, 'node2')]);
  auth = await adminHeaders();
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
}, 60_000);

async function putBuyer(node: SandboxNode, ns: string, displayName: string): Promise<void> {
  const res = await fetch(`${node.url}/ns/${ns}/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: JSON.stringify({ display_name: displayName }) });
  expect([res.status, res.headers.get('x-sandbox-node'), (await res.json()).display_name]).toEqual([200, node.id, displayName]);
}

async function buyerOn(node: SandboxNode, ns: string): Promise<[number, string | null, string]> {
  const res = await fetch(`${node.url}/ns/${ns}/_sandbox/records/buyers/${BUYER}`);
  return [res.status, res.headers.get('x-sandbox-node'), (await res.json()).display_name];
}

async function createReport(node: SandboxNode, ns: string, name: string): Promise<string> {
  const res = await postReport(`${node.url}/ns/${ns}`, name, auth);
  const body = await res.json();
  expect([res.status, res.headers.get('x-sandbox-node'), body.name]).toEqual([201, node.id, name]);
  return body.id;
}

async function reportNames(node: SandboxNode, ns: string): Promise<string[]> {
  const res = await fetch(`${node.url}/ns/${ns}/_sandbox/records/reports?limit=1000`);
  expect(res.status).toBe(200);
  return (await res.json()).items
    .map((r: { name: string }) => r.name)
    .filter((name: string) => name.startsWith('report-on'))
    .sort();
}

describe('a namespace loaded from Redis after a handover', () => {
  it('writes every change it acknowledges: the buyer B updated is served by A after B hands it back, and after a restart', async () => {
    const ns = 'handed-back';
    await putBuyer(a, ns, 'v1');
    await createReport(a, ns, 'report-on-a');
    // B asks for it: A hands over, B loads it from Redis (buyers and reports are its own collections now).
    await putBuyer(b, ns, 'v2');
    await createReport(b, ns, 'report-on-b');
    // A asks for it back: B hands over, A loads it from Redis.
    expect(await buyerOn(a, ns)).toEqual([200, 'node1', 'v2']);
    expect(await reportNames(a, ns)).toEqual(['report-on-a', 'report-on-b']);
    // Once more on A after a load: still written.
    await putBuyer(a, ns, 'v3');
    // Redis alone: every node restarted, the namespace loaded from what it holds.
    await Promise.all([a.stop(), b.stop()]);
    expect(redisCli(redis, 'exists', `payments-sandbox:ns:${ns}:lease`)).toBe('0');
    [a, b] = await Promise.all([startNode(redis, 'node1'), startNode(redis, 'node2')]);
    expect(await buyerOn(b, ns)).toEqual([200, 'node2', 'v3']);
    expect(await reportNames(b, ns)).toEqual(['report-on-a', 'report-on-b']);
  }, 40_000);
});
