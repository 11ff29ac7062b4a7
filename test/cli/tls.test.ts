// `payments-sandbox --tls` as a child process: the sandbox CA made once in --tls-dir (or
// ~/.payments-sandbox/tls) and kept, its localhost certificate renewed when expired or issued by
// another CA, the banner's trust line working for Node (NODE_EXTRA_CA_CERTS), the user's own
// certificate, HTTPS beside HTTP (--https-port), and one-line errors for what cannot work.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCertificate } from '../../src/tls/sandbox-ca.js';
import { h1Request } from '../tls/support.js';
import { childEnv, ensureBuilt, type RunningCli, runCli, startCli } from './support/cli.js';

beforeAll(ensureBuilt, 180_000);

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sandbox-tls-cli-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let running: RunningCli | undefined;
afterEach(async () => {
  await running?.stop('SIGKILL');
  running = undefined;
});

const row = (cli: RunningCli, label: string) =>
  cli
    .stderr()
    .split('\n')
    .find((l) => l.startsWith(`  ${label.padEnd(9)} `))
    ?.slice(12);

/** The certificate the server presents. */
function servedCertificate(url: string, ca: Buffer): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    import('node:tls').then(({ connect }) => {
      const { hostname, port } = new URL(url);
      const socket = connect({ host: hostname, port: Number(port), ca, servername: 'localhost' }, () => {
        const raw = socket.getPeerX509Certificate();
        socket.end();
        if (raw) resolve(raw);
        else reject(new Error('no certificate'));
      });
      socket.on('error', reject);
    }, reject);
  });
}

/** fetch() in a child Node, which trusts only what NODE_EXTRA_CA_CERTS adds. */
function nodeFetch(url: string, extraCa: string | undefined): Promise<string> {
  const env = childEnv(extraCa ? { NODE_EXTRA_CA_CERTS: extraCa } : {});
  if (!extraCa) delete env.NODE_EXTRA_CA_CERTS;
  const script = `fetch(${JSON.stringify(url)}).then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.message))`;
  return new Promise((resolve) => execFile('node', ['-e', script], { env, timeout: 20_000 }, (_err, stdout) => resolve(stdout.trim())));
}

