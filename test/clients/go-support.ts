// What the Go suite (test/clients/go.test.ts) and the Go Testcontainers test
// (test/container/go-client.test.ts) share: the folder, the caches inside it, go test's verdicts.
import { join } from 'node:path';
import { CLIENTS } from './support.js';

export const GO_SUITE = join(CLIENTS, 'go');

/** The environment every go command of the suite runs in: caches inside the repository. */
export function goEnv(): Record<string, string> {
  const cache = join(GO_SUITE, '.cache');
  return {
    GOMODCACHE: join(cache, 'mod'),
    GOCACHE: join(cache, 'build'),
    GOPATH: join(cache, 'gopath'),
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-mod=readonly',
  };
}

/** go test -v's verdicts: one `--- PASS`/`--- FAIL`/`--- SKIP` line per test and subtest. */
export function goTestSummary(output: string): { passed: number; failed: number; skipped: number } {
  const count = (verdict: string) => output.match(new RegExp(`^\\s*--- ${verdict}: `, 'gm'))?.length ?? 0;
  return { passed: count('PASS'), failed: count('FAIL'), skipped: count('SKIP') };
}
