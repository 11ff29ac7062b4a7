// One Chromium for the whole test run (vitest globalSetup): the browser test files connect to it
// instead of each launching its own (a launch and first page cost 3-4 s on a busy machine, and
// the files launched five). Started only when the run may hold a browser test: a run naming only
// other files (npx vitest run test/api/x.test.ts) starts none, and launchChromium() launches one
// for itself when none was provided.
// Beside it, axe-core's script served from 127.0.0.1 with a long max-age: a context that loads it
// by address compiles it once (cached), not on every page (added as text, a third of a second each).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { AXE, CHROMIUM, CHROMIUM_ARGS, hasChromium } from './browser.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's endpoint; '' when none was started. */
    chromiumEndpoint: string;
    /** Where axe-core's script is served; '' when no browser was started. */
    axeUrl: string;
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
    project.provide('axeUrl', '');
    return undefined;
  }
  const { chromium } = await import('playwright-core');
  const server: BrowserServer = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  const axe = readFileSync(AXE);
  const scripts = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' }).end(axe));
  await new Promise<void>((resolve) => scripts.listen(0, '127.0.0.1', resolve));
  project.provide('axeUrl', `http://127.0.0.1:${(scripts.address() as AddressInfo).port}/axe.min.js`);
  return async () => {
    await server.close();
    await new Promise((resolve) => scripts.close(resolve));
  };
}