describe('--tls with the sandbox CA', () => {
  it('makes the CA once in --tls-dir, prints where it is and how to trust it, and Node trusts it through NODE_EXTRA_CA_CERTS', async () => {
    const dir = join(work, 'first', 'tls');
    running = await startCli(['--port', '0', '--tls', '--tls-dir', dir]);
    const caFile = join(dir, 'ca.pem');
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(row(running, 'https')).toBe('HTTP/2 and HTTP/1.1, certificate for localhost, 127.0.0.1 and ::1 issued by the sandbox CA');
    expect(row(running, 'CA')).toBe(`${caFile} (made now, kept for later starts: trust it once)`);
    expect(row(running, 'trust')).toBe(
      `Node: NODE_EXTRA_CA_CERTS=${caFile}  curl: --cacert ${caFile}  a device: install ca.pem as a trusted CA (docs/https-and-devices.md)`,
    );
    expect(row(running, 'try')).toBe(`curl --cacert ${caFile} -H "Authorization: Bearer $TOKEN" ${running.url}/connections`);
    expect(row(running, 'docs')).toBe(`${running.url}/docs (control API: ${running.url}/docs/admin)`);
    // Keys readable by their owner only, in a folder of its own.
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'localhost-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(caFile).mode & 0o777).toBe(0o644);
    const ca = new X509Certificate(readFileSync(caFile));
    expect(ca.ca).toBe(true);
    expect(ca.subject).toMatch(/CN=payments-sandbox local CA/);

    expect(await nodeFetch(`${running.url}/_sandbox/health`, caFile)).toBe('200');
    expect(await nodeFetch(`${running.url}/_sandbox/health`, undefined)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    const log = JSON.parse(running.stdout().split('\n')[0]);
    expect(log).toMatchObject({ msg: `listening on ${running.url}`, ca: caFile });
  });

  it('keeps the CA and its certificate for the next start from the same folder', async () => {
    const dir = join(work, 'kept', 'tls');
    running = await startCli(['--port', '0', '--tls', '--tls-dir', dir]);
    const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const first = await servedCertificate(running.url, Buffer.from(caPem));
    await running.stop('SIGTERM');
    running = await startCli(['--port', '0', '--tls'], { env: { SANDBOX_TLS_DIR: dir } });
    expect(row(running, 'CA')).toBe(`${join(dir, 'ca.pem')} (kept from an earlier start)`);
    expect(readFileSync(join(dir, 'ca.pem'), 'utf8')).toBe(caPem);
    const second = await servedCertificate(running.url, Buffer.from(caPem));
    expect(second.fingerprint256).toBe(first.fingerprint256);
  });

  it('renews the localhost certificate when it is about to expire, keeping the CA', async () => {
    const dir = join(work, 'expiring', 'tls');
    await sandboxCertificate(dir, new Date(Date.now() - 395 * 86_400_000)); // issued 395 days ago: 2 days left
    const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const old = new X509Certificate(readFileSync(join(dir, 'localhost.pem')));
    running = await startCli(['--port', '0', '--tls', '--tls-dir', dir]);
    expect(row(running, 'CA')).toBe(`${join(dir, 'ca.pem')} (kept; its localhost certificate renewed now)`);
    expect(readFileSync(join(dir, 'ca.pem'), 'utf8')).toBe(caPem);
    const served = await servedCertificate(running.url, Buffer.from(caPem));
    expect(served.fingerprint256).not.toBe(old.fingerprint256);
    expect(Date.parse(served.validTo)).toBeGreaterThan(Date.now() + 390 * 86_400_000);
    expect(served.checkIssued(new X509Certificate(caPem))).toBe(true);
  });

  it('issues a new localhost certificate when the CA in the folder changed', async () => {
    const dir = join(work, 'swapped', 'tls');
    const other = join(work, 'swapped', 'other');
    await sandboxCertificate(dir);
    await sandboxCertificate(other);
    copyFileSync(join(other, 'ca.pem'), join(dir, 'ca.pem'));
    copyFileSync(join(other, 'ca-key.pem'), join(dir, 'ca-key.pem'));
    running = await startCli(['--port', '0', '--tls', '--tls-dir', dir]);
    expect(row(running, 'CA')).toBe(`${join(dir, 'ca.pem')} (kept; its localhost certificate renewed now)`);
    const served = await servedCertificate(running.url, readFileSync(join(other, 'ca.pem')));
    expect(served.checkIssued(new X509Certificate(readFileSync(join(other, 'ca.pem'))))).toBe(true);
  });

  it('keeps the CA in ~/.payments-sandbox/tls by default', async () => {
    const home = join(work, 'home');
    mkdirSync(home);
    running = await startCli(['--port', '0', '--tls'], { env: { HOME: home } });
    expect(row(running, 'CA')).toBe(`${join(home, '.payments-sandbox', 'tls', 'ca.pem')} (made now, kept for later starts: trust it once)`);
    const health = await h1Request(`${running.url}/_sandbox/health`, { ca: readFileSync(join(home, '.payments-sandbox', 'tls', 'ca.pem')) });
    expect(health.status).toBe(200);
  });
});

describe('HTTPS beside HTTP, and your own certificate', () => {
  it('serves plain HTTP on --port and HTTPS on --https-port at once', async () => {
    const dir = join(work, 'both', 'tls');
    running = await startCli(['--port', '0', '--https-port', '0', '--tls-dir', dir]);
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.secondUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(running.secondUrl).not.toBe(running.url.replace('http:', 'https:'));
    expect(row(running, 'try')).toBe(`curl -H "Authorization: Bearer $TOKEN" ${running.url}/connections`);
    const plain = await fetch(`${running.url}/openapi.json`);
    expect((await plain.json()).servers[0].url).toBe(running.url);
    const secure = await h1Request(`${running.secondUrl}/openapi.json`, { ca: readFileSync(join(dir, 'ca.pem')) });
    expect(JSON.parse(secure.body).servers[0].url).toBe(running.secondUrl);
    const log = JSON.parse(running.stdout().split('\n')[0]);
    expect(log).toMatchObject({ url: running.url, httpsUrl: running.secondUrl, msg: `listening on ${running.url} and ${running.secondUrl}` });
  });

  it('serves your certificate with --tls-cert and --tls-key (HTTPS implied), trusted through your CA', async () => {
    const mine = join(work, 'mine');
    await sandboxCertificate(mine);
    running = await startCli([
      '--port',
      '0',
      '--tls-cert',
      join(mine, 'localhost.pem'),
      '--tls-key',
      join(mine, 'localhost-key.pem'),
      '--tls-dir',
      join(work, 'unused'),
    ]);
    expect(running.url).toMatch(/^https:/);
    expect(row(running, 'https')).toBe(`HTTP/2 and HTTP/1.1, with your certificate ${join(mine, 'localhost.pem')}`);
    expect(row(running, 'CA')).toBeUndefined();
    const health = await h1Request(`${running.url}/_sandbox/health`, { ca: readFileSync(join(mine, 'ca.pem')) });
    expect(health.status).toBe(200);
    expect(statSync(join(work, 'unused'), { throwIfNoEntry: false })).toBeUndefined(); // no sandbox CA made
  });
});

describe('TLS mistakes', () => {
  it.each([
    [['--tls-cert', 'cert.pem'], "--tls-cert and --tls-key go together: give --tls-key too (or neither, for the sandbox CA's certificate)"],
    [['--tls', '--https-port', '4443'], '--https-port serves HTTPS beside plain HTTP on --port, and --tls makes --port itself HTTPS: use one of them'],
    [['--tls-cert', 'missing.pem', '--tls-key', 'key.pem'], '--tls-cert: {cwd}/missing.pem is not a file'],
    [['--tls', '--tls-dir', 'a-file'], '--tls-dir: {cwd}/a-file is not a folder'],
  ])('%j is one line and exit code 2', async (args, message) => {
    const cwd = join(work, 'mistakes');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, 'a-file'), 'not a folder');
    writeFileSync(join(cwd, 'key.pem'), 'x');
    const result = await runCli(['--port', '0', ...args], { cwd });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`payments-sandbox: ${message.replace('{cwd}', cwd)}\n`);
  });

  it("stops with exit code 1 when the key is not the certificate's, or a file is not PEM", async () => {
    const a = join(work, 'pair-a');
    const b = join(work, 'pair-b');
    await sandboxCertificate(a);
    await sandboxCertificate(b);
    const mismatch = await runCli(['--port', '0', '--tls-cert', join(a, 'localhost.pem'), '--tls-key', join(b, 'localhost-key.pem')]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toBe(
      `payments-sandbox: cannot start: --tls-key: ${join(b, 'localhost-key.pem')} is not the private key of the certificate ${join(a, 'localhost.pem')}\n`,
    );
    const notPem = await runCli(['--port', '0', '--tls-cert', join(a, 'localhost-key.pem'), '--tls-key', join(a, 'localhost-key.pem')]);
    expect(notPem.code).toBe(1);
    expect(notPem.stderr).toMatch(new RegExp(`^payments-sandbox: cannot start: --tls-cert: ${join(a, 'localhost-key.pem')} is not a PEM certificate`));
  });
});
