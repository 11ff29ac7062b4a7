// The probe every client suite starts with: a present toolchain gives its version line; an absent
// one skips the suite with one line naming what to install, except under CI=true (.ci/run), where it
// fails the run, so that CI never passes with a suite left out.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toolchain } from './toolchain.js';

describe('toolchain()', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('reports a present command with its version line', () => {
    vi.stubEnv('CI', 'true');
    const node = toolchain('a suite', 'node', ['--version'], 'Node');
    expect(node).toEqual({ present: true, version: process.version });
  });

  it('skips with one line naming what to install when CI is not true', () => {
    vi.stubEnv('CI', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(toolchain('the X suite', 'no-such-toolchain-4010', ['--version'], 'the x package')).toEqual({ present: false, version: '' });
    expect(warn.mock.calls).toEqual([['the X suite: skipped, `no-such-toolchain-4010` is absent (install the x package)']]);
  });

  it('fails under CI=true instead of skipping', () => {
    vi.stubEnv('CI', 'true');
    expect(() => toolchain('the X suite', 'no-such-toolchain-4010', ['--version'], 'the x package')).toThrow(
      'the X suite: skipped, `no-such-toolchain-4010` is absent (install the x package); CI must run every suite',
    );
  });

  it('counts a command that exits non-zero as absent (a broken install)', () => {
    vi.stubEnv('CI', 'true');
    expect(() => toolchain('the X suite', 'node', ['-e', 'process.exit(3)'], 'Node')).toThrow('CI must run every suite');
  });
});
