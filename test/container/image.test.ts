// The image, run the way docs/containers.md says: published on 127.0.0.1, it answers within 2 s of
// `run`, as a non-root user, stops within 3 s of SIGTERM, answers the 19 operations as the process
// does, prints a token, keeps --data-file in its volume across containers, and serves the control
// API without a token (--control-api open, set by the image) unless SANDBOX_ADMIN_TOKEN is given.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { freePort, ROOT, waitFor } from '../cluster/support.js';
import { expectSameAnswer, REQUESTS, send } from './operations.js';
import {
  cli,
  cliAsync,
  containerName,
  http,
  httpJson,
  logs,
  mustCli,
  type RunningContainer,
  removeContainers,
  runSandboxContainer,
  sandboxImage,
  waitHealthy,
} from './support.js';

const FROZEN = { now: '2026-11-22T10:00:00.000Z', frozen: true };
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const json = httpJson;

describe('the image', () => {
  let box: RunningContainer;
  let secondsToAnswer: number;
  beforeAll(async () => {
    box = await runSandboxContainer({ healthTimer: true });
    secondsToAnswer = (await waitHealthy(box)) / 1000;
  });
  afterAll(() => removeContainers(box?.name));

  it('answers on the port published on 127.0.0.1 within 2 s of run', () => {
    process.stdout.write(`container answered ${secondsToAnswer.toFixed(2)} s after run\n`);
    expect(secondsToAnswer).toBeLessThan(2);
  });

  it('runs the sandbox as PID 1 under a user that is not root', () => {
    const status = mustCli(['exec', box.name, 'cat', '/proc/1/status']);
    expect(status).toMatch(/^Uid:\t1000\t1000\t1000\t1000$/m);
    expect(status).toMatch(/^Gid:\t1000\t1000\t1000\t1000$/m);
    expect(mustCli(['exec', box.name, 'cat', '/proc/1/cmdline']).split('\0')).toEqual([
      'node',
      '--max-semi-space-size=8',
      '/app/dist/bundle/cli.js',
      'start',
      '',
    ]);
  });

  it('carries no sources, tests or dev dependencies: only the bundle and what it reads', () => {
    expect(mustCli(['exec', box.name, 'ls', '/app']).split('\n').sort()).toEqual([
      'dist',
      'fixtures',
      'node_modules',
      'openapi.admin.json',
      'openapi.json',
      'package.json',
      'scenarios',
    ]);
    expect(mustCli(['exec', box.name, 'ls', '/app/node_modules'])).toBe('swagger-ui-dist');
    expect(mustCli(['exec', box.name, 'ls', '/app/dist']).split('\n').sort()).toEqual(['bundle', 'fixtures', 'scenarios-catalog.json']);
  });

  it('passes its HEALTHCHECK', () => {
    const r = cli(['healthcheck', 'run', box.name]);
    expect(r.status, r.stderr).toBe(0);
  });

  it('serves the control API to the published port without a token, and says so at start', async () => {
    const reset = await json(`${box.url}/_sandbox/reset`, { method: 'POST', body: {} });
    expect(reset.status).toBe(200);
    expect(logs(box.name)).toContain(
      'WARNING: listening on 0.0.0.0 with --control-api open: whoever reaches this port can read and reset every namespace; publish it on 127.0.0.1 only, or set --admin-token',
    );
  });

  it('prints a token with `run --rm IMAGE token` that the running container accepts', async () => {
    const r = cli(['run', '--rm', sandboxImage(), 'token', '--scopes', 'connections.read']);
    expect(r.status, r.stderr).toBe(0);
    const token = r.stdout.trim();
    expect(r.stdout).toBe(`${token}\n`);
    expect(token).toMatch(JWT);
    const res = await http(`${box.url}/connections`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const wrongScope = await http(`${box.url}/card-scheme-definitions`, { headers: { authorization: `Bearer ${token}` } });
    expect(wrongScope.status).toBe(403);
  });
});

describe('the 19 operations, as the process does', () => {
  let box: RunningContainer;
  let proc: ChildProcess;
  let procUrl: string;
  beforeAll(async () => {
    box = await runSandboxContainer();
    const port = await freePort();
    procUrl = `http://127.0.0.1:${port}`;
    proc = spawn(process.execPath, [join(ROOT, 'dist/bundle/cli.js'), '--port', String(port), '--log-level', 'silent'], { stdio: 'ignore' });
    await waitHealthy(box);
    await waitFor('the process healthy', async () => ((await http(`${procUrl}/_sandbox/health`)).status === 200 ? true : undefined));
  });
  afterAll(() => {
    proc?.kill('SIGKILL');
    removeContainers(box?.name);
  });

  it('answers every request of the table with the same status, content type and body', async () => {
    const token = mustCli(['run', '--rm', sandboxImage(), 'token']);
    const covered = new Set(REQUESTS.map((r) => r.operation));
    expect(covered.size).toBe(19);
    for (const url of [box.url, procUrl]) expect((await json(`${url}/_sandbox/clock`, { method: 'PUT', body: FROZEN })).status).toBe(200);
    const ids = new Map<string, string>();
    const statuses = new Set<number>();
    for (const [i, request] of REQUESTS.entries()) {
      const where = `#${i} ${request.method} ${request.path}`;
      const fromProcess = await send(procUrl, request, token);
      const fromContainer = await send(box.url, request, token);
      expect(fromContainer.status, `${where}: ${JSON.stringify(fromContainer.body).slice(0, 300)}`).toBe(fromProcess.status);
      expect(fromContainer.contentType, where).toBe(fromProcess.contentType);
      expectSameAnswer(fromContainer.body, fromProcess.body, where, ids);
      statuses.add(fromProcess.status);
    }
    // Error paths compared as closely as successes: the table has both.
    expect([...statuses].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(3);
    expect(ids.size).toBeGreaterThanOrEqual(2); // new records were made on both sides, their ids matched
  });
});

describe('stopping and persisting', () => {
  const volume = containerName('data');
  const names: string[] = [];
  beforeAll(() => mustCli(['volume', 'create', volume]));
  afterAll(() => {
    removeContainers(...names);
    cli(['volume', 'rm', '-f', volume]);
  });
  const BUYER = WELL_KNOWN.buyers.default.id;
  const CHECKOUT = WELL_KNOWN.checkoutSessions.default.id;
  const withData = { env: { SANDBOX_DATA_FILE: '/data/sandbox.json' }, volumes: [`${volume}:/data`] };

  it('stops within 3 s of SIGTERM with exit code 0, having flushed the data file; a new container on the volume has the changes', async () => {
    const first = await runSandboxContainer(withData);
    names.push(first.name);
    await waitHealthy(first);
    const token = mustCli(['run', '--rm', sandboxImage(), 'token']);
    const auth = { authorization: `Bearer ${token}` };
    const put = await json(`${first.url}/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: { display_name: 'Persisted Jane' } });
    expect(put.status).toBe(200);
    expect((await http(`${first.url}/checkout/sessions/${CHECKOUT}`, { method: 'DELETE', headers: auth })).status).toBe(204);

    const signalled = performance.now();
    mustCli(['kill', '--signal', 'TERM', first.name]);
    const waited = await cliAsync(['wait', first.name]);
    const seconds = (performance.now() - signalled) / 1000;
    process.stdout.write(`container stopped ${seconds.toFixed(2)} s after SIGTERM\n`);
    expect(seconds).toBeLessThan(3);
    expect(waited.stdout.trim()).toBe('0');
    expect(logs(first.name)).toMatch(/payments-sandbox stopped after [\d.]+ s: \d+ requests, state flushed to \/data\/sandbox\.json/);

    const second = await runSandboxContainer(withData);
    names.push(second.name);
    await waitHealthy(second);
    const record = await json(`${second.url}/_sandbox/records/buyers/${BUYER}`);
    expect(record.status).toBe(200);
    expect(record.body.display_name).toBe('Persisted Jane');
    expect(record.body.updated_at).toBe(put.body.updated_at);
    expect((await http(`${second.url}/checkout/sessions/${CHECKOUT}`, { method: 'DELETE', headers: auth })).status).toBe(404);
  });
});

describe('with SANDBOX_ADMIN_TOKEN', () => {
  let box: RunningContainer;
  const ADMIN = 'container-admin-token-0123';
  beforeAll(async () => {
    box = await runSandboxContainer({ env: { SANDBOX_ADMIN_TOKEN: ADMIN } });
    await waitHealthy(box, 20_000, { 'x-sandbox-admin-token': ADMIN });
  });
  afterAll(() => removeContainers(box?.name));

  it('requires it on the control API, and its HEALTHCHECK sends it', async () => {
    const none = await json(`${box.url}/_sandbox/reset`, { method: 'POST', body: {} });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthorized');
    const given = await json(`${box.url}/_sandbox/reset`, { method: 'POST', body: {}, headers: { 'x-sandbox-admin-token': ADMIN } });
    expect(given.status).toBe(200);
    const r = cli(['healthcheck', 'run', box.name]);
    expect(r.status, r.stderr).toBe(0);
    expect(logs(box.name)).not.toContain('--control-api open');
  });
});

describe('a wrong option', () => {
  it('is one line and exit code 2, as with the command', () => {
    const r = cli(['run', '--rm', sandboxImage(), '--seed', 'many']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toBe('payments-sandbox: --seed must be an integer from 0 to 9007199254740991, got "many" (from flag --seed)');
  });
});
