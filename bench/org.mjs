// npm run bench:org: an organisation's CI at once. N jobs, each in a namespace of its own, C at a
// time, the way a CI job uses the sandbox (reset, three buyer updates, two lists, a report, a clock
// move, a scenario's answer, read-backs: 12 calls), against one process and against the shared
// sandbox (three nodes, HAProxy running deploy/haproxy.cfg, Redis with an append-only file), on
// this machine. Prints jobs a second, p50/p99 per job and per kind of call, failed jobs (any
// unexpected status or a read-back that lost a write), namespaces answered by more than one node
// (none is stopped during the run, so every move is one too many), Redis memory, each process's
// RSS and where the CPU went, how long each process's health check waits, and Redis's traffic per
// job. Targets only 127.0.0.1 and stops by itself.
//
//   ORG_JOBS=1000 ORG_CONCURRENCY=200 ORG_MODES=one,shared npm run bench:org
//   ORG_WARMUP=300               jobs run first and not counted, in namespaces of their own (default 0:
//                                the processes start cold, and each pays its compiler's warm-up)
//   ORG_ROUNDS=3                 the modes in turn, that many times, then the median ratio (one process's
//                                own figure moves by a third between runs on a shared machine)
//   ORG_FSYNC=everysec           Redis's appendfsync (default always, as deploy/ runs it)
//   ORG_MODES=one,node,shared    node: one node of the shared sandbox (--store redis), no HAProxy:
//                                parts the shared sandbox's cost into Redis's and the proxy's and nodes'
//   ORG_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"   flags for the sandbox processes
//   ORG_MONITOR=/tmp/monitor.txt                            Redis's MONITOR output, to see each command
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { mintToken } from '../dist/src/auth/mint-token.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/bundle/cli.js');
const JOBS = Number(process.env.ORG_JOBS ?? 1000);
const WARMUP = Number(process.env.ORG_WARMUP ?? 0);
const ROUNDS = Number(process.env.ORG_ROUNDS ?? 1);
/** Redis's appendfsync: always, as deploy/compose.yaml and deploy/kubernetes.yaml run it. */
const FSYNC = process.env.ORG_FSYNC ?? 'always';
const CONCURRENCY = Number(process.env.ORG_CONCURRENCY ?? 200);
const MODES = (process.env.ORG_MODES ?? 'one,shared').split(',');
const BUYER = 'b0000000-0000-4000-8000-000000000001';
// Every job's namespace stays until the run ends: the cap must hold them all.
const NODE_ARGS = ['--log-level', 'warn', '--namespace-cap', String(WARMUP + JOBS + 100)];

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function program(name) {
  const found = spawnSync('sh', ['-c', `command -v ${name} || ls /usr/sbin/${name} 2>/dev/null`], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error(`bench:org needs ${name}: apt-get install -y ${name === 'redis-server' ? 'redis-server' : name}`);
  return found.split('\n')[0];
}

/** A child process; resolves once `ready` answers true (polled), rejects if it exits first. */
async function startProcess(what, command, args, ready) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const downs = [];
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-5000);
    // HAProxy marking a node down: every namespace of that node moves.
    for (const m of String(d).matchAll(/Server \S+\/(\S+) is DOWN, reason: ([^,]+)/g)) downs.push(`${m[1]}: ${m[2]}`);
  });
  child.downs = downs;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited: ${stderr}`);
    if (await ready().catch(() => false)) return child;
    if (Date.now() > deadline) throw new Error(`${what} not ready within 30 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const healthy = (url) => async () => (await fetch(`${url}/_sandbox/health`)).status === 200;

async function stopAll(children) {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', resolve);
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
        }),
    ),
  );
}

