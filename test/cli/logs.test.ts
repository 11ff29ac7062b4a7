// Logs of the running CLI on stdout: JSON lines, one per request at debug with its request id
// (also sent back in x-request-id), and never a secret: no bearer token, admin token or key.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
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

  it('logs one line per request with the id sent back in x-request-id: debug below 400, info with code and message above', () => {
    const logged = requestLines();
    expect(logged.map((l) => l.level)).toEqual(['debug', 'info', 'info', 'debug', 'debug', 'info', 'debug']);
    expect(logged.filter((l) => (l.status ?? 0) < 400).every((l) => l.code === undefined && l.message === undefined)).toBe(true);
    expect(logged[2]).toMatchObject({ code: 'not_found', message: 'No operation is served at /no-such-path.' });
    expect(logged[5]).toMatchObject({
      code: 'forbidden',
      message: 'The admin token is wrong.',
      msg: 'GET /_sandbox/health 403 forbidden: The admin token is wrong.',
    });
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
  it('logs every 4xx and 5xx at info: request id, method, path, status, code and message', async () => {
    const cli = await startCli(['--port', '0']);
    const token = await cliToken();
    const calls: Array<[string, RequestInit]> = [
      ['/connections', { headers: { authorization: `Bearer ${token}` } }], // 200: no line
      ['/connections', { headers: { 'x-request-id': 'no-token-1' } }],
      ['/connections', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-request-id': 'wrong-method-1' } }],
      ['/gift-cards?limit=0', { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'bad-limit-1' } }],
      ['/gift-cards', { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'scenario-1', 'x-sandbox-scenario': 'server-error' } }],
      ['/_sandbox/records/buyers/nope', { headers: { 'x-request-id': 'no-record-1' } }],
    ];
    const statuses: number[] = [];
    try {
      for (const [path, init] of calls) {
        const res = await fetch(`${cli.url}${path}`, init);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      await waitFor(
        () =>
          cli
            .stdout()
            .split('\n')
            .filter((l) => l.includes('"status"')).length >= 5
            ? true
            : undefined,
        'five error lines',
      );
    } finally {
      expect(await cli.stop('SIGTERM')).toBe(0);
    }
    expect(statuses).toEqual([200, 401, 405, 400, 500, 404]);
    const lines = cli
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogLine)
      .filter((l) => l.status !== undefined);
    expect(lines.map((l) => [l.level, l.requestId, l.method, l.path, l.status, l.code])).toEqual([
      ['info', 'no-token-1', 'GET', '/connections', 401, 'unauthorized'],
      ['info', 'wrong-method-1', 'POST', '/connections', 405, 'method_not_allowed'],
      ['info', 'bad-limit-1', 'GET', '/gift-cards', 400, 'bad_request'],
      ['info', 'scenario-1', 'GET', '/gift-cards', 500, 'server_error'], // asked for: info, not warn
      ['info', 'no-record-1', 'GET', '/_sandbox/records/buyers/nope', 404, 'not_found'],
    ]);
    expect(lines[1].message).toBe('The API reference serves only GET on /connections, not POST.');
    expect(lines[1].msg).toBe('POST /connections 405 method_not_allowed: The API reference serves only GET on /connections, not POST.');
    expect(lines[2].message).toBe("Request is invalid: Query parameter 'limit' must be at least 1.");
    expect(lines[4].message).toBe('No buyers record has id nope in namespace default.');
    for (const line of lines) expect(typeof line.message === 'string' && line.message.length > 0).toBe(true);
  });

  it('logs a request Node refuses (headers too large) at info with its code', async () => {
    const cli = await startCli(['--port', '0']);
    try {
      const res = await fetch(`${cli.url}/connections`, { headers: { 'x-big': 'x'.repeat(20_000) } });
      expect(res.status).toBe(431);
      await waitFor(() => (cli.stdout().includes('request_header_fields_too_large') ? true : undefined), 'the 431 line');
    } finally {
      await cli.stop('SIGTERM');
    }
    const line = cli
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogLine)
      .find((l) => l.status === 431);
    expect(line).toMatchObject({ level: 'info', code: 'request_header_fields_too_large', message: expect.stringContaining('16 KiB') });
  });

  it('logs each request refused before the app at info with its code and message', async () => {
    const cli = await startCli(['--port', '0']);
    const refused: Array<[string[], number, string, RegExp]> = [
      [['GET /connections HTTP/1.1'], 400, 'bad_request', /^An HTTP\/1\.1 request needs a Host header/],
      [['GET /connections HTTP/1.1', 'host: a b'], 400, 'bad_request', /^The Host header is not a host name/],
      [['GET /connections HTTP/1.1', 'host: a', 'host: b'], 400, 'bad_request', /^The request has more than one Host header/],
      [['GET /ns/hh/%2e%2e/jj/connections HTTP/1.1', 'host: a'], 400, 'bad_request', /^The request path \/ns\/hh\/%2e%2e\/jj\/connections holds a dot segment/],
      [['GET /connections HTTP/1.1', 'host: a', 'expect: 200-ok'], 417, 'expectation_failed', /^The sandbox cannot meet Expect: 200-ok/],
      [['GET /connections HTTP/2.0', 'host: a'], 505, 'http_version_not_supported', /^HTTP\/2\.0 is not served on this connection/],
      [['CONNECT 127.0.0.1:9 HTTP/1.1', 'host: 127.0.0.1:9'], 405, 'method_not_allowed', /^The sandbox is not a proxy and serves no CONNECT/],
    ];
    const answers: string[] = [];
    try {
      const { hostname, port } = new URL(cli.url);
      for (const [lines] of refused) {
        answers.push(
          await new Promise<string>((resolve, reject) => {
            const socket = connect(Number(port), hostname, () => socket.write([...lines, 'connection: close', '', ''].join('\r\n')));
            let text = '';
            socket.on('data', (d) => (text += d));
            socket.on('close', () => resolve(text));
            socket.on('error', reject);
          }),
        );
      }
      await waitFor(
        () =>
          cli
            .stdout()
            .split('\n')
            .filter((l) => l.includes('"status":')).length >= refused.length
            ? true
            : undefined,
        'a line for each refused request',
      );
    } finally {
      await cli.stop('SIGTERM');
    }
    refused.forEach(([, status, code], i) => {
      expect(answers[i]).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(JSON.parse(answers[i].split('\r\n\r\n')[1])).toMatchObject({ type: 'error', status, code });
    });
    const lines = cli
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogLine)
      .filter((l) => l.status !== undefined);
    expect(lines).toEqual(
      refused.map(([, status, code, message]) => expect.objectContaining({ level: 'info', status, code, message: expect.stringMatching(message) })),
    );
    for (const line of lines) expect(line.msg).toBe(`${line.status} ${line.code}: ${line.message}`);
  });

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
