// A shared sandbox on this machine for the cluster tests: a redis-server (append-only file, so a
// restart keeps its data), sandbox nodes as child processes of the built command, and HAProxy
// running deploy/haproxy.cfg as shipped, with its ports and node list replaced. Each test file
// starts its own on free ports and stops them. A missing redis-server or haproxy is a failure with
// the line that installs it (.ci/run does), never a silent skip.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tokenFor } from '../support/sandbox.js';

export const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/bundle/cli.js');
export const LEASE_MS = 1500;
/** Most time a node or the proxy may take to answer its health check once started (a busy machine is slow to start them). */
export const STARTUP_MS = 60_000;

/**
 * Sends `request` again while it is answered 503, for setting up what a test is not about: on a
 * machine whose cores are busy elsewhere a node can be off the CPU for seconds, and then answers
 * 503 (its Redis command timed out, or its lease lapsed) or HAProxy does (every node failed its
 * 1 s health check twice). Each says to retry; a test of the request itself must not use this.
 */
export async function untilServed(request: () => Promise<Response>, ms = 15_000): Promise<Response> {
  const until = Date.now() + ms;
  for (;;) {
    const res = await request();
    if (res.status !== 503 || Date.now() > until) return res;
    await res.arrayBuffer();
    await sleep(1000 * Number(res.headers.get('retry-after') ?? '0.5'));
  }
}

