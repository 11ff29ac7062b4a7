// The history of a partition test (issue 35 part 3): every numbered write sent through the proxy,
// with when it started and ended (this process's monotonic clock), its answer, the node that
// answered (x-sandbox-node), and the namespace's lease in Redis read just before it was sent and
// just after its answer (`node \n epoch \n instance`, src/cluster/redis.ts): the lease names the
// epoch a node wrote under. `checkHistory` then says what a correct fence forbids:
// - a write acknowledged by a node while another node held the namespace's lease both before and
//   after it (it wrote under a lease it did not hold: two nodes acknowledging at once);
// - two holders (node, epoch) whose acknowledged writes interleave: one holder's writes surely
//   lie between its first answer and its last send, and two such spans must not overlap;
// - an epoch going back: a write acknowledged under epoch e, then one sent after it under e' < e;
// and, from what a node loads from Redis alone afterwards, acknowledged writes lost or reverted.
import type { Redis as RedisClient } from 'ioredis';
import { WELL_KNOWN } from '../support/sandbox.js';

export const BUYER = WELL_KNOWN.buyers.default.id;
/** A write that does not answer within this (a node cut off) is counted as sent, not acknowledged. */
const WRITE_TIMEOUT_MS = 15_000;

export interface Lease {
  node: string;
  epoch: number;
}

export interface Op {
  ns: string;
  n: number;
  /** update: the fixture buyer's display_name set to value; create: a buyer created with it. */
  kind: 'update' | 'create';
  value: string;
  start: number;
  end: number;
  /** 200/201, a fault's 5xx, or 0: no answer in time. */
  status: number;
  node: string | null;
  /** The created buyer's id. */
  id?: string;
  before: Lease | null;
  after: Lease | null;
  /** The epoch it was acknowledged under: the lease before or after that names its node. */
  epoch: number | null;
}

export const acked = (op: Op) => op.status === 200 || op.status === 201;

function parseLease(value: string | null): Lease | null {
  if (!value) return null;
  const [node, epoch] = value.split('\n');
  return { node, epoch: Number(epoch) };
}

/** A namespace's lease in Redis; null when nobody holds it, or when unread (Redis degraded: no evidence either way). */
function leaseOf(redis: RedisClient, ns: string): Promise<Lease | null> {
  return redis.get(`payments-sandbox:ns:${ns}:lease`).then(parseLease, () => null);
}

/** The number the next write of `ns` takes: numbers go on from the writes already in the history (a value names one write). */
export function nextNumber(ops: Op[], ns: string): number {
  return Math.max(0, ...ops.filter((op) => op.ns === ns).map((op) => op.n)) + 1;
}

/**
 * Write number `n` of `ns`, sent to `target` (the proxy, or one node straight), recorded in `ops`
 * with its answer and the lease read just before and just after it.
 */
export async function sendWrite(target: string, redis: RedisClient, ns: string, n: number, headers: Record<string, string>, ops: Op[]): Promise<Op> {
  const kind = n % 2 === 0 ? 'update' : 'create';
  const value = `w${n}`;
  const before = await leaseOf(redis, ns);
  const start = performance.now();
  const url = kind === 'update' ? `${target}/ns/${ns}/buyers/${BUYER}` : `${target}/ns/${ns}/_sandbox/records/buyers`;
  const op: Op = { ns, n, kind, value, start, end: 0, status: 0, node: null, before, after: null, epoch: null };
  ops.push(op);
  try {
    const res = await fetch(url, {
      method: kind === 'update' ? 'PUT' : 'POST',
      headers,
      body: JSON.stringify({ display_name: value }),
      signal: AbortSignal.timeout(WRITE_TIMEOUT_MS),
    });
    const body = (await res.json().catch(() => null)) as { id?: string } | null;
    op.end = performance.now();
    op.status = res.status;
    op.node = res.headers.get('x-sandbox-node');
    if (kind === 'create' && body?.id) op.id = body.id;
  } catch {
    op.end = performance.now(); // no answer: sent, not acknowledged
    return op;
  }
  op.after = await leaseOf(redis, ns);
  op.epoch = [op.after, op.before].find((l) => l && l.node === op.node)?.epoch ?? null;
  return op;
}

