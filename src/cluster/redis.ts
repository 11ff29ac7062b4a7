// The shared sandbox's Redis: the connection (ioredis, loaded only with --store redis://), the keys
// and the Lua scripts that make leases exclusive and writes fenced. Every write of a namespace's
// state runs in a script that first checks that the lease still holds this node and epoch: a node
// paused past its lease, whose namespace another node has taken since (epoch + 1), has its write
// refused by Redis itself, so it can never acknowledge one. The holder is a process, not only a node
// id: a process started under the id of one that is only frozen takes the lease at a new epoch too.
import type { Redis as RedisClient } from 'ioredis';

export type { RedisClient };

const PREFIX = 'payments-sandbox:';

/** The keys of one namespace. */
export function nsKeys(name: string) {
  const at = `${PREFIX}ns:${name}:`;
  return {
    /** `node \n epoch \n instance` with a TTL: who owns it now (the instance: the process, see leaseAcquire). */
    lease: `${at}lease`,
    /** Grows by one each time another owner takes the lease (never goes back). */
    epoch: `${at}epoch`,
    /** The durable state at some point (state-codec.ts), absent while it equals the fixtures. */
    snap: `${at}snap`,
    /** Changes since the snapshot, one JSON entry per write, in order. */
    log: `${at}log`,
    /** Step counters and other state that follows asynchronously (volatile.ts). */
    volatile: `${at}volatile`,
    /** The journal's entries as encoded by the journal (binary), oldest first, and its counts. */
    journal: `${at}journal`,
    journalMeta: `${at}journal-meta`,
    /** Where a journal chunk waits, within one MULTI, for the lease check that moves it onto the journal. */
    journalStaging: `${at}journal-staging`,
  };
}

export const KEYS = {
  /** Every namespace created in the shared sandbox (and not dropped). */
  namespaces: `${PREFIX}namespaces`,
  /** node id -> JSON {id, url, started_at}; a node is alive while its `node:<id>` key lives. */
  nodes: `${PREFIX}nodes`,
  alive: (node: string) => `${PREFIX}node:${node}`,
  /** Pub/sub: requests to every node (handover, list, reset), and each node's replies. */
  control: `${PREFIX}control`,
  replies: (node: string) => `${PREFIX}replies:${node}`,
};

/**
 * TEST ONLY, never in a deployment: with this variable set to this exact value, the fence is broken
 * on purpose (the scripts below stop comparing the lease with the caller's holder), so that
 * test/cluster/partitions.test.ts can show its history check catches a missing fence. Its name and
 * value are long so that nobody sets it by accident; a node started with it says so in its log.
 */
export const BROKEN_FENCE_SWITCH = { name: 'PAYMENTS_SANDBOX_TEST_ONLY_BREAK_THE_FENCE', value: 'acknowledge-stale-writes' } as const;
export const fenceBroken = process.env[BROKEN_FENCE_SWITCH.name] === BROKEN_FENCE_SWITCH.value;

/** The refusal of a stale owner's write: LAPSED when nobody holds the lease now, else another node does. */
const FENCE = fenceBroken
  ? "local cur = redis.call('GET', KEYS[1])"
  : `local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then
  {{before}}return redis.error_reply(cur and 'FENCED: another node holds the lease' or 'FENCED: LAPSED, nobody holds the lease')
end`;
const CHECK_LEASE = FENCE.replace('{{before}}', '');
/** Whether the i-th lease renewed is the caller's (broken on purpose: whoever's it is, while it lives). */
const HOLDS = fenceBroken ? 'cur' : 'cur == ARGV[i]';

