// The test set-ups of docs/testing-in-ci.md, as a reader copies them: the CI steps start the sandbox and
// wait for it, the vitest example is the suite's own test word for word, the node:test file runs under
// `node --test`, the jest modules are called as jest calls them, and the Playwright webServer command
// starts a sandbox that answers on its URL. The files are written inside the repository, where `import
// 'payments-sandbox'` is the package itself.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startCommand, stopCommand, untilHealthy } from './commands.js';
import { blocks, page, ROOT, section } from './doc-pages.js';

const run = promisify(execFile);
const GUIDE = 'docs/testing-in-ci.md';
const dir = mkdtempSync(join(ROOT, '.docs-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function jsBlocks(heading: string): string[] {
  return blocks(section(GUIDE, heading))
    .filter((b) => b.lang === 'js' || b.lang === 'ts')
    .map((b) => b.body);
}

/** The code after the import lines (each on one line): what a reader writes in their test. */
function afterImports(code: string): string {
  const lines = code.split('\n');
  return lines
    .slice(lines.findLastIndex((line) => line.startsWith('import ')) + 1)
    .join('\n')
    .trim();
}

describe('docs/testing-in-ci.md', () => {
  it('starts the sandbox as the CI steps do, and waits until it is ready', { timeout: 90_000 }, async () => {
    const yaml = blocks(section(GUIDE, '## Any CI')).find((b) => b.lang === 'yaml')?.body ?? '';
    const steps = [...yaml.matchAll(/^- run: (.+?)(?:\s+#.*)?$/gm)].map((m) => m[1].trim());
    expect(steps).toEqual([
      'npx payments-sandbox --port 4010 --seed 4010 &',
      'npx payments-sandbox wait --timeout 30s',
      'SANDBOX_URL=http://127.0.0.1:4010/ns/$CI_JOB_ID npm test',
    ]);
    // The first two steps as written, on a free port: wait finds it as start would, through SANDBOX_PORT.
    const port = String(await freePort());
    const child = startCommand(steps[0].replace('4010 --seed', `${port} --seed`).replace(/ &$/, ''));
    try {
      const [command, ...args] = steps[1].split(' ');
      const waited = await run(command, args, { cwd: ROOT, env: { ...process.env, SANDBOX_PORT: port }, timeout: 80_000 });
      expect(waited.stdout + waited.stderr).toContain(`http://127.0.0.1:${port}`);
      const health = await (await fetch(`http://127.0.0.1:${port}/_sandbox/health`)).json();
      expect(health).toMatchObject({ status: 'ok', seed: 4010 });
    } finally {
      stopCommand(child);
    }
  });

  it('shows the vitest example that test/admin/readme-example.test.ts runs, word for word', () => {
    const [example] = jsBlocks('## vitest');
    expect(example).toContain("from 'payments-sandbox'");
    const suite = readFileSync(join(ROOT, 'test/admin/readme-example.test.ts'), 'utf8');
    expect(afterImports(suite)).toBe(afterImports(example));
  });

  it('runs the node:test file with node --test', { timeout: 90_000 }, async () => {
    const [file] = jsBlocks('## node:test');
    writeFileSync(join(dir, 'sandbox.test.mjs'), file);
    const { stdout } = await run(process.execPath, ['--test', join(dir, 'sandbox.test.mjs')], { cwd: ROOT, timeout: 80_000 });
    expect(stdout).toMatch(/^# pass 1$/m);
    expect(stdout).toMatch(/^# fail 0$/m);
  });

  it('starts one sandbox in jest.global-setup, gives a worker its namespace and a token, and stops it in the teardown', { timeout: 90_000 }, async () => {
    const [setup, teardown, worker] = jsBlocks('## jest');
    expect(page(GUIDE)).toContain("globalSetup: './jest.global-setup.mjs'");
    writeFileSync(join(dir, 'jest.global-setup.mjs'), setup);
    writeFileSync(join(dir, 'jest.global-teardown.mjs'), teardown);
    // The test file's lines, with jest's beforeEach and worker id as jest gives them.
    writeFileSync(join(dir, 'worker.mjs'), `${worker}\nexport { base, token };\n`);
    const hooks: Array<() => Promise<unknown>> = [];
    const saved = { url: process.env.SANDBOX_URL, worker: process.env.JEST_WORKER_ID };
    Object.assign(globalThis, { beforeEach: (hook: () => Promise<unknown>) => hooks.push(hook) });
    process.env.JEST_WORKER_ID = '3';
    try {
      await (await import(pathToFileURL(join(dir, 'jest.global-setup.mjs')).href)).default();
      const url = process.env.SANDBOX_URL as string;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const { base, token } = await import(pathToFileURL(join(dir, 'worker.mjs')).href);
      expect(base).toBe(`${url}/ns/jest-3`);
      expect(hooks).toHaveLength(1);
      expect((await hooks[0]()) as Response).toMatchObject({ status: 200 });
      const res = await fetch(`${base}/gift-cards?limit=2`, { headers: { authorization: `Bearer ${await token()}` } });
      expect(res.status).toBe(200);
      expect((await res.json()).items).toHaveLength(2);
      const namespaces = await (await fetch(`${url}/_sandbox/namespaces`)).json();
      expect(namespaces.items.map((n: { name: string }) => n.name)).toContain('jest-3');
      await (await import(pathToFileURL(join(dir, 'jest.global-teardown.mjs')).href)).default();
      await expect(fetch(`${url}/_sandbox/health`)).rejects.toThrow();
    } finally {
      delete (globalThis as { beforeEach?: unknown }).beforeEach;
      process.env.SANDBOX_URL = saved.url;
      process.env.JEST_WORKER_ID = saved.worker;
      if (saved.url === undefined) delete process.env.SANDBOX_URL;
      if (saved.worker === undefined) delete process.env.JEST_WORKER_ID;
    }
  });

  it("starts the sandbox with Playwright's webServer command, answering on its URL", { timeout: 90_000 }, async () => {
    const [config] = jsBlocks('## Playwright');
    const command = /command: '([^']+)'/.exec(config)?.[1] ?? '';
    const url = /url: '([^']+)'/.exec(config)?.[1] ?? '';
    expect(command).toBe('npx payments-sandbox --port 4010');
    expect(url).toBe('http://127.0.0.1:4010/_sandbox/health');
    const port = String(await freePort());
    // As Playwright does: the command in a shell of its own, the URL polled until it answers 200.
    const child = startCommand(command.replace('4010', port));
    try {
      const health = await untilHealthy(url.replace('4010', port));
      const body = await health.json();
      expect(body.status).toBe('ok');
      expect(body.namespace).toBe('default');
    } finally {
      stopCommand(child);
    }
  });
});
