// The Python suite (clients/python: pytest) of the official client gr4vy, pinned in
// clients/python/requirements.txt, against the built sandbox. Its virtual environment is
// clients/python/.venv (ignored): made and filled on the first run (a cold install took about 4 min
// on the shared machine, mostly downloads), found there later; a warm run takes about a minute.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCli } from '../cli/support/cli.js';
import { toolchain } from '../support/toolchain.js';
import { CLIENTS, ROOT, runCommand, startClientSandbox } from './support.js';

const SUITE = join(CLIENTS, 'python');
const VENV_PYTHON = join(SUITE, '.venv/bin/python');
const STAMP = join(SUITE, '.venv/requirements.txt');
const PYTHON = toolchain('the Python client suite', 'python3', ['--version'], 'Python 3.11 with venv: apt-get install -y python3 python3-venv');
const INSTALL_MS = 480_000;
const RUN_MS = 240_000;

/** Makes the virtual environment and installs the pins, unless it holds exactly these pins already. */
async function ensureVenv(): Promise<void> {
  const pins = readFileSync(join(SUITE, 'requirements.txt'), 'utf8');
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === pins && statSync(VENV_PYTHON, { throwIfNoEntry: false })) return;
  const steps: Array<[string, string[]]> = [
    ['python3', ['-m', 'venv', '.venv']],
    [VENV_PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', 'requirements.txt']],
  ];
  for (const [command, args] of steps) {
    const run = await runCommand(command, args, { cwd: SUITE, timeoutMs: INSTALL_MS });
    expect(run.code, run.output.slice(-4000)).toBe(0);
  }
  // Written last: a half-done install is redone next time.
  await runCommand(VENV_PYTHON, ['-c', `import shutil; shutil.copy('requirements.txt', '.venv/requirements.txt')`], { cwd: SUITE, timeoutMs: 10_000 });
}

describe.skipIf(!PYTHON.present)('the Python client suite (pytest, gr4vy)', () => {
  let sandbox: RunningCli;
  beforeAll(async () => {
    const started = performance.now();
    await ensureVenv();
    console.log(`python suite: venv ready in ${((performance.now() - started) / 1000).toFixed(0)} s (${PYTHON.version})`);
    sandbox = await startClientSandbox();
  }, INSTALL_MS + 60_000);
  afterAll(async () => {
    await sandbox?.stop();
  });

  it(
    'passes against the sandbox',
    async () => {
      const started = performance.now();
      const run = await runCommand(VENV_PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], {
        cwd: SUITE,
        env: { SANDBOX_URL: sandbox.url, SANDBOX_ROOT: ROOT, PYTHONDONTWRITEBYTECODE: '1' },
        timeoutMs: RUN_MS - 10_000,
      });
      // pytest's last line: "N passed, M deselected in S s" (and failures or errors, if any).
      const summary = run.output.trim().split('\n').at(-1) ?? '';
      console.log(`python suite, ${((performance.now() - started) / 1000).toFixed(0)} s: ${summary}`);
      expect(run.code, run.output.slice(-8000)).toBe(0);
      expect(summary).toMatch(/^\d+ passed(, \d+ deselected)? in /);
      expect(Number(summary.match(/^(\d+) passed/)?.[1])).toBeGreaterThanOrEqual(130);
    },
    RUN_MS,
  );
});
