import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The container image's tests build and run images (minutes): npm run test:container runs them.
    exclude: ['test/container/**', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Two cores: keep worker count small so child-process tests are not starved.
    maxWorkers: 2,
    // One Chromium for the run's browser tests, started only when the run may hold one.
    globalSetup: ['test/support/browser-server.ts'],
  },
});
