// The webhook inbox in Chromium (issue 37, part 1): a tester with no receiver of their own subscribes
// the URL the Webhooks page offers, changes a buyer, and sees the notification arrive on the page by
// itself: its headers, its body, its signature checked, links to its delivery and its record. At a
// desktop's 1280x800 and a phone's 390x844, without sideways scrolling, with 0 axe violations. The
// screenshots docs/console.md shows (console-inbox.png, console-inbox-phone.png) are taken here;
// UPDATE_SCREENSHOTS=1 writes them into docs/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { accessibilityViolations, CHROMIUM, hasChromium, launchChromium, openPage } from '../support/browser.js';
import { WELL_KNOWN } from '../support/sandbox.js';

if (!hasChromium) console.warn(`inbox-browser.test.ts: ${CHROMIUM} is absent, the browser tests of the inbox do not run (apt-get install chromium)`);

const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs') : mkdtempSync(join(tmpdir(), 'inbox-shots-'));
const BUYER = WELL_KNOWN.buyers.default.id;
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 50 });

describe('the webhook inbox in Chromium', { timeout: 90_000 }, () => {
  let sandbox: RunningSandbox;
  let browser: Browser;

  beforeAll(async () => {
    if (!hasChromium) return;
    sandbox = await startSandbox({ port: 0, validateResponses: true, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    if (process.env.UPDATE_SCREENSHOTS !== '1') rmSync(SHOTS, { recursive: true, force: true });
  });

  async function open(path: string, viewport: { width: number; height: number }) {
    const context = await browser.newContext({ viewport });
    const opened = await openPage(context);
    const res = await opened.page.goto(`${sandbox.url}${path}`);
    expect(res?.status()).toBe(200);
    await opened.page.waitForSelector('main h1 + .summary');
    return { ...opened, context };
  }

  it.skipIf(!hasChromium)(
    'subscribes the inbox from the page, shows a notification arrive with its signature checked, at desktop and phone widths',
    async () => {
      expect(
        (
          await fetch(`${sandbox.url}/ns/inbox/_sandbox/clock`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: '{"now":"2030-01-15T10:00:00.000Z","frozen":true}',
          })
        ).status,
      ).toBe(200);
      const { page, context, blocked, errors } = await open('/ns/inbox/_sandbox/console/webhooks', { width: 1280, height: 800 });
      expect(await page.textContent('#inbox-url')).toBe('https://inbox.sandbox.invalid/');
      expect(await page.locator('#inbox .note').textContent()).toMatch(/^Nothing received yet: subscribe https:\/\/inbox\.sandbox\.invalid\//);
      // The subscribe form offers the inbox URL: one click subscribes it.
      expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe('https://inbox.sandbox.invalid/');
      await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
      await poll(() => page.textContent('#status')).toBe('Subscribed https://inbox.sandbox.invalid/.');
      await page.waitForSelector('#inbox-follow');

      const token = await sandbox.token();
      const put = await fetch(`${sandbox.url}/ns/inbox/buyers/${BUYER}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ display_name: 'Seen In The Inbox' }),
      });
      expect(put.status).toBe(200);
      // It arrives without a reload (the page reads its inbox every 2 seconds).
      const card = page.locator('#inbox-list li.card');
      await poll(() => card.count()).toBe(1);
      expect(await page.textContent('#inbox-count')).toBe('1 notification received.');
      expect(await card.locator('h3').textContent()).toBe('buyer.updated 200');
      expect(await card.locator('[data-signature]').textContent()).toBe('signature valid (current secret)');
      expect(await card.locator('[data-signature]').getAttribute('data-signature')).toBe('valid');
      await card.getByText('Headers and body').click();
      const headers = await card.locator('dl.facts dt').allTextContents();
      expect(headers).toEqual(['content-type', 'user-agent', 'x-service-timestamp', 'x-service-signature', 'x-sandbox-webhook-delivery']);
      expect(await card.locator('pre').textContent()).toContain('"display_name": "Seen In The Inbox"');
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.locator('#inbox-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'console-inbox.png') });
      // The event's record is one click away.
      await card.getByRole('link', { name: `The event's record: buyers ${BUYER}` }).click();
      await page.waitForSelector('#records-title');
      expect(await page.textContent('#records-title')).toBe('buyers');
      expect(new URL(page.url()).search).toBe(`?collection=buyers&id=${BUYER}`);
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();

      // A phone: the same card, nothing wider than the screen, no violation; its delivery link opens the delivery.
      const phone = await open('/ns/inbox/_sandbox/console/webhooks', { width: 390, height: 844 });
      await phone.page.waitForSelector('#inbox-list li.card');
      const widths = await phone.page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }));
      expect(widths.page).toBeLessThanOrEqual(widths.window);
      expect(await accessibilityViolations(phone.page)).toEqual([]);
      await phone.page.locator('#inbox-title').scrollIntoViewIfNeeded();
      await phone.page.screenshot({ path: join(SHOTS, 'console-inbox-phone.png') });
      await phone.page.locator('#inbox-list li.card').getByRole('link', { name: 'Its delivery' }).click();
      await phone.page.waitForSelector('#delivery-title');
      expect(await phone.page.textContent('#delivery-title')).toBe('buyer.updated succeeded');
      expect(phone.errors).toEqual([]);
      await phone.context.close();
    },
  );
});
