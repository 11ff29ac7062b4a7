// The Python Testcontainers module (clients/python/sandbox_testing/container.py) against the image
// built for this run, through podman's Docker-compatible socket (Ryuk disabled, as for the Node
// module): pytest runs the tests marked `container` (tests/test_container.py), which the plain
// suite leaves out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureVenv, PYTHON_SUITE, pytestSummary, VENV_PYTHON } from '../clients/python-venv.js';
import { ROOT, runCommand } from '../clients/support.js';
import { toolchain } from '../support/toolchain.js';
import { type EngineSocket, engineSocket, sandboxImage } from './support.js';

const PYTHON = toolchain('the Python Testcontainers module', 'python3', ['--version'], 'Python 3.11 with venv: apt-get install -y python3 python3-venv');
const INSTALL_MS = 600_000;
const RUN_MS = 180_000;

describe.skipIf(!PYTHON.present)('the Python Testcontainers module', () => {
  let socket: EngineSocket | undefined;
  let dir: string;
  beforeAll(async () => {
    await ensureVenv('requirements-container.txt', INSTALL_MS);
    dir = mkdtempSync(join(tmpdir(), 'sandbox-py-testcontainers-'));
    socket = await engineSocket(dir);
  }, INSTALL_MS + 60_000);
  afterAll(() => {
    socket?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'starts the image and the official client calls it',
    async () => {
      const run = await runCommand(VENV_PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-m', 'container'], {
        cwd: PYTHON_SUITE,
        env: {
          SANDBOX_IMAGE: sandboxImage(),
          SANDBOX_ROOT: ROOT,
          TESTCONTAINERS_RYUK_DISABLED: 'true',
          ...(socket?.dockerHost ? { DOCKER_HOST: socket.dockerHost } : {}),
          // The engine runs on this machine and publishes ports here; testcontainers-python, finding
          // /.dockerenv when the tests run in a container, would look for them at a gateway instead.
          ...(socket?.dockerHost?.startsWith('unix://') ? { TESTCONTAINERS_CONNECTION_MODE: 'docker_host', TESTCONTAINERS_HOST_OVERRIDE: '127.0.0.1' } : {}),
        },
        timeoutMs: RUN_MS - 10_000,
      });
      const summary = pytestSummary(run.output);
      console.log(`python testcontainers module: ${summary}`);
      expect(run.code, run.output.slice(-8000)).toBe(0);
      expect(summary).toMatch(/^1 passed, \d+ deselected in /);
    },
    RUN_MS,
  );
});
