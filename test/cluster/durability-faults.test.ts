// Nothing a shared sandbox acknowledged is lost, whatever fails (issue 27 part 1). Three nodes
// behind deploy/haproxy.cfg and one Redis; one writer per namespace sends numbered writes to three
// kinds of change: the fixture buyer updated (display_name w<n>, the API), a buyer created (the
// control API), a report created (the API).
// Faults in turn while they write: an owner killed -9 and restarted under its node id; an owner
// frozen (SIGSTOP) until another node took its namespace, then woken; Redis frozen until a node's
// lease lapsed, then woken. Each round ends by killing (-9) and restarting every node, so all is
// read back from Redis alone, and checks every acknowledged write: the buyer served is the last
// update acknowledged or a later one sent, and every buyer and report acknowledged is there, read
// page by page through the control API. Every wait is on an event (an exit, a health answer, a
// lease taken, a 503, writes acknowledged), never a fixed time.
//
// One round in npm test; DURABILITY_ROUNDS=n (SOAK: 20) runs more (npm run test:soak), printing
// its figures: rounds, writes sent and acknowledged, lost, duration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../support/sandbox.js';
import {
  adminHeaders,
  type HaProxy,
  postReport,
  type RedisServer,
  recordIds,
  type SandboxNode,
  startNode,
  startProxy,
  startRedis,
  waitFor,
} from './support.js';

const ROUNDS = Number(process.env.DURABILITY_ROUNDS ?? (process.env.SOAK ? 20 : 1));
const BUYER = WELL_KNOWN.buyers.default.id;
const NAMES = Array.from({ length: 6 }, (_, i) => `durable-${i}`);
const IDS = ['node1', 'node2', 'node3'];
/** A write that does not answer within this (a frozen node or Redis) is counted as sent, not acknowledged. */
const WRITE_TIMEOUT_MS = 15_000;
/** Page size when reading records back: small, so the reading pages for real. */
const PAGE = 100;

let redis: RedisServer;
let nodes: SandboxNode[] = [];
let ports: number[] = [];
let proxy: HaProxy;
let auth: Record<string, string>;

beforeAll(async () => {
  redis = await startRedis();
  nodes = await Promise.all(IDS.map((id) => startNode(redis, id)));
  ports = nodes.map((n) => n.port);
  proxy = await startProxy(nodes);
  auth = await adminHeaders();
}, 60_000);

afterAll(async () => {
  redis?.signal('SIGCONT');
  for (const n of nodes) n.signal('SIGCONT');
  await proxy?.stop();
  await Promise.all(nodes.map((n) => n.stop()));
  await redis?.stop();
}, 60_000);

/** What one namespace's writer sent and what was acknowledged, over every round. */
interface Ledger {
  n: number;
  updatesSent: Set<string>;
  lastUpdateAcked: string | null;
  buyersAcked: string[];
  reportsAcked: string[];
  acked: number;
  sent: number;
  /** Answers that are neither a success nor a 503/502/504 of a fault: a defect. */
  unexpected: string[];
}

const ledgers = new Map<string, Ledger>(
  NAMES.map((ns) => [ns, { n: 0, updatesSent: new Set(), lastUpdateAcked: null, buyersAcked: [], reportsAcked: [], acked: 0, sent: 0, unexpected: [] }]),
);
const ledger = (ns: string) => ledgers.get(ns) as Ledger;

