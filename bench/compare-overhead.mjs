// node bench/compare-overhead.mjs: what compare mode (--upstream URL --compare) costs the sandbox's
// own answer. Two sandboxes of the same seed, one plain, one comparing each call with an upstream
// that answers within 50 ms (a process of its own holding the sandbox's own answer for 20 ms);
// latency of GET /gift-cards (a 25 KB page) as the client sees it, timed per call with
// performance.now() around an undici request (µs, not autocannon's whole milliseconds), in three
// loads: one call at a time, a steady 200 calls a second (a CI suite's pace: what issue 38's 10 %
// means), and 50 connections as fast as they go.
// The machine is shared and noisy, so the sides are interleaved in one run: short rounds, plain and
// compare in turn (ABBA order), each side's latencies pooled, and the ratio of the p50s printed with
// the median of the rounds' own ratios beside it (noise that hits a round hits both of its sides).
// CPU per call from each thread's schedstat (ns): the request thread's, and the whole process's.
// After each round the compare worker finishes that round's comparisons before the next round starts.
// COMPARE_BEFORE=<folder of another build> (or COMPARE_BUILDS=name=<folder>,...) adds a side: compare
// mode run from that build. Nothing is pinned to a CPU: the compare worker is a thread of the
// sandbox's process. Targets only 127.0.0.1 and stops by itself (3 to 6 minutes with the defaults).
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const here = dirname(fileURLToPath(import.meta.url));
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const UPSTREAM_DELAY_MS = 20;
/** Between rounds, at least: the compare worker's last comparisons (20 ms upstream, 20 ms batches). */
const SETTLE_MS = 150;
/** Longest wait for a compare worker to catch up after a round (one call at a time and flat out, it falls behind). */
const CATCH_UP_MS = 60_000;

