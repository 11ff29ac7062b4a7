// The CLI as a child process: --help, usage errors (one line, exit 2), and `token`, whose output
// the running sandbox accepts.
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START_OPTIONS } from '../../src/cli/options.js';
import { tempDir } from '../support/temp-dir.js';
import { cliToken, ensureBuilt, ROOT, type RunningCli, runCli, startCli } from './support/cli.js';

beforeAll(ensureBuilt, 180_000);

describe('payments-sandbox --help', () => {
  it('lists the commands and every start option with its flag and variable', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('Usage: payments-sandbox [command] [options]');
    expect(result.stdout).toMatch(/^ {2}start {4}run the sandbox server/m);
    expect(result.stdout).toMatch(/^ {2}token {4}print a signed bearer token/m);
    for (const option of START_OPTIONS) {
      expect(result.stdout).toContain(`--${option.flag}`);
      for (const name of option.env) expect(result.stdout).toContain(name);
      expect(result.stdout).toContain(`config key "${option.key}"`);
    }
  });

  it('has help for start and for token', async () => {
    const start = await runCli(['start', '--help']);
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(/^Usage: payments-sandbox \[start\] \[options\]/);
    expect(start.stdout).toContain('--config FILE');
    const token = await runCli(['token', '--help']);
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^Usage: payments-sandbox token \[--key FILE\] \[--scopes a,b\] \[--ttl 1h\]/);
    expect(token.stdout).toContain('TOKEN=$(npx payments-sandbox token)');
  });
});