/** One numbered write, its kind by number; records what was sent and what acknowledged. */
async function writeOnce(ns: string): Promise<void> {
  const l = ledger(ns);
  const n = ++l.n;
  const kind = n % 3;
  const base = `${proxy.url}/ns/${ns}`;
  const signal = AbortSignal.timeout(WRITE_TIMEOUT_MS);
  const name = `w${n}`;
  l.sent++;
  if (kind === 0) l.updatesSent.add(name);
  let res: Response;
  try {
    if (kind === 0) res = await fetch(`${base}/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: JSON.stringify({ display_name: name }), signal });
    else if (kind === 1)
      res = await fetch(`${base}/_sandbox/records/buyers`, { method: 'POST', headers: auth, body: JSON.stringify({ display_name: name }), signal });
    else res = await postReport(base, name, auth, signal);
  } catch {
    return; // no answer (a node killed or frozen): sent, not acknowledged
  }
  const body = await res.json().catch(() => null);
  if (res.status === 200 || res.status === 201) {
    l.acked++;
    if (kind === 0) l.lastUpdateAcked = name;
    else if (kind === 1) l.buyersAcked.push(body.id);
    else l.reportsAcked.push(body.id);
  } else if (![502, 503, 504].includes(res.status)) l.unexpected.push(`${name}: ${res.status} ${JSON.stringify(body)}`);
}

/** Writers on every namespace until stopped. */
function startWriters(): () => Promise<void> {
  let running = true;
  const writers = NAMES.map(async (ns) => {
    while (running) await writeOnce(ns);
  });
  return async () => {
    running = false;
    await Promise.all(writers);
  };
}

/** Waits until every namespace has `more` writes acknowledged beyond what it had. */
async function progress(what: string, more = 3): Promise<void> {
  const from = new Map(NAMES.map((ns) => [ns, ledger(ns).acked]));
  await waitFor(
    `${more} more writes acknowledged in every namespace ${what}`,
    async () => (NAMES.every((ns) => ledger(ns).acked >= (from.get(ns) as number) + more) ? true : undefined),
    30_000,
  );
}

/** The node that serves a namespace now through the proxy (its x-sandbox-node header). */
async function ownerOf(ns: string): Promise<SandboxNode> {
  const res = await fetch(`${proxy.url}/ns/${ns}/_sandbox/records/buyers/${BUYER}`);
  await res.arrayBuffer();
  const id = res.headers.get('x-sandbox-node');
  const node = nodes.find((n) => n.id === id);
  if (!node) throw new Error(`no node answered for ${ns} (${res.status})`);
  return node;
}

/** A read of the namespace straight from `node`: its status (200 once that node serves it). */
async function readOn(node: SandboxNode, ns: string): Promise<number> {
  const res = await fetch(`${node.url}/ns/${ns}/_sandbox/records/buyers/${BUYER}`);
  await res.arrayBuffer();
  return res.status;
}

async function restartNode(victim: SandboxNode): Promise<void> {
  const i = nodes.indexOf(victim);
  nodes[i] = await startNode(redis, victim.id, [], ports[i]);
}

async function killAndRestartOwner(round: number): Promise<void> {
  const victim = await ownerOf(NAMES[round % NAMES.length]);
  victim.signal('SIGKILL');
  await victim.exited;
  await restartNode(victim); // healthy once its node id is free again
  await progress(`after ${victim.id} was killed -9 and restarted`);
}

async function freezeOwner(round: number): Promise<void> {
  const ns = NAMES[(round + 1) % NAMES.length];
  const victim = await ownerOf(ns);
  const other = nodes.find((n) => n !== victim) as SandboxNode;
  victim.signal('SIGSTOP');
  try {
    // Past the lease: another node takes the namespace (it asks, the frozen owner cannot answer, the lease lapses).
    await waitFor(`${other.id} taking ${ns} from the frozen ${victim.id}`, async () => ((await readOn(other, ns)) === 200 ? true : undefined), 30_000);
  } finally {
    victim.signal('SIGCONT');
  }
  await progress(`after ${victim.id} was frozen past its lease and woken`);
}

async function freezeRedis(): Promise<void> {
  const ns = NAMES[0];
  const owner = await ownerOf(ns);
  redis.signal('SIGSTOP');
  try {
    // Past the lease: its owner can no longer renew it, and stops serving it from memory (503).
    await waitFor(`${owner.id} no longer serving ${ns} while Redis is frozen`, async () => ((await readOn(owner, ns)) === 503 ? true : undefined), 30_000);
  } finally {
    redis.signal('SIGCONT');
  }
  await progress('after Redis was frozen past the leases and woken');
}

/** Checks every acknowledged write of every namespace against what a node loads from Redis; returns how many were lost. */
async function checkEverything(): Promise<number> {
  let lost = 0;
  for (const [i, ns] of NAMES.entries()) {
    const node = nodes[i % nodes.length];
    const l = ledger(ns);
    expect(l.unexpected, `${ns}: answers other than a success or a fault's 5xx`).toEqual([]);
    const read = await waitFor(
      `${node.id} serving ${ns} after the restart`,
      async () => {
        const res = await fetch(`${node.url}/ns/${ns}/_sandbox/records/buyers/${BUYER}`);
        if (res.status === 200) return res.json();
        await res.arrayBuffer();
        return undefined;
      },
      30_000,
    );
    const served = read.display_name as string;
    const sent = [...l.updatesSent];
    const atLeast = l.lastUpdateAcked === null ? -1 : sent.indexOf(l.lastUpdateAcked);
    const at = sent.indexOf(served);
    if (at < atLeast || (at === -1 && atLeast !== -1)) lost++;
    expect(at >= atLeast && (at !== -1 || atLeast === -1), `${ns}: the buyer serves ${served}, the last update acknowledged is ${l.lastUpdateAcked}`).toBe(
      true,
    );
    const buyers = await recordIds(node.url, ns, 'buyers', PAGE);
    const reports = await recordIds(node.url, ns, 'reports', PAGE);
    const missing = [...l.buyersAcked.filter((id) => !buyers.has(id)), ...l.reportsAcked.filter((id) => !reports.has(id))];
    lost += missing.length;
    expect(missing, `${ns}: acknowledged buyers and reports missing after the restart`).toEqual([]);
  }
  return lost;
}

describe('a shared sandbox under faults, read back from Redis alone', () => {
  it(
    `keeps every acknowledged write of several collections through kill -9, a frozen owner and a frozen Redis (${ROUNDS} round${ROUNDS > 1 ? 's' : ''})`,
    async () => {
      const started = performance.now();
      let lost = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const stopWriters = startWriters();
        try {
          await progress('at the start of the round');
          await killAndRestartOwner(round);
          await freezeOwner(round);
          await freezeRedis();
        } finally {
          await stopWriters();
        }
        // Every node killed and restarted: nothing but Redis holds the state now.
        for (const n of nodes) n.signal('SIGKILL');
        await Promise.all(nodes.map((n) => n.exited));
        nodes = await Promise.all(IDS.map((id, i) => startNode(redis, id, [], ports[i])));
        lost += await checkEverything();
      }
      const all = [...ledgers.values()];
      const figures = {
        rounds: ROUNDS,
        namespaces: NAMES.length,
        sent: all.reduce((n, l) => n + l.sent, 0),
        acknowledged: all.reduce((n, l) => n + l.acked, 0),
        lost,
        seconds: Math.round((performance.now() - started) / 1000),
      };
      console.log(`durability under faults: ${JSON.stringify(figures)}`);
      expect(lost).toBe(0);
      expect(figures.acknowledged).toBeGreaterThan(NAMES.length * 12 * ROUNDS);
    },
    60_000 + 60_000 * ROUNDS,
  );
});