function startSandbox(root, args) {
  const node = ['--max-semi-space-size=8', join(root, 'dist/bundle/cli.js'), '--port', '0', '--log-level', 'warn', ...args];
  const child = spawn(process.execPath, node, { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${err}`)));
  });
}

function startUpstream(body) {
  const child = fork(fileURLToPath(import.meta.url), ['upstream', body], { stdio: 'inherit' });
  return new Promise((resolve) => child.once('message', (url) => resolve({ child, url })));
}

/** CPU ns used so far: the request thread's (its task id is the pid) and every thread's of the process. */
function cpuNs(pid) {
  const ran = (task) => {
    try {
      return Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      return 0; // a thread that ended meanwhile
    }
  };
  let all = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) all += ran(task);
  return { main: ran(pid), all };
}

/** One call, timed from its send to the last byte of the answer, in ms (µs resolution). */
async function timedCall(pool, path, headers) {
  const startedAt = performance.now();
  const { statusCode, body } = await pool.request({ method: 'GET', path, headers });
  await body.arrayBuffer();
  const ms = performance.now() - startedAt;
  if (statusCode !== 200) throw new Error(`status ${statusCode}`);
  return ms;
}

/** Calls for ROUND_MS at one load; the latencies of those that succeeded, and the failures. */
async function round(pool, headers, load) {
  const latencies = [];
  let errors = 0;
  const one = () =>
    timedCall(pool, '/gift-cards', headers).then(
      (ms) => latencies.push(ms),
      () => errors++,
    );
  const end = performance.now() + ROUND_MS;
  if (load.rate) {
    // Open loop: calls at fixed times, whatever the answers do (each timed from its own send).
    const every = 1000 / load.rate;
    const inFlight = [];
    for (let at = performance.now(); at < end; at += every) {
      const wait = at - performance.now();
      if (wait > 1) await sleep(wait);
      inFlight.push(one());
    }
    await Promise.all(inFlight);
  } else {
    const loop = async () => {
      while (performance.now() < end) await one();
    };
    await Promise.all(Array.from({ length: load.connections }, loop));
  }
  return { latencies, errors };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const sortedOf = (values) => Float64Array.from(values).sort();
const median = (values) => quantile(sortedOf(values), 0.5);

/** Once a compare-mode side has compared every call sent to it (SETTLE_MS at least; a plain side: that). */
async function settled([name, target]) {
  await sleep(SETTLE_MS);
  if (name === 'plain') return;
  const until = performance.now() + CATCH_UP_MS;
  while (performance.now() < until) {
    const report = await (await fetch(`${target.url}/_sandbox/upstream/report`)).json();
    if (report.calls.total >= target.sent) return;
    await sleep(50);
  }
  console.error(`${name}: comparisons still behind after ${CATCH_UP_MS} ms`);
}

async function main() {
  const { mintToken } = await import('../dist/src/auth/mint-token.js');
  const token = await mintToken({ privateKeyPem: readFileSync(join(here, '../fixtures/keys/admin.pem'), 'utf8'), ttlSeconds: 3600 });
  const headers = { authorization: `Bearer ${token}` };
  const root = join(here, '..');
  const plain = await startSandbox(root, []);
  const sample = await (await fetch(`${plain.url}/gift-cards`, { headers })).text();
  const upstream = await startUpstream(sample);
  // Reports go to a temporary folder, not the current one.
  const compareArgs = () => ['--upstream', upstream.url, '--compare', '--report-dir', mkdtempSync(join(tmpdir(), 'compare-bench-'))];
  const sides = [
    ['plain', plain],
    ['compare', await startSandbox(root, compareArgs())],
  ];
  // Other builds' compare mode beside this one's: COMPARE_BEFORE=<folder>, or COMPARE_BUILDS=name=<folder>,name=<folder>.
  const builds = (process.env.COMPARE_BUILDS ?? '')
    .split(',')
    .filter(Boolean)
    .map((each) => each.split('='));
  if (process.env.COMPARE_BEFORE) builds.unshift(['before', process.env.COMPARE_BEFORE]);
  for (const [name, folder] of builds) sides.push([`compare (${name})`, await startSandbox(folder, compareArgs())]);
  const loadBefore = loadavg();

  const ALL_LOADS = [
    ['1 connection', { connections: 1 }],
    ['200 calls/s', { rate: 200, connections: 10 }],
    ['50 connections, flat out', { connections: 50 }],
  ];
  // BENCH_LOADS=2 runs the second load only (1, 2, 3: one connection, 200 calls/s, flat out).
  const LOADS = process.env.BENCH_LOADS ? process.env.BENCH_LOADS.split(',').map((n) => ALL_LOADS[Number(n) - 1]) : ALL_LOADS;
  const rows = [];
  for (const [name, load] of LOADS) {
    const pools = sides.map(([, target]) => new Pool(target.url, { connections: load.connections, pipelining: 1 }));
    for (const [i, pool] of pools.entries()) {
      const { latencies, errors } = await round(pool, headers, load); // warm-up, each
      sides[i][1].sent = (sides[i][1].sent ?? 0) + latencies.length + errors;
      await settled(sides[i]);
    }
    const results = sides.map(() => ({ latencies: [], p50s: [], errors: 0, calls: 0, mainNs: 0, allNs: 0, seconds: 0 }));
    for (let r = 0; r < ROUNDS; r++) {
      const order = sides.map((_, i) => i);
      if (r % 2) order.reverse(); // ABBA: a drift in the machine's speed during the run touches each side alike
      for (const i of order) {
        const pid = sides[i][1].child.pid;
        const before = cpuNs(pid);
        const startedAt = performance.now();
        const { latencies, errors } = await round(pools[i], headers, load);
        const seconds = (performance.now() - startedAt) / 1000;
        sides[i][1].sent = (sides[i][1].sent ?? 0) + latencies.length + errors;
        // Its comparisons finish before the next round (inside its own CPU figure): a backlog left
        // by one round would otherwise run during the next, the other side's or another load's.
        await settled(sides[i]);
        const after = cpuNs(pid);
        const result = results[i];
        result.latencies.push(...latencies);
        result.p50s.push(median(latencies));
        result.errors += errors;
        result.calls += latencies.length + errors;
        result.seconds += seconds;
        result.mainNs += after.main - before.main;
        result.allNs += after.all - before.all;
      }
    }
    await Promise.all(pools.map((pool) => pool.close()));
    const [base, ...others] = results.map((result) => ({ ...result, sorted: sortedOf(result.latencies) }));
    const row = (side, result) => ({
      load: name,
      side,
      calls: result.calls,
      'req/s': Math.round(result.calls / result.seconds),
      'p50 ms': quantile(result.sorted, 0.5).toFixed(3),
      'p99 ms': quantile(result.sorted, 0.99).toFixed(3),
      'p50 of plain': side === 'plain' ? '' : (quantile(result.sorted, 0.5) / quantile(base.sorted, 0.5)).toFixed(3),
      // Each round's p50 against the plain round beside it: the median of those ratios.
      'rounds: median p50 ratio': side === 'plain' ? '' : median(result.p50s.map((p50, r) => p50 / base.p50s[r])).toFixed(3),
      'p99 of plain': side === 'plain' ? '' : (quantile(result.sorted, 0.99) / quantile(base.sorted, 0.99)).toFixed(3),
      'request thread CPU µs/call': Math.round(result.mainNs / 1000 / result.calls),
      'process CPU µs/call': Math.round(result.allNs / 1000 / result.calls),
      errors: result.errors,
    });
    rows.push(row('plain', base), ...others.map((result, i) => row(sides[i + 1][0], result)));
  }
  console.log(`${ROUNDS} rounds of ${ROUND_MS} ms per side and load, interleaved; upstream answering in ${UPSTREAM_DELAY_MS} ms`);
  // A table of its own (console.table is wider than a terminal): one line a side and load.
  const columns = Object.keys(rows[0]);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((row) => String(row[c]).length)));
  const line = (cells) => `| ${cells.map((cell, i) => String(cell).padEnd(widths[i])).join(' | ')} |`;
  console.log([line(columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map((row) => line(columns.map((c) => row[c])))].join('\n'));
  for (const [side, target] of sides.slice(1)) {
    const report = await (await fetch(`${target.url}/_sandbox/upstream/report`)).json();
    const { total, same, differs, upstream_failed } = report.calls;
    const failures = report.upstream_failures.map((f) => `${f.count} ${f.failure.split(':')[0]}`).join(', ');
    console.log(`${side}: ${total} calls compared (${same} same, ${differs} differ, ${upstream_failed} upstream failed${failures ? `: ${failures}` : ''})`);
  }
  const averages = (l) => l.map((v) => v.toFixed(2)).join(' ');
  console.log(`load average before ${averages(loadBefore)}, after ${averages(loadavg())}`);
  for (const [, target] of sides) target.child.kill('SIGTERM');
  upstream.child.disconnect();
}

// The upstream, in a process of its own (not the load generator's event loop): the body it is sent, after UPSTREAM_DELAY_MS.
if (process.argv[2] === 'upstream') {
  const body = process.argv[3];
  const server = createServer((req, res) => {
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, UPSTREAM_DELAY_MS);
  });
  server.listen(0, '127.0.0.1', () => process.send?.(`http://127.0.0.1:${server.address().port}`));
  process.on('disconnect', () => process.exit(0));
} else {
  await main();
}