/** The scripts, defined on a connection as commands (ioredis sends EVALSHA, EVAL on a miss). */
const SCRIPTS = {
  /**
   * KEYS lease, epoch, namespaces; ARGV node, ttl ms, name, create (1/0), instance -> {1, epoch,
   * fresh, created} when this process holds it now, {0, node, pttl, epoch} when another does (another
   * node, or an earlier process under the same node id), {2} when nobody holds it and it was never
   * created and `create` is 0 (a call that may not create it takes no lease). The lease holds
   * `node \n epoch \n instance`: each process its own holder, so a process started under the id of
   * one only frozen never shares its lease, and the fence tells their writes apart.
   */
  leaseAcquire: {
    numberOfKeys: 3,
    lua: `local created = redis.call('SISMEMBER', KEYS[3], ARGV[3])
local cur = redis.call('GET', KEYS[1])
if cur then
  local sep = string.find(cur, '\\n', 1, true)
  local epoch = string.sub(cur, sep + 1)
  local sep2 = string.find(epoch, '\\n', 1, true)
  if sep2 then epoch = string.sub(epoch, 1, sep2 - 1) end
  if cur == ARGV[1] .. '\\n' .. epoch .. '\\n' .. ARGV[5] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return {1, tonumber(epoch), 0, created} end
  return {0, string.sub(cur, 1, sep - 1), redis.call('PTTL', KEYS[1]), tonumber(epoch)}
end
if created == 0 and ARGV[4] ~= '1' then return {2} end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '\\n' .. epoch .. '\\n' .. ARGV[5], 'PX', ARGV[2])
return {1, epoch, 1, created}`,
  },
  /**
   * KEYS the leases of one node; ARGV each one's holder, in the same order, then the ttl -> for each
   * lease 1 renewed, 0 another node holds it, -1 it lapsed and nobody holds it. One call for many
   * leases: a node renews every lease it holds three times per --lease-ms, idle namespaces' too.
   */
  leaseRenewMany: {
    numberOfKeys: null,
    lua: `local ttl = ARGV[#KEYS + 1]
local out = {}
for i = 1, #KEYS do
  local cur = redis.call('GET', KEYS[i])
  if ${HOLDS} then redis.call('PEXPIRE', KEYS[i], ttl) out[i] = 1
  elseif cur then out[i] = 0
  else out[i] = -1 end
end
return out`,
  },
  /** KEYS lease; ARGV holder -> 1 released, 0 not held. */
  leaseRelease: {
    numberOfKeys: 1,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end return 0`,
  },
  /** KEYS lease, snap, log, namespaces; ARGV holder, reset (1: the state is the fixtures again), entry ('' none), name -> log length. */
  stateAppend: {
    numberOfKeys: 4,
    lua: `${CHECK_LEASE}
if ARGV[2] == '1' then redis.call('DEL', KEYS[2], KEYS[3]) end
if ARGV[3] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[3]) end
redis.call('SADD', KEYS[4], ARGV[4])
return redis.call('LLEN', KEYS[3])`,
  },
  /** KEYS lease, snap, log, namespaces; ARGV holder, snapshot text, name: the snapshot replaces snap and log. */
  stateSnapshot: {
    numberOfKeys: 4,
    lua: `${CHECK_LEASE}
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[3])
redis.call('SADD', KEYS[4], ARGV[3])
return 0`,
  },
  /**
   * KEYS lease, volatile, journal, journal-meta, staging; ARGV holder, volatile JSON ('' unchanged),
   * journal meta JSON, clear the journal first (1/0). Run in one MULTI after an RPUSH of the new
   * journal chunk onto `staging`: the chunk (megabytes under load) never passes through Lua, whose
   * strings would copy and hash it; it is moved onto the journal, or dropped for a stale owner.
   */
  volatileCommit: {
    numberOfKeys: 5,
    lua: `${FENCE.replace('{{before}}', "redis.call('DEL', KEYS[5]) ")}
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2]) end
if ARGV[4] == '1' then redis.call('DEL', KEYS[3]) end
while redis.call('LMOVE', KEYS[5], KEYS[3], 'LEFT', 'RIGHT') do end
redis.call('SET', KEYS[4], ARGV[3])
return 0`,
  },
  /** KEYS lease, snap, log, volatile, journal, journal-meta, namespaces; ARGV name: drops a namespace nobody holds (or this holder). */
  stateDrop: {
    numberOfKeys: 7,
    lua: `local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
redis.call('SREM', KEYS[7], ARGV[1])
return 1`,
  },
  /** The same, keeping the registry entry and the journal: the state is the fixtures again (a reset of a namespace nobody holds). */
  stateResetUnheld: {
    numberOfKeys: 4,
    lua: `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
