// npm run bench: the sandbox against a bare Hono server, same machine, same run.
// Pins servers to CPU 0 and this load generator to CPU 1 where taskset exists; warms up, then
// measures each case for a fixed time at 50 connections; prints a table and writes
// bench/results/latest.json. Targets only 127.0.0.1 and stops by itself.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { mintToken } from '../dist/src/auth/mint-token.js';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = 50;
const SCALE = Number(process.env.BENCH_SCALE ?? 100_000);
const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

// The load generator runs on CPU 1; each server is started on CPU 0.
if (hasTaskset) spawnSync('taskset', ['-p', '-c', '1', String(process.pid)]);

function startChild(script, args = []) {
  const cmd = hasTaskset ? 'taskset' : process.execPath;
  const argv = hasTaskset ? ['-c', '0', process.execPath, join(here, script), ...args] : [join(here, script), ...args];
  const started = performance.now();
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, ...JSON.parse(line), started });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
}

async function stopChild(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timeout = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timeout);
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

/** Start-up as a user sees it: `payments-sandbox` from spawn to the first 200 of an API call. */
async function cliStartup(headers) {
  const cmd = hasTaskset ? 'taskset' : process.execPath;
  const cli = join(here, '../dist/src/cli.js');
  const argv = hasTaskset ? ['-c', '0', process.execPath, cli, '--port', '0', '--log-level', 'warn'] : [cli, '--port', '0', '--log-level', 'warn'];
  const started = performance.now();
  const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the CLI exited with ${code}: ${err}`)));
  });
  const ms = await timeToFirst200(url, started, headers);
  await stopChild(child);
  return Math.round(ms);
}

async function timeToFirst200(url, started, headers) {
  for (;;) {
    const res = await fetch(`${url}/card-scheme-definitions`, { headers }).catch(() => null);
    if (res?.status === 200) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 5));
  }
}

function load(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function measure(name, opts) {
  await load({ ...opts, duration: WARMUP });
  const r = await load({ ...opts, duration: SECONDS });
  const row = {
    case: name,
    req_per_s: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    errors: r.errors + r.timeouts,
    non_2xx: r.non2xx,
  };
  console.error(`  ${name}: ${row.req_per_s} req/s, p99 ${row.p99_ms} ms`);
  return row;
}

/** Autocannon requests walking `paths` in order, round and round. */
function cycling(paths) {
  let next = 0;
  return [{ setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }];
}

/** The bare server serializing the same gift card pages: how fast a 128 KB list answer can be at all. */
function measureBaselineList(base) {
  const paths = Array.from({ length: base.pages }, (_, page) => `/gift-cards?limit=100&page=${page}`);
  return measure(`baseline GET /gift-cards?limit=100 (${base.pages} pages)`, { url: base.url, requests: cycling(paths) });
}

async function listPages(url, headers) {
  // The cursor walk: every page URL of GET /gift-cards?limit=100, in order.
  const pages = ['/gift-cards?limit=100'];
  for (;;) {
    const res = await fetch(url + pages[pages.length - 1], { headers });
    const body = await res.json();
    if (!body.next_cursor) return pages;
    pages.push(`/gift-cards?limit=100&cursor=${encodeURIComponent(body.next_cursor)}`);
  }
}

async function sandboxCases(label, args, headers) {
  const sb = await startChild('server.mjs', args);
  const startup = await timeToFirst200(sb.url, sb.started, headers);
  const buyer = 'b0000000-0000-4000-8000-000000000001';
  const pages = await listPages(sb.url, headers);
  const rows = [];
  rows.push(await measure(`${label} GET /card-scheme-definitions`, { url: `${sb.url}/card-scheme-definitions`, headers }));
  rows.push(await measure(`${label} PUT /buyers/{id}`, {
    url: `${sb.url}/buyers/${buyer}`, method: 'PUT', headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ display_name: 'Bench Buyer', external_identifier: 'buyer-ext-0001' }),
  }));
  rows.push(await measure(`${label} GET /gift-cards?limit=100 (cursor walk, ${pages.length} pages)`, { url: sb.url, headers, requests: cycling(pages) }));
  if (!args.length) {
    rows.push(await measure(`${label} scenario-answered GET (x-sandbox-scenario: server-error)`, {
      url: `${sb.url}/gift-cards`, headers: { ...headers, 'x-sandbox-scenario': 'server-error' }, expectBody: undefined,
    }));
  }
  const rss = rssMb(sb.child.pid);
  await stopChild(sb.child);
  return { rows, startup_ms: Math.round(startup), rss_mb: Math.round(rss) };
}

const token = await mintToken({ privateKeyPem: readFileSync(join(here, '../fixtures/keys/admin.pem'), 'utf8'), ttlSeconds: 3600 });
const headers = { authorization: `Bearer ${token}` };

console.error(`bench: ${SECONDS}s per case after ${WARMUP}s warm-up, ${CONNECTIONS} connections, taskset ${hasTaskset ? 'on' : 'off'}`);
const base = await startChild('baseline.mjs');
const baseline = [
  await measure('baseline GET', { url: `${base.url}/card-scheme-definitions` }),
  await measure('baseline PUT', {
    url: `${base.url}/buyers/b0000000-0000-4000-8000-000000000001`, method: 'PUT', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ display_name: 'Bench Buyer', external_identifier: 'buyer-ext-0001' }),
  }),
  await measureBaselineList(base),
];
await stopChild(base.child);

const startups = [];
for (let i = 0; i < 5; i++) startups.push(await cliStartup(headers));
const startupMs = startups.sort((a, b) => a - b)[2]; // the median of five cold starts
console.error(`  start-up to first 200 (CLI, median of 5): ${startupMs} ms`);
const fixtures = await sandboxCases('default', [], headers);
const memory = await sandboxCases(`scale ${SCALE} memory`, ['--scale', String(SCALE)], headers);
const dir = mkdtempSync(join(tmpdir(), 'sandbox-bench-'));
const file = await sandboxCases(`scale ${SCALE} file`, ['--scale', String(SCALE), '--data', join(dir, 'state.json')], headers);
rmSync(dir, { recursive: true, force: true });

const [bGet, bPut, bList] = baseline;
const ratio = (a, b) => Math.round((a / b) * 100) / 100;
const [get, put, list] = fixtures.rows;
const targets = {
  get_vs_baseline: { value: ratio(get.req_per_s, bGet.req_per_s), target: '>= 0.6' },
  put_vs_baseline: { value: ratio(put.req_per_s, bPut.req_per_s), target: '>= 0.5' },
  p99_ms_max: { value: Math.max(...fixtures.rows.map((r) => r.p99_ms)), target: '< 10' },
  p99_ms_get_put: { value: Math.max(get.p99_ms, put.p99_ms), target: '< 10' },
  list_vs_baseline_list: { value: ratio(list.req_per_s, bList.req_per_s), target: 'for information' },
  startup_ms: { value: startupMs, target: '< 500' },
  rss_mb_after_load: { value: fixtures.rss_mb, target: '< 150' },
};
for (const [label, run] of [['memory', memory], ['file', file]]) {
  run.rows.forEach((row, i) => {
    targets[`scale_${label}_${['get', 'put', 'list'][i]}_vs_default`] = { value: ratio(row.req_per_s, fixtures.rows[i].req_per_s), target: '>= 0.8' };
  });
}
const pass = (t) => {
  const [op, n] = t.target.split(' ');
  if (op === 'for') return null;
  return op === '>=' ? t.value >= Number(n) : t.value < Number(n);
};

const rows = [...baseline, ...fixtures.rows, ...memory.rows, ...file.rows].map((r) => {
  const b = r.case.includes('PUT') ? bPut : r.case.includes('gift-cards') ? bList : bGet;
  return { ...r, ratio_to_baseline: ratio(r.req_per_s, b.req_per_s) };
});
console.log('\n| case | req/s | p50 ms | p99 ms | errors | non-2xx | ratio to baseline |\n|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.case} | ${r.req_per_s} | ${r.p50_ms} | ${r.p99_ms} | ${r.errors} | ${r.non_2xx} | ${r.ratio_to_baseline} |`);
console.log(`\nstart-up to first 200: ${startupMs} ms (the CLI, median of 5: ${startups.join(', ')}; scale memory ${memory.startup_ms} ms, scale file ${file.startup_ms} ms, which include building the scaled store); RSS after load: ${fixtures.rss_mb} MB (scale memory ${memory.rss_mb} MB, scale file ${file.rss_mb} MB)`);
console.log('\n| target | value | wanted | met |\n|---|---|---|---|');
for (const [name, t] of Object.entries(targets)) console.log(`| ${name} | ${t.value} | ${t.target} | ${pass(t) === null ? '-' : pass(t) ? 'yes' : 'NO'} |`);

writeFileSync(join(here, 'results/latest.json'), `${JSON.stringify({
  date: new Date().toISOString(), node: process.version, seconds: SECONDS, warmup_seconds: WARMUP, connections: CONNECTIONS, taskset: hasTaskset, scale: SCALE,
  rows, startup_ms: { cli_median: startupMs, cli_runs: startups, default: fixtures.startup_ms, scale_memory: memory.startup_ms, scale_file: file.startup_ms },
  rss_mb: { default: fixtures.rss_mb, scale_memory: memory.rss_mb, scale_file: file.rss_mb },
  targets: Object.fromEntries(Object.entries(targets).map(([k, t]) => [k, { ...t, met: pass(t) }])),
}, null, 2)}\n`);
