// Issue 36, part 2, in a real headless Chromium: a page at evil.example (a public-looking name
// Chromium maps to 127.0.0.1 with --host-resolver-rules) frames each HTML page of the sandbox, the
// docs, the console and a hosted page: Chromium refuses every frame (an error page in its place,
// nothing of the sandbox's page to click); the console and hosted pages are refused by the sandbox
// first (a frame of another site: its own-origin step's 403). A page of the sandbox's own origin
// frames the docs and the console; the hosted pages no page at all.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { CHROMIUM, hasChromium, launchChromium, servePlainPage } from '../support/browser.js';

if (!hasChromium) console.warn(`framing-browser.test.ts: ${CHROMIUM} is absent, the browser tests of framing do not run`);

const FRAMED = ['/docs', '/docs/admin', '/_sandbox/console', '/_sandbox/console/requests', '/_sandbox/hosted/approvals/ffffffff-ffff-4fff-8fff-ffffffffffff'];

describe('the sandbox’s pages in another origin’s frame, in Chromium', { timeout: 120_000 }, () => {
  let sandbox: RunningSandbox;
  let pages: Awaited<ReturnType<typeof servePlainPage>>;
  let browser: Browser;

  beforeAll(async () => {
    if (!hasChromium) return;
    pages = await servePlainPage();
    sandbox = await startSandbox({ port: 0, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    browser = await launchChromium(['--host-resolver-rules=MAP evil.example 127.0.0.1']);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await sandbox?.close();
  });

  /** The URL each framed page ended at, as Chromium shows it (an error page when it refused the frame). */
  async function frameEach(page: Page): Promise<string[]> {
    const ended: string[] = [];
    for (const [i, path] of FRAMED.entries()) {
      const name = `framed-${i}`;
      await page.evaluate(
        ({ url, name }) =>
          new Promise<void>((resolve) => {
            const frame = Object.assign(document.createElement('iframe'), { name, src: url });
            frame.addEventListener('load', () => resolve(), { once: true });
            document.body.append(frame);
          }),
        { url: `${sandbox.url}${path}`, name },
      );
      const frame = await (await page.$(`iframe[name="${name}"]`))?.contentFrame();
      const url = frame?.url() ?? 'no frame';
      // Refused by the browser (its error page), or by the sandbox before any page (the own-origin step's 403, JSON).
      ended.push(url.startsWith('chrome-error:') ? 'refused by the browser' : `${url} ${await frame?.evaluate(() => document.contentType)}`);
    }
    return ended;
  }

  it.skipIf(!hasChromium)('refuses every frame of a page of another origin', async () => {
    const page = await (await browser.newContext()).newPage();
    const { port } = pages;
    expect((await page.goto(`http://evil.example:${port}/`))?.status()).toBe(200);
    // The docs by their framing headers; the console and the hosted page by those and, first, by the own-origin step.
    expect(await frameEach(page)).toEqual([
      'refused by the browser',
      'refused by the browser',
      `${sandbox.url}/_sandbox/console application/json`,
      `${sandbox.url}/_sandbox/console/requests application/json`,
      `${sandbox.url}${FRAMED[4]} application/json`,
    ]);
    await page.context().close();
  });

  it.skipIf(!hasChromium)('lets a page of the sandbox’s own origin frame them, but the hosted pages (none may frame them)', async () => {
    const page = await (await browser.newContext()).newPage();
    expect((await page.goto(`${sandbox.url}/_sandbox/console`))?.status()).toBe(200);
    expect(await frameEach(page)).toEqual([...FRAMED.slice(0, 4).map((path) => `${sandbox.url}${path} text/html`), 'refused by the browser']);
    await page.context().close();
  });
});