return 1`,
  },
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/** A connection with the scripts defined, typed loosely: `run(name, keys, args)`. */
export interface SandboxRedis {
  client: RedisClient;
  address: string;
  run(name: ScriptName, keys: string[], args: Array<string | number | Buffer>): Promise<unknown>;
  /** RPUSH of `chunk` onto `staging` (when there is one), then the script, in one MULTI: its error, if any, is thrown. */
  runAfterPush(staging: string, chunk: Buffer | null, name: ScriptName, keys: string[], args: Array<string | number>): Promise<unknown>;
  /** Told once when the connection is lost (with the last error seen) and once when it is back, not at every reconnection attempt. */
  watchConnection(onChange: (up: boolean, problem: string) => void): void;
}

/** `redis://HOST:PORT` as ioredis options. */
function optionsOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || 6379) };
}

/**
 * Connects to Redis (a second connection for subscriptions is `duplicate()`). Fails with a message
 * naming the address when it cannot be reached within `timeoutMs`. Afterwards commands fail at once
 * while the connection is down (no offline queue: a write must not wait for a Redis that may never
 * come back), and ioredis reconnects by itself. A command unanswered after `commandTimeoutMs` fails.
 */
export async function connectRedis(url: string, timeoutMs = 3_000, commandTimeoutMs = 2_000): Promise<SandboxRedis> {
  const loaded = (await import('ioredis')) as unknown as { Redis?: typeof RedisClient; default?: { Redis?: typeof RedisClient } & typeof RedisClient };
  const Redis = (loaded.Redis ?? loaded.default?.Redis ?? loaded.default) as typeof RedisClient; // CommonJS, however the bundle loads it
  const { host, port } = optionsOf(url);
  const address = `redis://${host}:${port}`;
  const client = new Redis({
    host,
    port,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: commandTimeoutMs, // a Redis that stopped answering fails the request instead of holding it
    // The commands of one turn of the event loop (many namespaces' writes, leases, journals) leave in
    // one write: ioredis otherwise writes each alone, the largest CPU cost of a busy node (bench:org).
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(50 * times, 500),
  });
  let lastError = '';
  client.on('error', (err: Error) => {
    lastError = err.message; // reported through failed commands, health and watchConnection; ioredis reconnects
  });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    throw new Error(`cannot reach Redis at ${address} (--store): ${(err as Error).message}`);
  }
  // A script without a fixed number of keys is given it first (ioredis's way), by run().
  for (const [name, script] of Object.entries(SCRIPTS)) client.defineCommand(name, { numberOfKeys: script.numberOfKeys ?? undefined, lua: script.lua });
  let up = true;
  return {
    client,
    address,
    run: (name, keys, args) =>
      (client as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name](
        ...(SCRIPTS[name].numberOfKeys === null ? [keys.length] : []),
        ...keys,
        ...args,
      ),
    async runAfterPush(staging, chunk, name, keys, args) {
      const multi = client.multi();
      if (chunk) multi.rpush(staging, chunk);
      (multi as unknown as Record<string, (...a: unknown[]) => void>)[name](...keys, ...args);
      const results = await multi.exec();
      const failed = results?.find(([err]) => err);
      if (!results || failed) throw failed?.[0] ?? new Error('the transaction was discarded');
      return results.at(-1)?.[1];
    },
    watchConnection(onChange) {
      // ioredis emits close at every failed reconnection attempt and ready at each success: only the changes count.
      client.on('close', () => {
        if (!up) return;
        up = false;
        onChange(false, lastError || 'the connection was closed');
      });
      client.on('ready', () => {
        if (up) return;
        up = true;
        onChange(true, '');
      });
    },
  };
}

/** Whether an error is the lease check of a script refusing a stale owner. */
export function isFenced(err: unknown): boolean {
  return err instanceof Error && err.message.includes('FENCED');
}

/** Whether a fenced write found the lease lapsed with nobody holding it (rather than held by another node). */
export function fencedByLapse(err: unknown): boolean {
  return err instanceof Error && err.message.includes('FENCED: LAPSED');
}
