// node bench/compare-overhead.mjs: what compare mode (--upstream URL --compare) costs the sandbox's
// own answer. Two sandboxes side by side, the same seed, one plain, one comparing each call with an
// upstream that answers within 50 ms (a local server holding the sandbox's own answer for 20 ms);
// p50 and p99 latency of GET /gift-cards as the client sees it, in three loads: one call at a time,
// a steady 200 calls a second (a CI test suite's pace), and 50 connections as fast as they go.
// Slices alternate between the two (plain, compare, plain, ...) so a change in the shared machine's
// load touches both alike. Nothing is pinned to a CPU (bench/run.mjs pins each server to CPU 0): the
// compare worker is a thread of the sandbox's process, and a sandbox in use has the machine's cores.
// Prints a table, and the load average before and after. Targets only 127.0.0.1 and stops by itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { mintToken } from '../dist/src/auth/mint-token.js';

const here = dirname(fileURLToPath(import.meta.url));
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 4);
const SLICES = Number(process.env.BENCH_SLICES ?? 5);
const UPSTREAM_DELAY_MS = 20;

function startSandbox(args) {
  const cli = join(here, '../dist/bundle/cli.js');
  const node = ['--max-semi-space-size=8', cli, '--port', '0', '--log-level', 'warn', ...args];
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

/** The upstream: the sandbox's own answer to the call, after UPSTREAM_DELAY_MS. */
function startUpstream(body) {
  const server = createServer((req, res) => {
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, UPSTREAM_DELAY_MS);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

function run(url, headers, opts) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `${url}/gift-cards`, headers, duration: SLICE_SECONDS, pipelining: 1, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** CPU ms used so far (user + system, Linux ticks of 10 ms): the main thread's (its task id is the pid) and the whole process's. */
function cpuMs(pid) {
  const ticks = (file) => {
    const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  return { main: ticks(`/proc/${pid}/task/${pid}/stat`), all: ticks(`/proc/${pid}/stat`) };
}

/** One slice against one sandbox, with the CPU its main thread and whole process used per call. */
async function measured(target, opts) {
  const before = cpuMs(target.child.pid);
  const result = await run(target.url, headers, opts);
  const after = cpuMs(target.child.pid);
  const calls = Math.max(1, result.requests.total);
  return { ...result, mainUs: ((after.main - before.main) * 1000) / calls, allUs: ((after.all - before.all) * 1000) / calls };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const token = await mintToken({ privateKeyPem: readFileSync(join(here, '../fixtures/keys/admin.pem'), 'utf8'), ttlSeconds: 3600 });
const headers = { authorization: `Bearer ${token}` };
const plain = await startSandbox([]);
const sample = await (await fetch(`${plain.url}/gift-cards`, { headers })).text();
const upstream = await startUpstream(sample);
// Its report goes to a temporary folder, not the current one.
const compare = await startSandbox(['--upstream', upstream.url, '--compare', '--report-dir', mkdtempSync(join(tmpdir(), 'compare-bench-'))]);
const loadBefore = loadavg();

const LOADS = [
  ['1 connection', { connections: 1 }],
  ['200 calls/s, 10 connections', { connections: 10, overallRate: 200 }],
  ['50 connections, flat out', { connections: 50 }],
];
const rows = [];
for (const [name, opts] of LOADS) {
  await run(plain.url, headers, { ...opts, duration: 1 }); // warm-up, each
  await run(compare.url, headers, { ...opts, duration: 1 });
  const results = { plain: [], compare: [] };
  for (let i = 0; i < SLICES; i++) {
    for (const [side, target] of [
      ['plain', plain],
      ['compare', compare],
    ]) {
      results[side].push(await measured(target, opts));
    }
  }
  const p50 = (side) => median(results[side].map((r) => r.latency.p50));
  const p99 = (side) => median(results[side].map((r) => r.latency.p99));
  const rps = (side) => median(results[side].map((r) => r.requests.average));
  const errors = (side) => results[side].reduce((n, r) => n + r.errors + r.non2xx, 0);
  rows.push({
    load: name,
    'plain p50 ms': p50('plain'),
    'compare p50 ms': p50('compare'),
    'extra p50': `${(((p50('compare') - p50('plain')) / p50('plain')) * 100).toFixed(1)} %`,
    'plain p99 ms': p99('plain'),
    'compare p99 ms': p99('compare'),
    'plain req/s': Math.round(rps('plain')),
    'compare req/s': Math.round(rps('compare')),
    'plain main-thread CPU µs/call': Math.round(median(results.plain.map((r) => r.mainUs))),
    'compare main-thread CPU µs/call': Math.round(median(results.compare.map((r) => r.mainUs))),
    'compare process CPU µs/call': Math.round(median(results.compare.map((r) => r.allUs))),
    errors: errors('plain') + errors('compare'),
  });
}
const report = await (await fetch(`${compare.url}/_sandbox/upstream/report`)).json();
console.table(rows);
console.log(
  `compare mode: ${report.calls.total} calls compared (${report.calls.same} same, ${report.calls.differs} differ, ${report.calls.upstream_failed} upstream failed)`,
);
console.log(
  `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const child of [plain.child, compare.child]) child.kill('SIGTERM');
upstream.server.close();
