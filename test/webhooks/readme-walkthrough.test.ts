// The five-line webhook walk-through of docs/webhooks.md, run as written by bash (with free ports for the
// sandbox and the receiver): the receiver logs five notifications, and the last line's own
// verification says true for each.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { tokenFor } from '../support/sandbox.js';
import { eventually } from './receiver.js';

/** bash -c, asynchronously: the sandbox answering its curl calls runs in this process. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    // stdio of the background receiver must not hold the shell's pipes open: it writes to hooks.log only.
    execFile('bash', ['-c', script], { cwd, env, timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('docs/webhooks.md: the walk-through', () => {
  let sandbox: RunningSandbox;
  let cwd: string;
  beforeAll(async () => {
    sandbox = await startSandbox({ logLevel: 'silent' });
    cwd = mkdtempSync(join(tmpdir(), 'sandbox-walkthrough-'));
  });
  afterAll(async () => {
    await sandbox.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('runs as written: five notifications, each verified true', async () => {
    const section = readFileSync(join(import.meta.dirname, '../../docs/webhooks.md'), 'utf8');
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const receiverPort = await freePort();
    const lines = block
      .trim()
      .split('\n')
      .map((line) =>
        line
          .replaceAll('127.0.0.1:4010', `127.0.0.1:${sandbox.port}`)
          .replace('.listen(3000)', `.listen(${receiverPort})`)
          .replace('127.0.0.1:3000', `127.0.0.1:${receiverPort}`),
      );
    expect(lines).toHaveLength(5);
    const env = { ...process.env, TOKEN: await tokenFor() };
    // Lines 1 to 4 in one shell (the receiver in the background, the secret exported), then wait for
    // the five notifications as a person would, then line 5 with the secret; the receiver is ended by its pid.
    const script = `${lines.slice(0, 4).join('\n')}\necho "$SECRET" > secret.txt\necho $! > receiver.pid\n`;
    await bash(script.replace(' > hooks.log &', ' > hooks.log 2>&1 < /dev/null &'), cwd, env);
    const pid = Number(readFileSync(join(cwd, 'receiver.pid'), 'utf8'));
    try {
      await eventually(
        async () => readFileSync(join(cwd, 'hooks.log'), 'utf8').trim().split('\n').filter(Boolean),
        (logged) => logged.length >= 5,
      );
      const secret = readFileSync(join(cwd, 'secret.txt'), 'utf8').trim();
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      const out = await bash(lines[4], cwd, { ...env, SECRET: secret });
      expect(out.trim().split('\n')).toEqual(['true', 'true', 'true', 'true', 'true']);
      const names = readFileSync(join(cwd, 'hooks.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line.split(' ').slice(2).join(' ')).name)
        .sort();
      expect(names).toEqual(
        ['report-execution.created', 'report-execution.dispatched', 'report-execution.processing', 'report-execution.succeeded', 'report.created'].sort(),
      );
    } finally {
      process.kill(pid);
    }
  });
});
