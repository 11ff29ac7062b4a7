// The Python suite (clients/python: pytest) of the official client gr4vy, pinned in
// clients/python/requirements.txt, against the built sandbox. Its virtual environment is
// clients/python/.venv (ignored): made and filled on the first run, found there later. Measured on
// the shared two-core machine under load: a cold install (no pip cache) 5.6 min, a warm run of the
// 138 tests about a minute.
import { describe, expect, it } from 'vitest';
import { toolchain } from '../support/toolchain.js';
import { ensureVenv, PYTHON_SUITE, pytestSummary, VENV_PYTHON } from './python-venv.js';
import { ROOT, runCommand, useClientSandbox } from './support.js';

const PYTHON = toolchain('the Python client suite', 'python3', ['--version'], 'Python 3.11 with venv: apt-get install -y python3 python3-venv');
const INSTALL_MS = 600_000;
const RUN_MS = 240_000;

describe.skipIf(!PYTHON.present)('the Python client suite (pytest, gr4vy)', () => {
  const sandbox = useClientSandbox(async () => {
    const started = performance.now();
    await ensureVenv('requirements.txt', INSTALL_MS);
    console.log(`python suite: venv ready in ${((performance.now() - started) / 1000).toFixed(0)} s (${PYTHON.version})`);
  }, INSTALL_MS);

  it(
    'passes against the sandbox',
    async () => {
      const started = performance.now();
      const run = await runCommand(VENV_PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], {
        cwd: PYTHON_SUITE,
        env: { SANDBOX_URL: sandbox().url, SANDBOX_ROOT: ROOT },
        timeoutMs: RUN_MS - 10_000,
      });
      const summary = pytestSummary(run.output);
      console.log(`python suite, ${((performance.now() - started) / 1000).toFixed(0)} s: ${summary}`);
      expect(run.code, run.output.slice(-8000)).toBe(0);
      expect(summary).toMatch(/^\d+ passed(, \d+ deselected)? in /);
      expect(Number(summary.match(/^(\d+) passed/)?.[1])).toBeGreaterThanOrEqual(130);
    },
    RUN_MS,
  );
});
