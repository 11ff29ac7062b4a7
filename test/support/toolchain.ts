// A suite whose toolchain is absent (Python, a JDK, Go, Chromium, podman) is skipped with one line
// naming what to install, so a contributor with Node alone gets a green `npm test`. In CI (CI=true,
// as .ci/run runs) every toolchain is installed, so an absent one fails the run instead of skipping.
import { spawnSync } from 'node:child_process';

export interface Toolchain {
  present: boolean;
  /** The version line the probe printed, for the suite's log. */
  version: string;
}

/**
 * Probes `command args` (e.g. `python3 --version`). Absent: prints one line naming `install`, and
 * throws under CI so that `.ci/run` fails rather than skip a suite.
 */
export function toolchain(suite: string, command: string, args: string[], install: string): Toolchain {
  const probe = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (probe.status === 0) return { present: true, version: `${probe.stdout}${probe.stderr}`.trim().split('\n')[0] };
  const line = `${suite}: skipped, \`${command}\` is absent (install ${install})`;
  if (process.env.CI === 'true') throw new Error(`${line}; CI must run every suite`);
  console.warn(line);
  return { present: false, version: '' };
}
