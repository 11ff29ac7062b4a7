// The upstream's mode in the console (a sandbox started with --upstream URL), in a real headless
// Chromium: the Requests page shows the address and the mode, and its switch changes the mode of
// the running sandbox, after which the upstream answers the next call. Skipped, with a visible
// warning, only where /usr/bin/chromium is absent.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { accessibilityViolations, CHROMIUM, hasChromium, launchChromium, openPage } from '../support/browser.js';

if (!hasChromium) console.warn(`upstream-browser.test.ts: ${CHROMIUM} is absent, the browser test of the upstream switch does not run`);

/** What the upstream answers every call with: nothing the sandbox would answer itself. */
const UPSTREAM_PAGE = { items: [], limit: 20, next_cursor: null, previous_cursor: null, from: 'the upstream' };

describe('the upstream mode in the console', { timeout: 90_000 }, () => {
  let sandbox: RunningSandbox;
  const received: IncomingMessage[] = [];
  const upstream = createServer((req, res) => {
    received.push(req);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(UPSTREAM_PAGE));
  });

  beforeAll(async () => {
    if (!hasChromium) return;
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    sandbox = await startSandbox({ port: 0, upstream: url, validateResponses: true, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it.skipIf(!hasChromium)('shows the address and the mode, and switches it for the next call', async () => {
    const browser = await launchChromium();
    try {
      const { page, blocked, errors } = await openPage(await browser.newContext({ viewport: { width: 1280, height: 800 } }));
      expect((await page.goto(`${sandbox.url}/_sandbox/console`))?.status()).toBe(200);
      await page.waitForSelector('#upstream-mode-now');
      const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      expect(await page.textContent('#upstream-mode-now')).toBe(`${upstreamUrl} mode off`);
      // The comparisons' filter is there before compare mode is first switched on, here, without a reload.
      expect(await page.locator('#filter-upstream option').allTextContents()).toEqual([
        'any',
        'differs from upstream',
        'same as upstream',
        'upstream failed',
        'write not sent',
      ]);
      expect(await accessibilityViolations(page)).toEqual([]);

      const token = await sandbox.token();
      const gift = () => fetch(`${sandbox.url}/gift-cards`, { headers: { authorization: `Bearer ${token}` } });
      expect(await (await gift()).json()).not.toEqual(UPSTREAM_PAGE); // off: the sandbox answers
      expect(received).toHaveLength(0);

      await page.getByLabel('Mode', { exact: true }).selectOption('record');
      await page.getByRole('button', { name: 'Switch' }).click();
      await expect.poll(() => page.textContent('#status'), { timeout: 15_000 }).toBe('Upstream mode record, from the next call on.');
      expect(await page.textContent('#upstream-mode-now')).toBe(`${upstreamUrl} mode record`);
      expect(await (await fetch(`${sandbox.url}/_sandbox/upstream`)).json()).toEqual({
        url: upstreamUrl,
        mode: 'record',
        compare_writes: false,
        timeout_ms: 10_000,
        modes_used: ['record'],
      });
      const recorded = await gift();
      expect(recorded.status).toBe(200);
      expect(await recorded.json()).toEqual(UPSTREAM_PAGE); // record: the upstream answers
      expect(received.map((r) => `${r.method} ${r.url} ${r.headers.authorization}`)).toEqual([`GET /gift-cards Bearer ${token}`]);
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