/** One process, as `npm start` runs it. */
async function startOne() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const node = await startProcess(
    'sandbox',
    process.execPath,
    [...(process.env.ORG_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--max-semi-space-size=8', CLI, '--port', String(port), ...NODE_ARGS],
    healthy(url),
  );
  node.url = url;
  return { url, processes: { sandbox: node }, redisUrl: null, children: [node] };
}

/**
 * Redis (append-only, fsync on every write as deploy/compose.yaml runs it, or ORG_FSYNC), three nodes, HAProxy as
 * shipped; or (`proxy: false`) one node reached directly.
 */
async function startShared(dir, { nodeIds = ['node1', 'node2', 'node3'], proxy = true } = {}) {
  const redisPort = await freePort();
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const redisArgs = ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', FSYNC, '--save', ''];
  const redis = await startProcess('redis-server', program('redis-server'), redisArgs, async () => {
    const ping = spawnSync('redis-cli', ['-p', String(redisPort), 'ping'], { encoding: 'utf8' });
    return ping.stdout.trim() === 'PONG';
  });
  const nodes = [];
  for (const id of nodeIds) {
    const port = await freePort();
    const args = [
      ...(process.env.ORG_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      '--max-semi-space-size=8',
      CLI,
      '--port',
      String(port),
      '--node-id',
      id,
      '--store',
      redisUrl,
      ...NODE_ARGS,
    ];
    nodes.push({ id, port, child: await startProcess(id, process.execPath, args, healthy(`http://127.0.0.1:${port}`)) });
    nodes.at(-1).child.url = `http://127.0.0.1:${port}`;
  }
  if (!proxy) {
    const processes = { redis, ...Object.fromEntries(nodes.map((n) => [n.id, n.child])) };
    return { url: nodes[0].child.url, processes, redisPort, children: [...nodes.map((n) => n.child), redis] };
  }
  const proxyPort = await freePort();
  const servers = nodes.map((n) => `    server ${n.id} 127.0.0.1:${n.port} check id ${n.id.slice(4)}`).join('\n');
  const config = readFileSync(join(ROOT, 'deploy/haproxy.cfg'), 'utf8')
    .replace(/bind 127\.0\.0\.1:4010/, `bind 127.0.0.1:${proxyPort}`)
    .replace(/(\n {4}server .*)+/, `\n${servers}`);
  writeFileSync(join(dir, 'haproxy.cfg'), config);
  const url = `http://127.0.0.1:${proxyPort}`;
  const haproxy = await startProcess('haproxy', program('haproxy'), ['-db', '-f', join(dir, 'haproxy.cfg')], healthy(url));
  const processes = { redis, haproxy, ...Object.fromEntries(nodes.map((n) => [n.id, n.child])) };
  return { url, processes, redisPort, children: [haproxy, ...nodes.map((n) => n.child), redis] };
}

/** The 12 calls of one CI job, each with the status it must answer. */
function jobCalls(ns) {
  const at = `/ns/${ns}`;
  const json = { 'content-type': 'application/json' };
  const put = (n) => ({ kind: 'PUT /buyers', method: 'PUT', path: `${at}/buyers/${BUYER}`, headers: json, body: { display_name: `${ns} ${n}` }, expect: 200 });
  return [
    { kind: 'POST reset', method: 'POST', path: `${at}/_sandbox/reset`, headers: json, body: {}, expect: 200 },
    put(1),
    put(2),
    put(3),
    { kind: 'GET /gift-cards', method: 'GET', path: `${at}/gift-cards?limit=5`, expect: 200 },
    { kind: 'GET /connections', method: 'GET', path: `${at}/connections`, expect: 200 },
    {
      kind: 'POST /reports',
      method: 'POST',
      path: `${at}/reports`,
      headers: json,
      body: { name: 'Nightly', schedule: 'daily', schedule_enabled: true, spec: { model: 'transactions', params: {} } },
      expect: 201,
    },
    { kind: 'POST clock/advance', method: 'POST', path: `${at}/_sandbox/clock/advance`, headers: json, body: { duration: '1d' }, expect: 200 },
    { kind: 'GET scenario 429', method: 'GET', path: `${at}/gift-cards`, headers: { 'x-sandbox-scenario': 'rate-limited' }, expect: 429 },
    {
      kind: 'GET record',
      method: 'GET',
      path: `${at}/_sandbox/records/buyers/${BUYER}`,
      expect: 200,
      check: (body) => body.display_name === `${ns} 3` || `read back ${JSON.stringify(body.display_name)}, wrote "${ns} 3"`,
    },
    { kind: 'GET requests', method: 'GET', path: `${at}/_sandbox/requests?limit=5`, expect: 200 },
    { kind: 'GET clock', method: 'GET', path: `${at}/_sandbox/clock`, expect: 200 },
  ];
}

async function runJobs(url, auth, jobs = JOBS, prefix = 'org') {
  const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const perKind = new Map();
  const jobTimes = [];
  const failures = [];
  const nodesOf = new Map();
  let calls = 0;
  let next = 0;
  const runOne = async (index) => {
    const ns = `${prefix}-${process.pid}-${index}`;
    const started = performance.now();
    for (const call of jobCalls(ns)) {
      const t0 = performance.now();
      let problem = null;
      try {
        const res = await request(`${url}${call.path}`, {
          dispatcher,
          method: call.method,
          headers: { authorization: auth, ...call.headers },
          body: call.body === undefined ? undefined : JSON.stringify(call.body),
        });
        const text = await res.body.text();
        const node = res.headers['x-sandbox-node'];
        if (node) (nodesOf.get(ns) ?? nodesOf.set(ns, new Set()).get(ns)).add(node);
        if (res.statusCode !== call.expect) problem = `${res.statusCode} (wanted ${call.expect}): ${text.slice(0, 200)}`;
        else if (call.check) {
          const verdict = call.check(JSON.parse(text));
          if (verdict !== true) problem = verdict;
        }
      } catch (err) {
        problem = `${err.code ?? ''} ${err.message}`;
      }
      calls++;
      (perKind.get(call.kind) ?? perKind.set(call.kind, []).get(call.kind)).push(performance.now() - t0);
      if (problem) {
        failures.push(`${ns} ${call.kind}: ${problem}`);
        return;
      }
    }
    jobTimes.push(performance.now() - started);
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, jobs) }, async () => {
      while (next < jobs) await runOne(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  const moved = [...nodesOf.values()].filter((nodes) => nodes.size > 1).length;
  return { seconds, calls, jobTimes, perKind, failures, moved };
}

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const ms = (v) => (Number.isNaN(v) ? '-' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`);

/**
 * Asks each sandbox process's health directly, on a new connection each time as HAProxy's check
 * does, every 500 ms while the jobs run: how long a check waits on a busy node.
 */
function probeHealth(processes) {
  const times = {};
  const timers = [];
  for (const [name, child] of Object.entries(processes)) {
    if (!child.url) continue;
    times[name] = [];
    let busy = false;
    const timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      const t0 = performance.now();
      try {
        await fetch(`${child.url}/_sandbox/health`, { headers: { connection: 'close' } }).then((r) => r.arrayBuffer());
        times[name].push(performance.now() - t0);
      } catch {
        times[name].push(Number.POSITIVE_INFINITY);
      }
      busy = false;
    }, 500);
    timers.push(timer);
  }
  return () => {
    for (const t of timers) clearInterval(t);
    return times;
  };
}

async function measure(mode, auth) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-org-'));
  const sandbox = mode === 'one' ? await startOne() : mode === 'node' ? await startShared(dir, { nodeIds: ['node1'], proxy: false }) : await startShared(dir);
  try {
    if (WARMUP > 0) {
      const warm = await runJobs(sandbox.url, auth, WARMUP, 'warm');
      if (warm.failures.length) throw new Error(`the warm-up failed: ${warm.failures.slice(0, 3).join('; ')}`);
    }
    const before = Object.fromEntries(Object.entries(sandbox.processes).map(([name, child]) => [name, cpuMs(child.pid)]));
    const loadBefore = process.cpuUsage();
    const redisBefore = sandbox.redisPort ? redisStats(sandbox.redisPort) : null;
    const monitor =
      process.env.ORG_MONITOR && sandbox.redisPort
        ? spawn('redis-cli', ['-p', String(sandbox.redisPort), 'monitor'], { stdio: ['ignore', 'pipe', 'ignore'] })
        : null;
    if (monitor) monitor.stdout.pipe((await import('node:fs')).createWriteStream(process.env.ORG_MONITOR));
    const stopProbe = probeHealth(sandbox.processes);
    const result = await runJobs(sandbox.url, auth);
    const health = stopProbe();
    monitor?.kill();
    const load = process.cpuUsage(loadBefore);
    const cpu = Object.fromEntries(Object.entries(sandbox.processes).map(([name, child]) => [name, cpuMs(child.pid) - before[name]]));
    cpu['load generator'] = Math.round((load.user + load.system) / 1000);
    const rss = Object.fromEntries(Object.entries(sandbox.processes).map(([name, child]) => [name, rssMb(child.pid)]));
    let redisMemory = null;
    let redisTraffic = null;
    if (sandbox.redisPort) {
      const info = spawnSync('redis-cli', ['-p', String(sandbox.redisPort), 'info', 'memory'], { encoding: 'utf8' }).stdout;
      redisMemory = /used_memory_human:(\S+)/.exec(info)?.[1] ?? null;
      const after = redisStats(sandbox.redisPort);
      redisTraffic = { commands: after.commands - redisBefore.commands, inKb: after.inKb - redisBefore.inKb, outKb: after.outKb - redisBefore.outKb };
    }
    return { mode, ...result, health, cpu, rss, redisMemory, redisTraffic, downs: sandbox.processes.haproxy?.downs ?? [] };
  } finally {
    await stopAll(sandbox.children);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Redis's own counters: commands processed, bytes in and out. */
function redisStats(port) {
  const stats = spawnSync('redis-cli', ['-p', String(port), 'info', 'stats'], { encoding: 'utf8' }).stdout;
  const stat = (name) => Number(new RegExp(`${name}:(\\d+)`).exec(stats)?.[1] ?? NaN);
  return { commands: stat('total_commands_processed'), inKb: stat('total_net_input_bytes') / 1024, outKb: stat('total_net_output_bytes') / 1024 };
}

function report(r) {
  const ok = r.jobTimes.length;
  const what = {
    one: 'one process',
    node: `one node of the shared sandbox (Redis AOF ${FSYNC}, no proxy)`,
    shared: `shared sandbox (3 nodes, HAProxy, Redis AOF ${FSYNC})`,
  };
  console.log(`\n${what[r.mode]}: ${JOBS} jobs, ${CONCURRENCY} at once${WARMUP ? ` (after ${WARMUP} not counted)` : ''}`);
  console.log(`  jobs a second ${(ok / r.seconds).toFixed(1)}, calls a second ${Math.round(r.calls / r.seconds)}, ${r.seconds.toFixed(1)} s`);
  console.log(`  a job: p50 ${ms(percentile(r.jobTimes, 50))}, p99 ${ms(percentile(r.jobTimes, 99))}`);
  console.log(`  failed jobs ${r.failures.length}; namespaces answered by more than one node ${r.moved}`);
  for (const line of r.failures.slice(0, 5)) console.log(`    ${line}`);
  if (r.mode === 'shared') console.log(`  HAProxy marked a node down ${r.downs.length} times${r.downs.length ? `: ${r.downs.slice(0, 5).join('; ')}` : ''}`);
  console.log(
    `  health check, straight to each process: ${Object.entries(r.health)
      .map(([k, t]) => `${k} p50 ${ms(percentile(t, 50))} max ${ms(Math.max(...t))}`)
      .join(', ')}`,
  );
  for (const [kind, times] of r.perKind)
    console.log(`  ${kind.padEnd(20)} p50 ${ms(percentile(times, 50)).padStart(8)}  p99 ${ms(percentile(times, 99)).padStart(8)}`);
  const total = Object.values(r.cpu).reduce((a, b) => a + b, 0);
  console.log(
    `  CPU (s, share): ${Object.entries(r.cpu)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} (${Math.round((100 * v) / total)}%)`)
      .join(', ')}`,
  );
  console.log(
    `  RSS (MB): ${Object.entries(r.rss)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}${r.redisMemory ? `; Redis used_memory ${r.redisMemory}` : ''}`,
  );
  if (r.redisTraffic) {
    const { commands, inKb, outKb } = r.redisTraffic;
    console.log(
      `  Redis, per job: ${(commands / JOBS).toFixed(1)} commands, ${(inKb / JOBS).toFixed(1)} KiB in, ${(outKb / JOBS).toFixed(1)} KiB out (renewals of idle leases included)`,
    );
  }
}

const auth = `Bearer ${await mintToken({ privateKeyPem: readFileSync(join(ROOT, 'fixtures/keys/admin.pem'), 'utf8'), ttlSeconds: 3600 })}`;
const jobsPerSecond = (r) => r.jobTimes.length / r.seconds;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
/** Each round's ratio of every other mode to one process, by mode. */
const ratios = new Map();
for (let round = 1; round <= ROUNDS; round++) {
  if (ROUNDS > 1) console.log(`\n== round ${round} of ${ROUNDS} (load average ${loadAverage()})`);
  const results = [];
  for (const mode of MODES) {
    const r = await measure(mode, auth);
    report(r);
    results.push(r);
  }
  const one = results.find((r) => r.mode === 'one');
  for (const other of results.filter((r) => r.mode !== 'one' && one)) {
    const ratio = jobsPerSecond(other) / jobsPerSecond(one);
    (ratios.get(other.mode) ?? ratios.set(other.mode, []).get(other.mode)).push(ratio);
    const target = other.mode === 'shared' ? ' (target 0.7)' : '';
    console.log(`\n${other.mode} / one process, jobs a second: ${ratio.toFixed(2)}${target}`);
  }
}
if (ROUNDS > 1) {
  for (const [mode, list] of ratios) {
    console.log(`\n${mode} / one process over ${ROUNDS} rounds: median ${median(list).toFixed(2)} (${list.map((r) => r.toFixed(2)).join(', ')})`);
  }
}
console.log(`load average ${loadAverage()}`);

function loadAverage() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
