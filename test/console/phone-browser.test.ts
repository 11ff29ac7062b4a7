// The console on a phone (issue 37, part 2), in Chromium at 390x844, and at a desktop's 1280x800:
// every page, and pages opened with query strings (a collection and a record, a delivery, filters),
// filled with what a tester makes (requests with long paths, a scenario active, a subscription
// and its delivery, a token waiting for the buyer). At phone width nothing is wider than the
// screen, tables with actions are stacked cards with every action on screen, the requests list
// shows its path on a line of its own, a chosen collection's table comes before the collections,
// secrets are masked with Show and Copy, the curl box wraps; axe-core finds 0 violations at both
// widths. The phone screenshots docs/console.md shows are taken here (UPDATE_SCREENSHOTS=1).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { accessibilityViolations, CHROMIUM, hasChromium, launchChromium, openPage } from '../support/browser.js';
import { WELL_KNOWN } from '../support/sandbox.js';

if (!hasChromium) console.warn(`phone-browser.test.ts: ${CHROMIUM} is absent, the phone tests of the console do not run (apt-get install chromium)`);

const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs') : mkdtempSync(join(tmpdir(), 'phone-shots-'));
const BUYER = WELL_KNOWN.buyers.default.id;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 50 });

describe('the console on a phone and a desktop, in Chromium', { timeout: 180_000 }, () => {
  let sandbox: RunningSandbox;
  let browser: Browser;
  let deliveryId: string;
  let subscriptionSecret: string;

  const api = async (path: string, init: RequestInit = {}) => {
    const token = await sandbox.token();
    return fetch(`${sandbox.url}/ns/phone${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });
  };

  beforeAll(async () => {
    if (!hasChromium) return;
    sandbox = await startSandbox({ port: 0, validateResponses: true, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    browser = await launchChromium();
    // What a tester's session leaves: a subscription and its delivery, a scenario active, requests with long paths.
    const subscription = await (
      await api('/_sandbox/records/webhook_subscriptions', { method: 'POST', body: JSON.stringify({ url: 'https://inbox.sandbox.invalid/' }) })
    ).json();
    subscriptionSecret = subscription.secret;
    expect((await api('/_sandbox/scenarios/active', { method: 'PUT', body: JSON.stringify({ scenarios: ['server-error'] }) })).status).toBe(200);
    expect((await api(`/buyers/${BUYER}`, { method: 'PUT', body: JSON.stringify({ display_name: 'Phone' }) })).status).toBe(500);
    expect((await api('/_sandbox/scenarios/active', { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/buyers/${BUYER}`, { method: 'PUT', body: JSON.stringify({ display_name: 'Phone' }) })).status).toBe(200);
    expect((await api(`/buyers/payment-methods?buyer_id=${BUYER}&limit=20`)).status).toBe(200);
    for (;;) {
      const list = await (await api('/_sandbox/webhooks/deliveries')).json();
      if (list.items[0]?.status === 'succeeded') {
        deliveryId = list.items[0].id;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    if (process.env.UPDATE_SCREENSHOTS !== '1') rmSync(SHOTS, { recursive: true, force: true });
  });

  async function open(path: string, viewport: { width: number; height: number }) {
    const context = await browser.newContext({ viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sandbox.url });
    const opened = await openPage(context);
    await visit(opened.page, path);
    return { ...opened, context };
  }

  /** The console's page at `path`, opened in the tab as a tester types its address. */
  async function visit(page: Page, path: string) {
    const res = await page.goto(`${sandbox.url}/ns/phone/_sandbox/console/${path}`);
    expect(res?.status(), path).toBe(200);
    await page.waitForSelector('main h1 + .summary');
    if (path.startsWith('requests')) await poll(() => page.locator('#request-rows tr').count()).toBeGreaterThan(0);
  }

  /**
   * Each path in turn in one tab of one context, as a tester goes from page to page (a context of
   * its own for each cost a second a page, most of it compiling the same scripts again): the
   * check's findings, and the page errors each path made.
   */
  async function eachPage(paths: string[], viewport: { width: number; height: number }, check: (page: Page, path: string) => Promise<void>) {
    const context = await browser.newContext({ viewport });
    const { page, errors, blocked } = await openPage(context);
    for (const path of paths) {
      await visit(page, path);
      await check(page, path);
      expect(errors.splice(0), path).toEqual([]);
    }
    expect(blocked).toEqual([]);
    await context.close();
  }

  /** Elements wider than the window, or whose content scrolls sideways, with a button in them (an action off-screen). */
  const offScreen = (page: Page) =>
    page.evaluate(() => {
      const found: string[] = [];
      for (const el of document.querySelectorAll<HTMLElement>('main *')) {
        const box = el.getBoundingClientRect();
        if (box.width === 0) continue;
        // A table to read (no action in it) may scroll inside its frame, which a keyboard can then focus.
        const frame = el.closest<HTMLElement>('.table-wrap');
        if (frame && frame !== el && frame.tabIndex === 0 && !frame.querySelector('button')) continue;
        if (box.right > window.innerWidth + 1) found.push(`${el.tagName}#${el.id}.${el.className} ends at ${Math.round(box.right)}`);
        else if (el.scrollWidth > el.clientWidth + 1 && el.querySelector('button') && getComputedStyle(el).overflowX !== 'visible')
          found.push(`${el.tagName}#${el.id}.${el.className} scrolls sideways with actions`);
      }
      return found.slice(0, 5);
    });

  const PAGES = [
    'requests',
    'requests?status=5xx&path=/buyers*',
    'scenarios',
    'clock',
    'records?collection=buyers',
    `records?collection=buyers&id=${BUYER}`,
    'webhooks',
    'webhooks?outcome=succeeded',
    'approvals',
    'namespaces',
  ];

  it.skipIf(!hasChromium)('fits a phone: nothing off-screen, no action out of reach, 0 axe violations on every page', async () => {
    await eachPage([...PAGES, `webhooks?delivery=${deliveryId}`], PHONE, async (page, path) => {
      expect(await offScreen(page), path).toEqual([]);
      expect(await accessibilityViolations(page, 5), path).toEqual([]);
    });
  });

  it.skipIf(!hasChromium)('passes axe-core at desktop width on the same pages, query strings included', async () => {
    await eachPage([...PAGES, `webhooks?delivery=${deliveryId}`], DESKTOP, async (page, path) => {
      expect(await accessibilityViolations(page), path).toEqual([]);
    });
  });

  it.skipIf(!hasChromium)('shows the path of a request on a line of its own, and its curl box wraps', async () => {
    const { page, context } = await open('requests', PHONE);
    const open0 = page.locator('#request-rows button.open').first();
    await open0.waitFor();
    const width = await open0.evaluate((b) => b.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(200); // once one character a line
    await open0.click();
    await page.waitForSelector('#request-detail pre.curl');
    const curl = await page
      .locator('#request-detail pre.curl')
      .evaluate((pre) => ({ scroll: pre.scrollWidth, client: pre.clientWidth, wrap: getComputedStyle(pre).whiteSpace }));
    expect(curl.wrap).toBe('pre-wrap');
    expect(curl.scroll).toBeLessThanOrEqual(curl.client + 1);
    await page.screenshot({ path: join(SHOTS, 'console-phone-requests.png') });
    await context.close();
  });

  it.skipIf(!hasChromium)('stacks subscriptions as cards with the secret masked, shown and copied on demand', async () => {
    const { page, context } = await open('webhooks', PHONE);
    const card = page.locator('#subscriptions-table tbody tr', { hasText: 'inbox.sandbox.invalid' });
    expect(await card.evaluate((tr) => getComputedStyle(tr).display)).toBe('block');
    expect(await card.locator('td').first().getAttribute('data-label')).toBe('Merchant account');
    const what = 'the signing secret of the subscription to https://inbox.sandbox.invalid/';
    expect(await card.locator('.masked').textContent()).toBe(`••••${subscriptionSecret.slice(-4)}`);
    expect(await card.locator('code.secret').isVisible()).toBe(false);
    await card.getByRole('button', { name: `Show ${what}` }).click();
    expect(await card.locator('code.secret').textContent()).toBe(subscriptionSecret);
    expect(await card.locator('code.secret').isVisible()).toBe(true);
    expect(await card.getByRole('button', { name: `Hide ${what}` }).getAttribute('aria-expanded')).toBe('true');
    await card.getByRole('button', { name: `Copy ${what}` }).click();
    await poll(() => page.textContent('#status')).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(subscriptionSecret);
    // Every action of the card is on screen.
    for (const name of ['Deactivate', 'Rotate secret', 'Delete']) {
      const box = await card.getByRole('button', { name: new RegExp(`^${name}`) }).boundingBox();
      expect(box && box.x + box.width <= PHONE.width, name).toBe(true);
    }
    await page.locator('#subscriptions-title').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'console-phone-webhooks.png') });
    await context.close();
  });

  it.skipIf(!hasChromium)('puts a chosen collection before the list of collections', async () => {
    const { page, context } = await open('records?collection=buyers', PHONE);
    const top = async (selector: string) => (await page.locator(selector).boundingBox())?.y ?? -1;
    expect(await top('#records-title')).toBeLessThan(await top('nav.collections'));
    expect(await top('#records-title')).toBeLessThan(PHONE.height);
    await context.close();
  });
});
