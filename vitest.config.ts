import { defineConfig } from 'vitest/config';

/**
 * Files that need modules of their own: the official TypeScript client's suite reads responses
 * through the client's module state, which another file's imports disturb (18 of its tests failed
 * when it shared a worker's modules).
 */
const ISOLATED = ['test/clients/typescript.test.ts'];

export default defineConfig({
  test: {
    // The container image's tests build and run images (minutes): npm run test:container runs them.
    exclude: ['test/container/**', '**/node_modules/**'],
    testTimeout: 20_000,
    // Every test file's temporary folders (test/support/temp-dir.ts) removed once it has ended.
    setupFiles: ['test/support/temp-dir.setup.ts'],
    hookTimeout: 30_000,
    // Two cores: keep worker count small so child-process tests are not starved.
    maxWorkers: 2,
    // Each project's include and exclude add to those above.
    projects: [
      // A worker keeps the modules it loaded from one file to the next: loading src/ again for
      // each of 150 files cost about two minutes of the run.
      {
        extends: true,
        test: {
          name: 'shared',
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          // One Chromium for the run's browser tests, started only when the run may hold one.
          globalSetup: ['test/support/browser-server.ts'],
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
