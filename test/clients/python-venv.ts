// The Python suite's virtual environment (clients/python/.venv, ignored): made and filled from a
// requirements file of exact pins when absent or when its pins changed, found as it is otherwise.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CLIENTS, runCommand } from './support.js';

export const PYTHON_SUITE = join(CLIENTS, 'python');
export const VENV_PYTHON = join(PYTHON_SUITE, '.venv/bin/python');

/** Installs `requirements` (a file of clients/python) unless the venv holds exactly these pins already. */
export async function ensureVenv(requirements: string, timeoutMs: number): Promise<void> {
  // The stamp names the file and holds its text and the files it includes (-r).
  const read = (file: string) => readFileSync(join(PYTHON_SUITE, file), 'utf8');
  const pins = `${requirements}\n${read(requirements)}${read('requirements.txt')}`;
  const stamp = join(PYTHON_SUITE, '.venv', `pins-${requirements}`);
  if (existsSync(VENV_PYTHON) && existsSync(stamp) && readFileSync(stamp, 'utf8') === pins) return;
  const steps: Array<[string, string[]]> = [
    ['python3', ['-m', 'venv', '.venv']],
    [VENV_PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', requirements]],
  ];
  for (const [command, args] of steps) {
    const run = await runCommand(command, args, { cwd: PYTHON_SUITE, timeoutMs });
    expect(run.code, run.output.slice(-4000)).toBe(0);
  }
  // Written last: a half-done install is redone next time.
  const write = await runCommand(VENV_PYTHON, ['-c', 'import sys; open(sys.argv[1], "w").write(sys.argv[2])', stamp, pins], {
    cwd: PYTHON_SUITE,
    timeoutMs: 10_000,
  });
  expect(write.code, write.output).toBe(0);
}

/** pytest's last line, "N passed, M deselected in S s" (with failures or errors, if any). */
export function pytestSummary(output: string): string {
  return output.trim().split('\n').at(-1) ?? '';
}
