// `payments-sandbox start` as a child process: the banner, option precedence seen through the
// running server, and graceful shutdown (exit 0, data file flushed, one-line summary).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { shutdownSummary } from '../../src/cli/start-command.js';
import { tempDir } from '../support/temp-dir.js';
import { cliToken, ensureBuilt, ROOT, type RunningCli, startCli } from './support/cli.js';

beforeAll(ensureBuilt, 180_000);

let running: RunningCli | undefined;
afterEach(async () => {
  await running?.stop('SIGKILL');
  running = undefined;
});

const bannerLines = (cli: RunningCli) => cli.stderr().split('\n');
const row = (cli: RunningCli, label: string) =>
  bannerLines(cli)
    .find((l) => l.startsWith(`  ${label.padEnd(9)} `))
    ?.slice(12);

describe('the line a stop ends with', () => {
  it('groups the request count by thousands, and says request for one', () => {
    expect(shutdownSummary(12.34, 1_234_567, null)).toBe('payments-sandbox stopped after 12.3 s: 1,234,567 requests, state was in memory');
    expect(shutdownSummary(0.04, 1, '/tmp/s.json')).toBe('payments-sandbox stopped after 0.0 s: 1 request, state flushed to /tmp/s.json');
    expect([0, 999, 1_000, 100_000].map((n) => shutdownSummary(1, n, null).split(': ')[1])).toEqual([
      '0 requests, state was in memory',
      '999 requests, state was in memory',
      '1,000 requests, state was in memory',
      '100,000 requests, state was in memory',
    ]);
  });
});

