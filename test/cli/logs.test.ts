// Logs of the running CLI on stdout: JSON lines, one per request at debug with its request id
// (also sent back in x-request-id), and never a secret: no bearer token, admin token or key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliToken, ensureBuilt, ROOT, type RunningCli, startCli, waitFor } from './support/cli.js';

beforeAll(ensureBuilt, 180_000);

interface LogLine {
  level: string;
  msg: string;
  time: string;
  requestId?: string;
  method?: string;
  path?: string;
  status?: number;
  [key: string]: unknown;
}

const ADMIN_TOKEN = 'admin-token-never-logged-7f3a';

describe('request logs at debug', () => {
  let cli: RunningCli;
  let token: string;
  const responses: Array<{ id: string | null; status: number }> = [];

  beforeAll(async () => {
    cli = await startCli(['--port', '0', '--log-level', 'debug', '--admin-token', ADMIN_TOKEN]);
    token = await cliToken();
    const auth = { authorization: `Bearer ${token}` };
    const calls: Array<[string, RequestInit]> = [
      ['/connections', { headers: { ...auth, 'x-request-id': 'ci-run-42' } }],
      ['/connections', { headers: { authorization: `Bearer ${token}x` } }], // bad signature: 401
      ['/no-such-path?token=query-secret', { headers: auth }],
      ['/_sandbox/health', { headers: { 'x-sandbox-admin-token': ADMIN_TOKEN } }],
      ['/_sandbox/health', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }],
      ['/_sandbox/health', { headers: { 'x-sandbox-admin-token': 'wrong-admin-token' } }],
      ['/docs', {}],
    ];
    for (const [path, init] of calls) {
      const res = await fetch(`${cli.url}${path}`, init);
      await res.arrayBuffer();
      responses.push({ id: res.headers.get('x-request-id'), status: res.status });
    }
    await waitFor(() => (requestLines().length >= calls.length ? true : undefined), 'one log line per request');
    await cli.stop('SIGTERM');
  });
  afterAll(() => cli?.stop('SIGKILL'));

  const lines = (): LogLine[] =>
    cli
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogLine);
  const requestLines = () => lines().filter((l) => l.method !== undefined);

  it('writes only JSON lines with level, time and message', () => {
    for (const line of lines()) {
      expect(['debug', 'info', 'warn', 'error']).toContain(line.level);
      expect(new Date(line.time).toISOString()).toBe(line.time);
      expect(typeof line.msg).toBe('string');
    }
  });

  it('logs one debug line per request with the id sent back in x-request-id', () => {
    const logged = requestLines();
    expect(logged.map((l) => [l.method, l.path, l.status])).toEqual([
      ['GET', '/connections', 200],
      ['GET', '/connections', 401],
      ['GET', '/no-such-path', 404],
      ['GET', '/_sandbox/health', 200],
      ['GET', '/_sandbox/health', 200],
      ['GET', '/_sandbox/health', 403],
      ['GET', '/docs', 200],
    ]);
    expect(logged.map((l) => l.requestId)).toEqual(responses.map((r) => r.id));
    expect(responses.map((r) => r.status)).toEqual([200, 401, 404, 200, 200, 403, 200]);
    expect(logged[0]).toMatchObject({
      level: 'debug',
      requestId: 'ci-run-42',
      operation: 'listConnections',
      namespace: 'default',
      msg: 'GET /connections 200',
    });
    for (const line of logged) {
      expect(line.requestId).toMatch(/^(ci-run-42|[0-9a-f-]{36})$/);
      expect(typeof line.ms).toBe('number');
    }
  });

  it('never logs a secret', () => {
    const text = cli.stdout();
    const adminPem = readFileSync(join(ROOT, 'fixtures/keys/admin.pem'), 'utf8');
    for (const secret of [token, token.split('.')[2], ADMIN_TOKEN, 'wrong-admin-token', 'query-secret', adminPem.split('\n')[1], 'PRIVATE KEY']) {
      expect(text).not.toContain(secret);
    }
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('logs the start and the stop', () => {
    const all = lines();
    expect(all[0]).toMatchObject({ level: 'info', url: cli.url, seed: 4010, auth: 'jwt', msg: `listening on ${cli.url}` });
    expect(all.at(-1)).toMatchObject({ level: 'info', signal: 'SIGTERM', requests: 7 });
  });
});

describe('default log level', () => {
  it('logs no request lines at info', async () => {
    const cli = await startCli(['--port', '0']);
    try {
      const res = await fetch(`${cli.url}/connections`, { headers: { authorization: `Bearer ${await cliToken()}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
    const lines = cli
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogLine);
    expect(lines.map((l) => l.msg)).toEqual([
      `listening on ${cli.url}`,
      expect.stringMatching(/^payments-sandbox stopped after .* 1 request, state was in memory$/),
    ]);
  });
});