/** Numbered writes on each namespace through the proxy, one at a time per namespace, recorded in `ops`, until stopped. */
export function startWriters(proxyUrl: string, redis: RedisClient, names: string[], headers: Record<string, string>, ops: Op[]): () => Promise<void> {
  let running = true;
  const counters = new Map(names.map((ns) => [ns, nextNumber(ops, ns) - 1]));
  const writers = names.map(async (ns) => {
    while (running) {
      const n = (counters.get(ns) as number) + 1;
      counters.set(ns, n);
      await sendWrite(proxyUrl, redis, ns, n, headers, ops);
    }
  });
  return async () => {
    running = false;
    await Promise.all(writers);
  };
}

/** What a node serves of a namespace after every node restarted: the buyer's display_name and every buyer id. */
export interface ReadBack {
  displayName: string;
  buyerIds: Set<string>;
}

export interface Verdict {
  acknowledged: number;
  lost: number;
  reverted: number;
  overlaps: number;
  /** Other answers than a success or a fault's 502/503/504 (a defect). */
  unexpected: number;
  problems: string[];
}

const where = (op: Op) => `${op.ns} ${op.kind} ${op.value} (${op.node} epoch ${op.epoch ?? '?'}, ${Math.round(op.start)}-${Math.round(op.end)} ms)`;
const leaseText = (l: Lease | null) => (l ? `${l.node} epoch ${l.epoch}` : 'nobody');

/** Checks the history against what was read back from Redis alone; `problems` says each violation in a line. */
export function checkHistory(ops: Op[], readBack: Map<string, ReadBack>): Verdict {
  const problems: string[] = [];
  const verdict: Verdict = { acknowledged: 0, lost: 0, reverted: 0, overlaps: 0, unexpected: 0, problems };
  for (const op of ops) if (op.status !== 0 && !acked(op) && ![502, 503, 504].includes(op.status)) verdict.unexpected++;
  for (const [ns, read] of readBack) {
    const mine = ops.filter((op) => op.ns === ns);
    const done = mine.filter(acked).sort((a, b) => a.end - b.end);
    verdict.acknowledged += done.length;
    // Two nodes at once: acknowledged by a node while the lease named another before and after it.
    for (const op of done) {
      if (op.before && op.after && op.before.node !== op.node && op.after.node !== op.node) {
        verdict.overlaps++;
        problems.push(`${where(op)}: acknowledged while ${leaseText(op.before)} held the lease before it and ${leaseText(op.after)} after it`);
      }
    }
    // Holders' spans (first answer .. last send) must not overlap; epochs never go back.
    const spans = new Map<string, { node: string; epoch: number; from: number; to: number }>();
    for (const op of done) {
      if (op.epoch === null || op.node === null) continue;
      const key = `${op.node}@${op.epoch}`;
      const span = spans.get(key) ?? { node: op.node, epoch: op.epoch, from: op.end, to: op.start };
      span.from = Math.min(span.from, op.end);
      span.to = Math.max(span.to, op.start);
      spans.set(key, span);
    }
    const list = [...spans.values()].filter((s) => s.from < s.to);
    for (const [i, a] of list.entries())
      for (const b of list.slice(i + 1))
        if (a.from < b.to && b.from < a.to) {
          verdict.overlaps++;
          problems.push(
            `${ns}: ${a.node} epoch ${a.epoch} and ${b.node} epoch ${b.epoch} both acknowledged writes over ${Math.round(Math.max(a.from, b.from))}-${Math.round(Math.min(a.to, b.to))} ms`,
          );
        }
    for (const x of done)
      for (const y of done)
        if (x.epoch !== null && y.epoch !== null && x.end < y.start && y.epoch < x.epoch) {
          verdict.overlaps++;
          problems.push(`${where(y)} was sent after ${where(x)} was acknowledged, under an earlier epoch`);
        }
    // Lost or reverted, from Redis alone: the buyer serves the last update acknowledged or a later one sent.
    const updates = mine.filter((op) => op.kind === 'update');
    const lastAcked = updates
      .filter(acked)
      .sort((a, b) => a.n - b.n)
      .at(-1);
    const served = updates.find((op) => op.value === read.displayName);
    if (lastAcked && (!served || served.n < lastAcked.n)) {
      verdict.reverted++;
      problems.push(`${ns}: the buyer serves ${read.displayName}, the last update acknowledged is ${where(lastAcked)}`);
    }
    for (const op of done)
      if (op.kind === 'create' && !(op.id && read.buyerIds.has(op.id))) {
        verdict.lost++;
        problems.push(`${where(op)}: acknowledged as buyer ${op.id}, not in Redis afterwards`);
      }
  }
  return verdict;
}
