// npm run test:container: build the images once for every test file (podman layer cache makes a
// rebuild with no change take seconds), and hand the engine and its environment to the tests.
// IMAGE_BASE as npm run image takes it; unset, debian where mmdebstrap is installed (no registry
// needed), else node:20-bookworm-slim. CONTAINER_TEST_NO_BUILD=1 uses the images already built.
import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
// @ts-expect-error: a plain .mjs script, no types
import { buildImages, containerEngine, engineEnv, IMAGE } from '../../scripts/image.mjs';

export default function setup(project: TestProject): void {
  const engine: string = containerEngine();
  const env: Record<string, string> = engineEnv(engine) as Record<string, string>;
  const hasMmdebstrap = spawnSync('sh', ['-c', 'command -v mmdebstrap'], { stdio: 'ignore' }).status === 0;
  const base = process.env.IMAGE_BASE || (hasMmdebstrap ? 'debian' : 'node:20-bookworm-slim');
  if (!process.env.CONTAINER_TEST_NO_BUILD) {
    const started = Date.now();
    const { figures } = buildImages(['sandbox', 'redis', 'haproxy'], { ...env, IMAGE_BASE: base });
    process.stdout.write(`container tests: images built in ${((Date.now() - started) / 1000).toFixed(0)} s (${JSON.stringify(figures)})\n`);
  }
  project.provide('containerEngine', engine);
  project.provide('containerEnv', env);
  project.provide('sandboxImage', `${IMAGE}:latest`);
  project.provide('redisImage', `${IMAGE}-redis:latest`);
  project.provide('haproxyImage', `${IMAGE}-haproxy:latest`);
}
