// docs/hosted-flows.md's walk-through, run as written by bash against a sandbox on a free port: what
// it prints is exactly the page's "It prints" block (the port written back as 4010).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { tokenFor } from '../support/sandbox.js';

function bash(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', `set -eo pipefail\n${script}`], { env, timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}\n${stdout}`)) : resolve(stdout),
    );
  });
}

describe('docs/hosted-flows.md: the walk-through', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ logLevel: 'silent' });
  });
  afterAll(() => sandbox.close());

  it('prints what the page says it prints', async () => {
    const page = readFileSync(join(import.meta.dirname, '../../docs/hosted-flows.md'), 'utf8');
    const section = page.slice(page.indexOf('## Walk-through'));
    const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const printed = /```text\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(script.split('\n').filter(Boolean)).toHaveLength(11);
    const out = await bash(script.replaceAll('127.0.0.1:4010', `127.0.0.1:${sandbox.port}`), { ...process.env, TOKEN: await tokenFor() });
    expect(out.replaceAll(`127.0.0.1:${sandbox.port}`, '127.0.0.1:4010')).toBe(printed);
  });
});