/** Throws, naming the Debian package, when a program the cluster tests need is not installed. */
export function requireProgram(program: 'redis-server' | 'haproxy', pkg: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${program} || ls /usr/sbin/${program} /usr/bin/${program} 2>/dev/null | head -1`], {
    encoding: 'utf8',
  }).stdout.trim();
  if (!found) throw new Error(`the cluster tests need ${program}: apt-get install -y ${pkg} (.ci/run installs it)`);
  return found.split('\n')[0];
}

export function requireBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`the cluster tests run the built command ${CLI}: run npm run build first (npm test does)`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value (not undefined), or throws `what` after `ms`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`${what} did not happen within ${ms} ms${last ? ` (last: ${(last as Error).message})` : ''}`);
    await sleep(50);
  }
}

interface Proc {
  proc: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Where a process of the shared sandbox runs: by default this machine's loopback; with `netns`, a
 * network namespace of test/cluster/netns.ts, reached at `address` (its veth's).
 */
export interface Host {
  address: string;
  netns?: string;
  /** Extra environment for the process (a test-only switch, say). */
  env?: Record<string, string>;
}

const LOOPBACK: Host = { address: '127.0.0.1' };

function run(command: string, args: string[], host: Host = LOOPBACK): Proc {
  // `ip netns exec` execs the program in place (no fork), so the child's pid is the program's: signals reach it.
  const [program, argv] = host.netns ? ['ip', ['netns', 'exec', host.netns, command, ...args]] : [command, args];
  const proc = spawn(program, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: host.env ? { ...process.env, ...host.env } : process.env });
  let output = '';
  proc.stdout?.on('data', (d) => (output = (output + d).slice(-500_000)));
  proc.stderr?.on('data', (d) => (output = (output + d).slice(-500_000)));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, output: () => output, exited };
}

async function stop(p: Proc, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  p.proc.kill(signal);
  const timer = setTimeout(() => p.proc.kill('SIGKILL'), 10_000);
  await p.exited;
  clearTimeout(timer);
}

export interface RedisServer {
  host: string;
  port: number;
  url: string;
  /** Stops it at once (SIGKILL): clients see it gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder: it has what it had. */
  restart(): Promise<void>;
  /** Starts it again on the same port with its data gone (a Redis that lost what it had; stop it first). */
  restartEmpty(): Promise<void>;
  /** Sends a signal to the running redis-server (SIGSTOP freezes it, SIGCONT wakes it). */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/** redis-server ended before it answered, with what it printed. */
class RedisExited extends Error {
  constructor(output: string) {
    super(`redis-server exited before answering: ${output.trim().split('\n').slice(-3).join(' | ')}`);
  }
}

export async function startRedis(host: Host = LOOPBACK): Promise<RedisServer> {
  const program = requireProgram('redis-server', 'redis-server');
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-redis-'));
  let port = host.netns ? 6379 : await freePort();
  let current: Proc;
  const launch = async () => {
    current = run(
      program,
      ['--port', String(port), '--bind', host.address, '--protected-mode', 'no', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
      host,
    );
    const started = current;
    const closed = new Promise((resolve) => started.proc.once('close', resolve)); // its output read to the end
    const state = await waitFor(`redis-server on ${port}`, async () => {
      if (started.proc.exitCode !== null || started.proc.signalCode !== null) return 'exited';
      return spawnSync('redis-cli', ['-h', host.address, '-p', String(port), 'ping'], { encoding: 'utf8', timeout: 2_000 }).stdout.trim() === 'PONG'
        ? 'up'
        : undefined;
    });
    if (state === 'exited') {
      await closed;
      throw new RedisExited(started.output());
    }
  };
  // A free port may be taken by another test's process before redis-server binds it: another port then.
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (err) {
      if (host.netns || attempt === 3 || !(err instanceof RedisExited) || !err.message.includes('Address already in use')) throw err;
      port = await freePort();
    }
  }
  return {
    host: host.address,
    port,
    url: `redis://${host.address}:${port}`,
    kill: () => stop(current, 'SIGKILL'),
    restart: launch,
    signal: (signal) => current.proc.kill(signal),
    restartEmpty: async () => {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      await launch();
    },
    stop: async () => {
      await stop(current, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** redis-cli against the test's Redis: its output, trimmed. */
export function redisCli(redis: RedisServer, ...args: string[]): string {
  return spawnSync('redis-cli', ['-h', redis.host, '-p', String(redis.port), ...args], { encoding: 'utf8' }).stdout.trim();
}

export interface SandboxNode {
  id: string;
  host: string;
  port: number;
  url: string;
  pid: number;
  output(): string;
  exited: Promise<number | null>;
  signal(signal: NodeJS.Signals): void;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * A node's GET /_sandbox/metrics, read once: the returned function gives the number a line's pattern
 * captures (a metric missing fails the test).
 */
export async function readMetrics(node: SandboxNode, headers: Record<string, string> = {}): Promise<(line: RegExp) => number> {
  const text = await (await fetch(`${node.url}/_sandbox/metrics`, { headers })).text();
  return (line) => {
    const match = line.exec(text);
    if (!match) throw new Error(`no ${line} in ${node.id}'s metrics`);
    return Number(match[1]);
  };
}

/** A sandbox node (the built command) on a free port (or `port`: a node restarted where the proxy expects it), ready once its health answers 200. */
export async function startNode(redis: RedisServer, id: string, extra: string[] = [], port?: number, host: Host = LOOPBACK): Promise<SandboxNode> {
  requireBuilt();
  port ??= host.netns ? 4011 : await freePort();
  // Off loopback the control API needs a token or `open`: only the test's own namespaces reach it.
  const listen = host.netns ? ['--host', host.address, '--control-api', 'open'] : [];
  const args = [
    CLI,
    '--port',
    String(port),
    ...listen,
    '--node-id',
    id,
    '--store',
    redis.url,
    '--lease-ms',
    String(LEASE_MS),
    '--log-format',
    'json',
    '--log-level',
    'warn',
  ];
  const p = run(process.execPath, ['--max-semi-space-size=8', ...args, '--validate-responses', ...extra], host);
  const url = `http://${host.address}:${port}`;
  const adminToken = extra[extra.indexOf('--admin-token') + 1];
  const headers: Record<string, string> = extra.includes('--admin-token') ? { 'x-sandbox-admin-token': adminToken } : {};
  // Up to a minute: three nodes starting at once on two busy cores took more than 15 s (load 19).
  await waitFor(
    `node ${id} healthy`,
    async () => {
      if (p.proc.exitCode !== null) throw new Error(`node ${id} exited: ${p.output()}`);
      return (await fetch(`${url}/_sandbox/health`, { headers })).status === 200 ? true : undefined;
    },
    STARTUP_MS,
  );
  return {
    id,
    host: host.address,
    port,
    url,
    pid: p.proc.pid as number,
    output: p.output,
    exited: p.exited,
    signal: (signal) => p.proc.kill(signal),
    stop: (signal) => stop(p, signal),
  };
}

export interface HaProxy {
  url: string;
  /** Runs it again with this node list (a node added or removed), on the same port. */
  reload(nodes: SandboxNode[]): Promise<void>;
  stop(): Promise<void>;
}

/** deploy/haproxy.cfg with its bind port and server lines replaced; with nodes' admin token, its health check sends it (docs/shared-sandbox.md). */
export function proxyConfig(port: number, nodes: SandboxNode[], adminToken?: string, address = '127.0.0.1'): string {
  const shipped = readFileSync(join(ROOT, 'deploy/haproxy.cfg'), 'utf8');
  // Fixed ids, as the shipped file says: node3 keeps its place on the ring when node1's line goes.
  const servers = nodes.map((n) => `    server ${n.id} ${n.host}:${n.port} check id ${n.id.replace(/\D/g, '')}`).join('\n');
  let config = shipped.replace(/bind 127\.0\.0\.1:4010/, `bind ${address}:${port}`).replace(/(\n {4}server .*)+/, `\n${servers}`);
  if (adminToken) config = config.replace(/(\n {4}option httpchk .*)/, `$1\n    http-check send hdr x-sandbox-admin-token ${adminToken}`);
  if (!config.includes(`:${port}`) || !config.includes(servers))
    throw new Error('deploy/haproxy.cfg no longer has the bind and server lines the tests replace');
  return config;
}

export async function startProxy(nodes: SandboxNode[], adminToken?: string, host: Host = LOOPBACK): Promise<HaProxy> {
  const program = requireProgram('haproxy', 'haproxy');
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-haproxy-'));
  const port = host.netns ? 4010 : await freePort();
  const file = join(dir, 'haproxy.cfg');
  let current: Proc;
  const url = `http://${host.address}:${port}`;
  const launch = async (list: SandboxNode[]) => {
    writeFileSync(file, proxyConfig(port, list, adminToken, host.address));
    current = run(program, ['-db', '-f', file], host);
    await waitFor(
      'haproxy listening',
      async () => {
        if (current.proc.exitCode !== null) throw new Error(`haproxy exited: ${current.output()}`);
        const headers: Record<string, string> = adminToken ? { 'x-sandbox-admin-token': adminToken } : {};
        return (await fetch(`${url}/_sandbox/health`, { headers })).status === 200 ? true : undefined;
      },
      STARTUP_MS,
    );
  };
  await launch(nodes);
  return {
    url,
    reload: async (list) => {
      await stop(current);
      await launch(list);
    },
    stop: async () => {
      await stop(current);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The admin key's token and a JSON content type: what the cluster tests' API calls send. */
export async function adminHeaders(): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await tokenFor('admin')}`, 'content-type': 'application/json' };
}

/** Creates a report of its own (a write nothing later overwrites) in the namespace at `nsUrl` (…/ns/{name}). */
export function postReport(nsUrl: string, name: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${nsUrl}/reports`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name, schedule: 'once', schedule_enabled: false, spec: { model: 'transactions', params: {} } }),
    signal,
  });
}

/** Redis, nodes of these ids and HAProxy in front of them, as most cluster test files start them. */
export async function startCluster(ids: string[]): Promise<{ redis: RedisServer; nodes: SandboxNode[]; proxy: HaProxy }> {
  const redis = await startRedis();
  const nodes = await Promise.all(ids.map((id) => startNode(redis, id)));
  return { redis, nodes, proxy: await startProxy(nodes) };
}

/** Stops what a test started, proxy first, then the nodes, then Redis (any of them may be missing: a start that failed). */
export async function stopCluster(proxy: HaProxy | undefined, nodes: SandboxNode[], redis: RedisServer | undefined): Promise<void> {
  await proxy?.stop();
  await Promise.all(nodes.map((n) => n.stop()));
  await redis?.stop();
}

/** Every record id of a collection in a namespace, page by page (small pages, so the reading pages for real) through a node's control API. */
export async function recordIds(nodeUrl: string, ns: string, collection: string, pageSize = 100): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += pageSize) {
    const res = await fetch(`${nodeUrl}/ns/${ns}/_sandbox/records/${collection}?limit=${pageSize}&offset=${offset}`);
    if (res.status !== 200) throw new Error(`${ns} ${collection} page at ${offset}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { items: { id: string }[]; total: number };
    for (const item of page.items) ids.add(item.id);
    if (offset + pageSize >= page.total) return ids;
  }
}
