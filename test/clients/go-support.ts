// What the Go suite (test/clients/go.test.ts) and the Go Testcontainers test
// (test/container/go-client.test.ts) share: the folder, the caches inside it, go test's verdicts.
import { join } from 'node:path';
import { CLIENTS } from './support.js';

export const GO_SUITE = join(CLIENTS, 'go');

/**
 * The environment every go command of the suite runs in: the modules it depends on inside the
 * repository. The build cache stays Go's own (~/.cache/go-build): it holds the compiled standard
 * library, which an empty cache in a fresh clone compiled again, 231 s on a loaded machine.
 */
export function goEnv(): Record<string, string> {
  const cache = join(GO_SUITE, '.cache');
  return {
    GOMODCACHE: join(cache, 'mod'),
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
