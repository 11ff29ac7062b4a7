import { defineConfig } from 'vitest/config';

// npm run test:container: the image, the compose file and the Testcontainers snippet
// (docs/containers.md). Needs podman (or docker); builds the image once (test/container/global-setup.ts).
export default defineConfig({
  test: {
    include: ['test/container/**/*.test.ts'],
    globalSetup: ['test/container/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    // One file at a time: each starts containers, and two cores are shared.
    fileParallelism: false,
  },
});
