// The shared sandbox as Redis knows it, for `payments-sandbox cluster`: the nodes alive (and those
// whose key lapsed), each namespace with the node holding its lease, the epoch and how long the lease
// has left, and what its state takes in Redis.
import { connectRedis, KEYS, nsKeys } from './redis.js';

export interface ClusterView {
  store: string;
  nodes: Array<{ id: string; url: string | null; pid: number | null; started_at: string | null; alive: boolean; namespaces: string[] }>;
  namespaces: Array<{
    name: string;
    node: string | null;
    epoch: number | null;
    lease_ms_left: number | null;
    log_entries: number;
    snapshot_bytes: number;
    journal_entries: number;
  }>;
}

export async function readClusterView(store: string): Promise<ClusterView> {
  const redis = await connectRedis(store);
  try {
    const client = redis.client;
    const registered = await client.hgetall(KEYS.nodes);
    const names = (await client.smembers(KEYS.namespaces)).sort();
    const namespaces: ClusterView['namespaces'] = [];
    for (const name of names) {
      const keys = nsKeys(name);
      const [lease, pttl, epoch, log, snap, journal] = await Promise.all([
        client.get(keys.lease),
        client.pttl(keys.lease),
        client.get(keys.epoch),
        client.llen(keys.log),
        client.strlen(keys.snap),
        client.llen(keys.journal),
      ]);
      namespaces.push({
        name,
        node: lease ? lease.split('\n')[0] : null,
        epoch: epoch === null ? null : Number(epoch),
        lease_ms_left: lease ? pttl : null,
        log_entries: log,
        snapshot_bytes: snap,
        journal_entries: journal,
      });
    }
    const ids = Object.keys(registered).sort();
    const alive = ids.length ? await client.mget(ids.map((id) => KEYS.alive(id))) : [];
    const nodes = ids.map((id, i) => {
      const info = JSON.parse(registered[id]) as { url?: string; pid?: number; started_at?: string };
      return {
        id,
        url: info.url ?? null,
        pid: info.pid ?? null,
        started_at: info.started_at ?? null,
        alive: alive[i] !== null,
        namespaces: namespaces.filter((n) => n.node === id).map((n) => n.name),
      };
    });
    return { store: redis.address, nodes, namespaces };
  } finally {
    redis.client.disconnect();
  }
}
