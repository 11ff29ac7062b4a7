// The Go suite (clients/go: go test) against the built sandbox. Its module cache and GOPATH are
// clients/go/.cache (ignored), its build cache Go's own (go-support.ts): a cold run downloads the
// pinned modules and compiles what the machine's cache lacks, a warm run takes seconds. The official client
// github.com/gr4vy/gr4vy-go is not served by the Go module proxy this project reaches, so the suite
// sends what that client sends through net/http, its transport (clients/go/README.md).
import { describe, expect, it } from 'vitest';
import { toolchain } from '../support/toolchain.js';
import { GO_SUITE, goEnv, goTestSummary } from './go-support.js';
import { ROOT, runCommand, useClientSandbox } from './support.js';

const GO = toolchain('the Go client suite', 'go', ['version'], 'Go 1.26: https://go.dev/doc/install, or the golang package');
// A cold cache (module download and compiling net/http and crypto on two shared cores) can take
// minutes; a warm run takes about 5 s.
const BUDGET_MS = 480_000;

describe.skipIf(!GO.present)('the Go client suite (go test)', () => {
  const sandbox = useClientSandbox();

  it(
    'passes against the sandbox',
    async () => {
      const started = performance.now();
      // The root package only: the Testcontainers module's test (build tag container) runs in
      // npm run test:container.
      const run = await runCommand('go', ['test', '-count=1', '-v', '.'], {
        cwd: GO_SUITE,
        env: { ...goEnv(), SANDBOX_URL: sandbox().url, SANDBOX_ROOT: ROOT },
        timeoutMs: BUDGET_MS - 10_000,
      });
      const { passed, failed, skipped } = goTestSummary(run.output);
      console.log(`go suite (${GO.version}), ${((performance.now() - started) / 1000).toFixed(0)} s: ${passed} passed, ${failed} failed, ${skipped} skipped`);
      expect(run.code, run.output.slice(-8000)).toBe(0);
      expect(failed).toBe(0);
      expect(skipped).toBe(0);
      expect(passed).toBeGreaterThanOrEqual(8);
    },
    BUDGET_MS,
  );
});