describe('payments-sandbox --version', () => {
  it.each(['--version', '-v'])('%s prints the package version alone and exits 0', async (flag) => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const result = await runCli([flag], { cwd: tmpdir() });
    expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('usage errors', () => {
  const cwd = tempDir('sandbox-cli-');
  writeFileSync(join(cwd, 'broken.json'), '{ "seed": ');
  writeFileSync(join(cwd, 'typo.json'), JSON.stringify({ seeed: 1 }));

  const cases: Array<[string, string[], Record<string, string>, string]> = [
    ['an unknown option', ['--prot', '1'], {}, 'unknown option --prot (see payments-sandbox start --help)'],
    [
      'an unknown command',
      ['serve'],
      {},
      "unknown command 'serve' (commands: start, record, token, wait, trigger, upstream, listen, cluster; see payments-sandbox --help)",
    ],
    ['a bad flag value', ['--port', 'eighty'], {}, '--port must be an integer from 0 to 65535, got "eighty" (from flag --port)'],
    ['a bad variable', [], { SANDBOX_AUTH: 'off' }, '--auth must be one of jwt, none, got "off" (from environment variable SANDBOX_AUTH)'],
    ['an fsync policy that does not exist', ['--fsync', 'sometimes'], {}, '--fsync must be one of always, batch, never, got "sometimes" (from flag --fsync)'],
    ['a missing --config file', ['--config', 'nope.json'], {}, `the config file ${join(cwd, 'nope.json')} does not exist`],
    ['a config file that is not JSON', ['--config', 'broken.json'], {}, `the config file ${join(cwd, 'broken.json')} is not valid JSON`],
    ['an unknown config key', ['--config', 'typo.json'], {}, `the config file ${join(cwd, 'typo.json')} has unknown key "seeed"`],
    [
      'a public bind without admin token',
      ['--host', '0.0.0.0', '--port', '0'],
      {},
      '--host 0.0.0.0 makes the control API (/_sandbox) reachable from other machines',
    ],
    [
      'an admin token shorter than 16 characters',
      ['--port', '0', '--admin-token', 'hunter2'],
      {},
      '--admin-token must be at least 16 characters, got 7 characters (from flag --admin-token)',
    ],
    [
      'a fixtures folder that does not exist',
      ['--port', '0', '--fixtures-dir', 'no-such-dir'],
      {},
      `--fixtures-dir: ${join(cwd, 'no-such-dir')} is not a folder`,
    ],
    ['a data file in a missing folder', ['--port', '0', '--data-file', 'no/db.json'], {}, `--data-file (its folder): ${join(cwd, 'no')} is not a folder`],
    ['a token ttl that is not a duration', ['token', '--ttl', 'soon'], {}, "--ttl: 'soon' is not a duration: use a number of seconds or 30s, 15m, 1h, 2d"],
    ['a token key that does not exist', ['token', '--key', 'missing.pem'], {}, `--key: cannot read ${join(cwd, 'missing.pem')}: ENOENT`],
    ['a token key that is not a key', ['token', '--key', 'typo.json'], {}, `--key: ${join(cwd, 'typo.json')} is not a usable private key`],
    ['bad token scopes', ['token', '--scopes', ',,'], {}, '--scopes needs at least one scope'],
    ['an unknown token option', ['token', '--scope', 'x'], {}, 'unknown option --scope (see payments-sandbox token --help)'],
  ];

  it.each(cases)('prints one line and exits 2 for %s', async (_name, args, env, message) => {
    const result = await runCli(args, { env, cwd });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.endsWith('\n')).toBe(true);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr.startsWith(`payments-sandbox: ${message}`)).toBe(true);
  });

  it('exits 1 naming the file when a fixtures file is broken at boot', async () => {
    const dir = tempDir('sandbox-fx-');
    writeFileSync(join(dir, 'buyers.json'), JSON.stringify([{ display_name: 'no id' }]));
    const result = await runCli(['--port', '0', '--fixtures-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`payments-sandbox: cannot start: fixtures file ${join(dir, 'buyers.json')}: item 0 has no string "id"\n`);
  });
});

describe('payments-sandbox token', () => {
  let sandbox: RunningCli;
  beforeAll(async () => {
    sandbox = await startCli(['--port', '0', '--log-level', 'warn']);
  });
  afterAll(() => sandbox?.stop());

  it('prints only a token on stdout, signed by the admin key with every scope for an hour', async () => {
    const result = await runCli(['token']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = result.stdout.trim();
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES512', typ: 'JWT' });
    const claims = decodeJwt(token);
    expect(claims.scopes).toEqual(['*.read', '*.write', 'embed']);
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('makes a token the server accepts', async () => {
    const res = await fetch(`${sandbox.url}/connections`, { headers: { authorization: `Bearer ${await cliToken()}` } });
    expect(res.status).toBe(200);
    expect(Array.isArray(((await res.json()) as { items: unknown[] }).items)).toBe(true);
  });

  it('narrows scopes and lifetime: a 403 outside the scopes', async () => {
    const token = await cliToken(['--scopes', 'buyers.read', '--ttl', '90s']);
    const claims = decodeJwt(token);
    expect(claims.scopes).toEqual(['buyers.read']);
    expect(claims.exp! - claims.iat!).toBe(90);
    const res = await fetch(`${sandbox.url}/connections`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('forbidden');
    expect(body.message).toContain('Missing scope');
  });

  it('signs with another key given by --key (relative to the cwd)', async () => {
    const token = await cliToken(['--key', 'fixtures/keys/rsa.pem', '--ttl=15m']);
    expect(decodeProtectedHeader(token).alg).toBe('RS512');
    expect(decodeJwt(token).exp! - decodeJwt(token).iat!).toBe(900);
    const res = await fetch(`${sandbox.url}/connections`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });

  it('finds the default key from the package root whatever the cwd', async () => {
    const result = await runCli(['token'], { cwd: tmpdir() });
    expect(result.code).toBe(0);
    const res = await fetch(`${sandbox.url}/connections`, { headers: { authorization: `Bearer ${result.stdout.trim()}` } });
    expect(res.status).toBe(200);
  });
});

describe('a port in use (issue 37, part 4)', () => {
  it('says so with how to choose another: --port, SANDBOX_PORT or PORT, --port 0', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const result = await runCli(['--port', String(port)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `payments-sandbox: cannot start: port ${port} on 127.0.0.1 is already in use (another sandbox?): choose another with --port 4010 (or SANDBOX_PORT or PORT), or --port 0 for a free one (the banner prints it)\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
