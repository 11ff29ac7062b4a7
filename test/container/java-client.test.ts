// The Java Testcontainers module (clients/java: PaymentsSandboxContainer) against the image built
// for this run, through the engine's Docker-compatible socket (engineSocket: podman system service,
// Ryuk disabled). Its JUnit test carries the tag `container`, which the plain Java suite leaves out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS, ROOT, runCommand } from '../clients/support.js';
import { ALL_PASSED, surefireSummary } from '../clients/surefire.js';
import { toolchain } from '../support/toolchain.js';
import { type EngineSocket, engineSocket, sandboxImage } from './support.js';

const SUITE = join(CLIENTS, 'java');
const MAVEN = toolchain('the Java Testcontainers test', 'mvn', ['-B', '-v'], 'a JDK 17 and Maven: apt-get install -y openjdk-17-jdk-headless maven');
const BUDGET_MS = 300_000;

describe.skipIf(!MAVEN.present)('the Java Testcontainers module', () => {
  let socket: EngineSocket | undefined;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-java-testcontainers-'));
    socket = await engineSocket(dir);
  });
  afterAll(() => {
    socket?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'starts the image, waits on the health route, and serves a namespace, a token and the clients’ header',
    async () => {
      const env: Record<string, string> = { SANDBOX_IMAGE: sandboxImage(), SANDBOX_ROOT: ROOT, TESTCONTAINERS_RYUK_DISABLED: 'true' };
      if (socket?.dockerHost) env.DOCKER_HOST = socket.dockerHost;
      const args = ['-B', '--no-transfer-progress', `-Dmaven.repo.local=${join(SUITE, '.m2')}`, 'test', '-Dgroups=container', '-DexcludedGroups=none'];
      const run = await runCommand('mvn', args, { cwd: SUITE, env, timeoutMs: BUDGET_MS - 10_000 });
      const summary = surefireSummary(run.output);
      console.log(`java testcontainers:\n  ${summary.join('\n  ')}`);
      expect(run.code, run.output.slice(-8000)).toBe(0);
      expect(summary.at(-1)).toMatch(ALL_PASSED);
    },
    BUDGET_MS,
  );
});
