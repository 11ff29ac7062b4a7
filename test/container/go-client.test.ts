// The Go Testcontainers module (clients/go/sandboxcontainer, testcontainers-go) run by go test
// against the image this run built, through podman's Docker-compatible socket (or docker's). Its
// test carries the build tag `container`, so the plain Go suite (test/clients/go.test.ts) leaves it out.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GO_SUITE, goEnv, goTestSummary } from '../clients/go-support.js';
import { ROOT, runCommand } from '../clients/support.js';
import { toolchain } from '../support/toolchain.js';
import { type EngineSocket, engineEnv, engineSocket, sandboxImage } from './support.js';

const GO = toolchain('the Go Testcontainers module', 'go', ['version'], 'Go 1.26: the golang package');
// A cold module cache downloads testcontainers-go and its dependencies and compiles them.
const BUDGET_MS = 480_000;

describe.skipIf(!GO.present)('the Go Testcontainers module (testcontainers-go)', () => {
  let socket: EngineSocket | undefined;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-go-testcontainers-'));
    socket = await engineSocket(dir);
  });
  afterAll(() => {
    socket?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'starts the image, waits on its health route and serves a Go call in a namespace',
    async () => {
      const started = performance.now();
      const run = await runCommand('go', ['test', '-tags', 'container', '-count=1', '-v', './sandboxcontainer'], {
        cwd: GO_SUITE,
        env: {
          ...engineEnv(),
          ...goEnv(),
          ...(socket?.dockerHost ? { DOCKER_HOST: socket.dockerHost } : {}),
          TESTCONTAINERS_RYUK_DISABLED: 'true',
          SANDBOX_IMAGE: sandboxImage(),
        },
        timeoutMs: BUDGET_MS - 10_000,
      });
      const { passed, failed, skipped } = goTestSummary(run.output);
      console.log(
        `go testcontainers (${GO.version}), ${((performance.now() - started) / 1000).toFixed(0)} s: ${passed} passed, ${failed} failed, ${skipped} skipped`,
      );
      expect(run.code, run.output.slice(-8000)).toBe(0);
      expect({ passed, failed, skipped }).toEqual({ passed: 1, failed: 0, skipped: 0 });
    },
    BUDGET_MS,
  );

  it('is the snippet docs/containers.md shows (one tab of indentation removed)', () => {
    const source = readFileSync(join(GO_SUITE, 'sandboxcontainer/sandboxcontainer_test.go'), 'utf8');
    const region = source.slice(source.indexOf('// snippet-start\n') + '// snippet-start\n'.length, source.indexOf('\t// snippet-end'));
    const shown = region.replace(/^\t/gm, '');
    expect(shown.split('\n').length).toBeGreaterThan(5);
    expect(readFileSync(join(ROOT, 'docs/containers.md'), 'utf8')).toContain(`\`\`\`go\n${shown}\`\`\``);
  });
});
