// One Chromium for the whole test run (vitest globalSetup): the browser test files connect to it
// instead of each launching its own (a launch and first page cost 3-4 s on a busy machine, and
// the files launched five). Started only when the run may hold a browser test: a run naming only
// other files (npx vitest run test/api/x.test.ts) starts none, and launchChromium() launches one
// for itself when none was provided.
import type { BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM, CHROMIUM_ARGS, hasChromium } from './browser.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's endpoint; '' when none was started. */
    chromiumEndpoint: string;
  }
}

/** Whether the command line names test files, none a browser test (anything else, a folder or a name filter, may hold one). */
function namesNoBrowserTest(argv: readonly string[]): boolean {
  const args = argv.slice(argv.indexOf('run') + 1).filter((arg) => !arg.startsWith('-'));
  return args.length > 0 && args.every((arg) => /\.test\.ts$/.test(arg) && !arg.includes('browser'));
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!hasChromium || namesNoBrowserTest(process.argv)) {
    project.provide('chromiumEndpoint', '');
    return undefined;
  }
  const { chromium } = await import('playwright-core');
  const server: BrowserServer = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
