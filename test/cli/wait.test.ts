// `payments-sandbox wait` as a child process: exit 0 once the sandbox is healthy (also when it starts
// after the wait did), 1 with one line when the time is up or the admin token is refused, 2 for a
// usage error; the URL from --url or from the start options (SANDBOX_*, sandbox.config.json), and
// https trusted through the sandbox CA of the same --tls-dir.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type CliResult, childEnv, ensureBuilt, type RunningCli, runCli, startCli } from './support/cli.js';

beforeAll(ensureBuilt, 180_000);

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sandbox-wait-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let running: RunningCli | undefined;
afterEach(async () => {
  await running?.stop('SIGKILL');
  running = undefined;
});

/** A port nothing listens on (taken from the system, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `wait` started without waiting for it to end. */
function startWait(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn('node', [CLI, 'wait', ...args], { cwd: work, env: childEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr })));
  return { child, done };
}

const READY = (url: string) =>
  new RegExp(`^payments-sandbox \\d+\\.\\d+\\.\\d+ is ready at ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(\\d+\\.\\d s\\)\\n$`);

describe('payments-sandbox wait', () => {
  it('exits 0 with one line as soon as the sandbox at --url is healthy', async () => {
    running = await startCli(['--port', '0']);
    const result = await runCli(['wait', '--url', running.url, '--timeout', '10s']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(READY(running.url));
    // A namespace URL works too: its health is under the same prefix.
    const namespaced = await runCli(['wait', `--url=${running.url}/ns/ci-job-1/`]);
    expect(namespaced.code).toBe(0);
  });

  it('waits for a sandbox that starts after it, on the port the start options give', async () => {
    const port = await freePort();
    const waiting = startWait(['--timeout', '30s'], { SANDBOX_PORT: String(port) });
    await new Promise((resolve) => setTimeout(resolve, 400)); // it is polling a port with nothing on it
    expect(waiting.child.exitCode).toBeNull();
    running = await startCli([], { env: { SANDBOX_PORT: String(port) } });
    const result = await waiting.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(READY(`http://127.0.0.1:${port}`));
  });

  it('reads the port from sandbox.config.json in the current folder', async () => {
    running = await startCli(['--port', '0']);
    const cwd = mkdtempSync(join(work, 'conf-'));
    writeFileSync(join(cwd, 'sandbox.config.json'), JSON.stringify({ port: Number(new URL(running.url).port), seed: 5 }));
    const result = await runCli(['wait'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(READY(running.url));
  });

  it('exits 1 with one line naming the URL and the last failure when the time is up', async () => {
    const port = await freePort();
    const result = await runCli(['wait', '--url', `http://127.0.0.1:${port}`, '--timeout', '700ms']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`payments-sandbox: no sandbox was ready at http://127.0.0.1:${port} within 700 ms (last try: connection refused)\n`);
  });

  it('does not take another server on the port for the sandbox', async () => {
    const other = createServer((_req, res) => res.writeHead(404).end('nothing here'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const result = await runCli(['wait', '--url', url, '--timeout', '1']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `payments-sandbox: no sandbox was ready at ${url} within 1 s (last try: HTTP 404 from ${url}/_sandbox/health, not the sandbox's health)\n`,
      );
    } finally {
      other.close();
    }
  });

  it('sends the admin token of the start options, and says at once when the control API refuses it', async () => {
    running = await startCli(['--port', '0', '--admin-token', 'wait-secret-of-16-chars']);
    const without = await runCli(['wait', '--url', running.url, '--timeout', '30s']);
    expect(without).toEqual({
      code: 1,
      stdout: '',
      stderr: `payments-sandbox: the sandbox at ${running.url} is up but its control API needs the admin token: set SANDBOX_ADMIN_TOKEN\n`,
    });
    const wrong = await runCli(['wait', '--url', running.url], { env: { SANDBOX_ADMIN_TOKEN: 'not-it-but-long-enough' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      `payments-sandbox: the sandbox at ${running.url} is up but its control API refuses the admin token given (SANDBOX_ADMIN_TOKEN or the config file)\n`,
    );
    const right = await runCli(['wait', '--url', running.url], { env: { SANDBOX_ADMIN_TOKEN: 'wait-secret-of-16-chars' } });
    expect(right.code).toBe(0);
  });

  it('trusts the sandbox CA of the same --tls-dir for an https URL, and only that', async () => {
    const tlsDir = join(work, 'tls');
    running = await startCli(['--port', '0', '--tls', '--tls-dir', tlsDir]);
    const trusted = await runCli(['wait', '--url', running.url], { env: { SANDBOX_TLS_DIR: tlsDir } });
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toMatch(READY(running.url));
    const elsewhere = await runCli(['wait', '--url', running.url, '--timeout', '500ms'], {
      env: { SANDBOX_TLS_DIR: join(work, 'no-ca-here'), NODE_EXTRA_CA_CERTS: '' },
    });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('(last try: the certificate is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)');
    // With --tls in the start options, the default URL is https.
    const fromOptions = await runCli(['wait'], { env: { SANDBOX_TLS: 'true', SANDBOX_TLS_DIR: tlsDir, SANDBOX_PORT: new URL(running.url).port } });
    expect(fromOptions.code).toBe(0);
    expect(fromOptions.stdout).toMatch(READY(running.url));
  });

  it.each([
    [['--timeout', 'soon'], '--timeout must be a duration like 30s, 500ms or 2m (or a number of seconds), got "soon"'],
    [['--timeout', '0s'], '--timeout must be a duration like 30s, 500ms or 2m (or a number of seconds), got "0s"'],
    [['--url', 'ftp://127.0.0.1:1'], '--url must be an http:// or https:// URL, got "ftp://127.0.0.1:1"'],
    [['--url', 'not a url'], '--url must be an http:// or https:// URL, got "not a url"'],
    [['--port', '1'], 'unknown option --port (see payments-sandbox wait --help)'],
    [['--url'], '--url needs a value'],
  ])('%j is a usage error: one line, exit 2', async (args, message) => {
    const result = await runCli(['wait', ...args]);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `payments-sandbox: ${message}\n` });
  });

  it('asks for --url when the start options pick a free port', async () => {
    const result = await runCli(['wait'], { env: { SANDBOX_PORT: '0' } });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'payments-sandbox: the start options say --port 0 (a free port): give the URL the sandbox printed with --url\n',
    });
  });

  it('has --help', async () => {
    const result = await runCli(['wait', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: payments-sandbox wait \[--url URL\] \[--timeout 30s\]/);
    expect((await runCli(['--help'])).stdout).toMatch(/^ {2}wait {5}wait until a sandbox is ready/m);
  });
});