describe('start-up banner', () => {
  it('in the image (SANDBOX_IMAGE, set by the Dockerfile) gives a token command that works without Node (issue 37)', async () => {
    running = await startCli(['--port', '0'], { env: { SANDBOX_IMAGE: 'payments-sandbox' } });
    expect(row(running, 'token')).toBe(
      `TOKEN=$(docker run --rm payments-sandbox token) (podman run likewise; or POST ${running.url}/_sandbox/tokens, its "token" field)`,
    );
  });

  it('says where the sandbox is, its data, state, key file, token command and docs', async () => {
    running = await startCli(['--port', '0', '--seed', '77']);
    const { url } = running;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bannerLines(running)[0]).toMatch(/^payments-sandbox \d+\.\d+\.\d+ listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(row(running, 'seed')).toBe('77 (the same seed gives the same data)');
    expect(row(running, 'state')).toBe('in memory (lost on exit; use --data-file FILE to keep it)');
    expect(row(running, 'key file')).toBe(`${join(ROOT, 'fixtures/keys/admin.pem')} (well-known admin key pair, every scope)`);
    expect(existsSync(join(ROOT, 'fixtures/keys/admin.pem'))).toBe(true);
    expect(row(running, 'token')).toBe('TOKEN=$(npx payments-sandbox token)');
    expect(row(running, 'try')).toBe(`curl -H "Authorization: Bearer $TOKEN" ${url}/connections`);
    expect(row(running, 'docs')).toBe(`${url}/docs (control API: ${url}/docs/admin)`);
    expect(row(running, 'console')).toBe(`${url}/_sandbox/console`);
    expect(row(running, 'logs')).toBe('info, json on stdout');
    // The built command serves the console, its files included (htmx, the built script, the stylesheet).
    for (const path of [
      '/_sandbox/console',
      '/_sandbox/console/parts/clock',
      ...['htmx.min.js', 'console.js', 'requests.js', 'console.css'].map((a) => `/_sandbox/console/assets/${a}`),
    ]) {
      expect((await fetch(`${url}${path}`)).status, path).toBe(200);
    }
    expect(running.stderr()).not.toContain('WARNING');
    // The URL works, and the seed is the one the banner names.
    const health = (await (await fetch(`${url}/_sandbox/health`)).json()) as { seed: number };
    expect(health.seed).toBe(77);
    // Nothing but log lines on stdout.
    for (const line of running.stdout().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('warns loudly when auth is off and names the data file', async () => {
    const dir = tempDir('sandbox-banner-');
    running = await startCli(['--port', '0', '--auth', 'none', '--data-file', join(dir, 'db.json'), '--watch']);
    expect(row(running, 'auth')).toBe('none: no token needed');
    expect(row(running, 'state')).toBe(`data file ${join(dir, 'db.json')} (every change logged before its answer, fsync batch)`);
    expect(row(running, 'token')).toBeUndefined();
    expect(bannerLines(running)).toContain(
      'WARNING: --auth none: every request is accepted without a token; clients that send a bad token will not find out here',
    );
    expect(bannerLines(running)).toContain('WARNING: --watch has nothing to watch: set --fixtures-dir or --scenarios-dir');
    const res = await fetch(`${running.url}/connections`);
    expect(res.status).toBe(200);
  });

  it('warns about a public bind', async () => {
    running = await startCli(['--port', '0', '--host', '0.0.0.0'], { env: { SANDBOX_ADMIN_TOKEN: 'banner-secret-4010-token' } });
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bannerLines(running)[0]).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(bound to 0\.0\.0\.0\)$/);
    expect(bannerLines(running)).toContain('WARNING: listening on 0.0.0.0: reachable from other machines (the control API needs the admin token)');
    expect(row(running, 'control')).toBe(`${running.url}/_sandbox (needs the admin token)`);
    expect(running.stderr()).not.toContain('banner-secret-4010-token');
    expect((await fetch(`${running.url}/_sandbox/health`)).status).toBe(401);
    expect((await fetch(`${running.url}/_sandbox/health`, { headers: { 'x-sandbox-admin-token': 'banner-secret-4010-token' } })).status).toBe(200);
  });
});

describe('option precedence through the running server', () => {
  it('takes flag over env over config file, and reads the file from the cwd', async () => {
    const cwd = tempDir('sandbox-conf-');
    writeFileSync(join(cwd, 'sandbox.config.json'), JSON.stringify({ seed: 11, logLevel: 'error', auth: 'none', port: 0 }));
    running = await startCli(['--log-level', 'debug'], { cwd, env: { SANDBOX_SEED: '22', SANDBOX_LOG_LEVEL: 'warn' } });
    expect(row(running, 'seed')).toBe('22 (the same seed gives the same data)'); // env > file
    expect(row(running, 'logs')).toBe('debug, json on stdout (one line per request)'); // flag > env > file
    expect(row(running, 'auth')).toBe('none: no token needed'); // file > default
    expect(row(running, 'config')).toBe(join(cwd, 'sandbox.config.json'));
    const health = (await (await fetch(`${running.url}/_sandbox/health`)).json()) as { seed: number };
    expect(health.seed).toBe(22);
  });

  it('reads merchant account header aliases from flags and the environment, and says so in the banner', async () => {
    running = await startCli(['--port', '0', '--merchant-account-header', 'x-gr4vy-merchant-account-id'], {
      env: { SANDBOX_MERCHANT_ACCOUNT_HEADER: 'x-ignored-merchant-account-id' },
    });
    expect(row(running, 'merchant')).toBe('chosen by x-service-merchant-account-id or x-gr4vy-merchant-account-id'); // flag > env
    const token = await cliToken();
    const get = (headers: Record<string, string>) => fetch(`${running!.url}/gift-cards?limit=1`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    const byAlias = await get({ 'x-gr4vy-merchant-account-id': 'merchant-two' });
    expect(byAlias.status).toBe(200);
    expect(((await byAlias.json()) as { items: Array<{ merchant_account_id: string }> }).items[0].merchant_account_id).toBe('merchant-two');
    const misnamed = await get({ 'x-ignored-merchant-account-id': 'merchant-two' });
    expect(misnamed.status).toBe(400);
    expect(((await misnamed.json()) as { details: Array<{ type: string }> }).details[0].type).toBe('header_misnamed');
  });

  it('reads the port from plain PORT', async () => {
    running = await startCli([], { env: { PORT: '0' } });
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.url).not.toMatch(/:4010$/);
  });
});

describe('graceful shutdown', () => {
  const buyerId = WELL_KNOWN.buyers.default.id;

  it.each(['SIGTERM', 'SIGINT'] as const)('on %s flushes the data file, prints a summary and exits 0', async (signal) => {
    const dir = tempDir('sandbox-stop-');
    const dataFile = join(dir, 'state.json');
    running = await startCli(['--port', '0', '--data-file', dataFile]);
    const token = await cliToken();
    const name = `Renamed before ${signal}`;
    const res = await fetch(`${running.url}/buyers/${buyerId}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: name }),
    });
    expect(res.status).toBe(200);
    const code = await running.stop(signal);
    expect(code).toBe(0);
    const last = running.stderr().trimEnd().split('\n').at(-1);
    expect(last).toMatch(
      new RegExp(`^payments-sandbox stopped after \\d+\\.\\d s: 1 request, state flushed to ${dataFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
    const saved = JSON.parse(readFileSync(dataFile, 'utf8')) as { collections: { buyers: Array<{ id: string; display_name: string }> } };
    expect(saved.collections.buyers.find((b) => b.id === buyerId)?.display_name).toBe(name);
    // The summary is also a log line.
    const lines = running
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; signal?: string; requests?: number });
    expect(lines.at(-1)).toMatchObject({ msg: last, signal, requests: 1 });
  });

  it('keeps the flushed state on the next start from the same data file', async () => {
    const dir = tempDir('sandbox-restart-');
    const dataFile = join(dir, 'state.json');
    running = await startCli(['--port', '0', '--data-file', dataFile, '--auth', 'none']);
    await fetch(`${running.url}/buyers/${buyerId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'Kept' }),
    });
    await fetch(`${running.url}/connections`);
    expect(await running.stop('SIGTERM')).toBe(0);
    expect(running.stderr()).toContain(': 2 requests, state flushed to');
    running = await startCli(['--port', '0', '--data-file', dataFile]);
    const record = (await (await fetch(`${running.url}/_sandbox/records/buyers/${buyerId}`)).json()) as { display_name: string };
    expect(record.display_name).toBe('Kept');
  });

  it('says state was in memory when there is no data file', async () => {
    running = await startCli(['--port', '0']);
    expect(await running.stop('SIGINT')).toBe(0);
    expect(running.stderr().trimEnd().split('\n').at(-1)).toMatch(/^payments-sandbox stopped after \d+\.\d s: 0 requests, state was in memory$/);
  });
});
