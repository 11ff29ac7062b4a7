// The Java suite (clients/java: JUnit 5 run by Maven Surefire) against the built sandbox. Maven's
// local repository is clients/java/.m2 (ignored): the first run downloads the pinned plugins and
// dependencies (about 80 s here), later runs find them there. The official client com.gr4vy:sdk is
// not served by the registry this project reaches, so the suite drives the sandbox through
// java.net.http, that client's transport (clients/java/README.md).
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { toolchain } from '../support/toolchain.js';
import { CLIENTS, ROOT, runCommand, useClientSandbox } from './support.js';
import { ALL_PASSED, surefireSummary } from './surefire.js';

const SUITE = join(CLIENTS, 'java');
const MAVEN = toolchain('the Java client suite', 'mvn', ['-B', '-v'], 'a JDK 17 and Maven: apt-get install -y openjdk-17-jdk-headless maven');
// A cold .m2 downloads for a minute or two on a shared machine; a warm run takes about 30 s.
const BUDGET_MS = 300_000;

describe.skipIf(!MAVEN.present)('the Java client suite (JUnit 5, Maven Surefire)', () => {
  const sandbox = useClientSandbox();

  it(
    'passes against the sandbox',
    async () => {
      const started = performance.now();
      const run = await runCommand('mvn', ['-B', '--no-transfer-progress', `-Dmaven.repo.local=${join(SUITE, '.m2')}`, 'test'], {
        cwd: SUITE,
        env: { SANDBOX_URL: sandbox().url, SANDBOX_ROOT: ROOT },
        timeoutMs: BUDGET_MS - 10_000,
      });
      const summary = surefireSummary(run.output);
      console.log(
        `java suite (${stripVTControlCharacters(MAVEN.version)}), ${((performance.now() - started) / 1000).toFixed(0)} s:\n  ${summary.join('\n  ')}`,
      );
      expect(run.code, run.output.slice(-8000)).toBe(0);
      // The last line is Surefire's total: every test ran, none failed, none skipped.
      expect(summary.at(-1)).toMatch(ALL_PASSED);
    },
    BUDGET_MS,
  );
});
