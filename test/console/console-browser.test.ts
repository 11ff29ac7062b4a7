// The console in a real headless Chromium (Debian's, driven by playwright-core), with every request
// off 127.0.0.1 blocked: the flows a tester uses, keyboard use and accessibility (axe-core's WCAG
// 2.1 A/AA rules), a narrow window, and the admin token form. The same tests take the README's
// screenshots (docs/console-*.png, 1280x800; see SHOTS). Skipped, with a visible warning, only where
// /usr/bin/chromium is absent. The console's browser script is the one `npm run build` made.
// UPDATE_SCREENSHOTS=1 writes the screenshots into docs/.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { WELL_KNOWN } from '../support/sandbox.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`console-browser.test.ts: ${CHROMIUM} is absent, the browser tests of the console do not run (apt-get install chromium)`);

const ROOT = join(import.meta.dirname, '../..');
/** The README's screenshots are rewritten only when asked (UPDATE_SCREENSHOTS=1): they are taken every run, kept elsewhere otherwise, so a test run leaves the tree as it was. */
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs') : mkdtempSync(join(tmpdir(), 'console-shots-'));
const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');
const BUYER = WELL_KNOWN.buyers.default.id;
const quiet = () => createLogger({ logLevel: 'silent', logFormat: 'json' });

async function launch(): Promise<Browser> {
  if (!existsSync(join(ROOT, 'dist/src/console/client/console.js'))) throw new Error('the console script is not built: run npm run build first');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page that may only talk to 127.0.0.1, collecting what it tried elsewhere and its errors. */
async function openPage(context: BrowserContext): Promise<{ page: Page; blocked: string[]; errors: string[] }> {
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'blob:' || url.protocol === 'data:') return route.continue();
    blocked.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    // A control API answer the test provokes on purpose (a 4xx) is logged by Chromium as a failed load: not a page error.
    if (msg.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) errors.push(msg.text());
  });
  return { page, blocked, errors };
}

/** axe-core's WCAG 2.1 A and AA rules on the page as it is: the violations, by rule and element. */
async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: readFileSync(AXE, 'utf8') });
  const result = await page.evaluate(async () => {
    const axe = (window as any).axe;
    const run = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return { passed: run.passes.length, violations: run.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`) };
  });
  expect(result.passed).toBeGreaterThan(10); // axe did look at the page
  return result.violations as string[];
}

/** Waits for what a page shows: bounded, and generous for a busy machine. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 50 });

/** A README screenshot of the page from its top (1280x800). */
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, `console-${name}.png`) });
}

describe('the console in Chromium', { timeout: 90_000 }, () => {
  let sandbox: RunningSandbox;
  let browser: Browser;
  let auth: Record<string, string>;

  beforeAll(async () => {
    if (!hasChromium) return;
    sandbox = await startSandbox({ port: 0, validateResponses: true, logger: quiet() });
    auth = { authorization: `Bearer ${await sandbox.token()}` };
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    if (process.env.UPDATE_SCREENSHOTS !== '1') rmSync(SHOTS, { recursive: true, force: true });
  });

  /** Opens a console page (its namespace made first, as a test run's first call would). */
  async function open(path: string, viewport = { width: 1280, height: 800 }) {
    const namespace = /^\/ns\/([^/]+)\//.exec(path)?.[1];
    if (namespace) expect((await fetch(`${sandbox.url}/ns/${namespace}/_sandbox/health`)).status).toBe(200);
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sandbox.url });
    const opened = await openPage(context);
    const res = await opened.page.goto(`${sandbox.url}${path}`);
    expect(res?.status()).toBe(200);
    await opened.page.waitForSelector('main h1 + .summary');
    return { ...opened, context };
  }

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${sandbox.url}${path}`, { ...init, headers: { ...auth, 'content-type': 'application/json', ...init.headers } });

  it.skipIf(!hasChromium)('shows requests arriving live with status and scenario, their detail, curl, and a HAR export', async () => {
    const { page, context, blocked, errors } = await open('/ns/live/_sandbox/console');
    await page.evaluate(() => ((window as any).notReloaded = true));
    await poll(() => page.textContent('#live-state')).toBe('Live');
    expect((await api(`/ns/live/buyers/payment-methods?buyer_id=${BUYER}`)).status).toBe(200);
    expect((await api(`/ns/live/buyers/payment-methods?buyer_id=${BUYER}`, { headers: { 'x-sandbox-scenario': 'server-error' } })).status).toBe(500);
    const rows = page.locator('#request-rows tr');
    await poll(() => rows.count()).toBe(2);
    const newest = rows.first();
    expect(await newest.locator('td').allTextContents()).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3}$/),
      'GET',
      `/buyers/payment-methods?buyer_id=${BUYER}`,
      '500',
      expect.stringMatching(/ ms$/),
      'server-error',
    ]);
    expect(await rows.nth(1).locator('td').nth(3).textContent()).toBe('200');
    expect(await page.evaluate(() => (window as any).notReloaded)).toBe(true); // arrived without a reload

    // Open it with the keyboard: the detail gets the focus.
    await newest.getByRole('button').focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('#detail-title');
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('detail-title');
    expect(await page.textContent('#detail-title')).toBe('GET /buyers/payment-methods 500');
    expect(await page.locator('#request-detail dl.facts').textContent()).toContain('server-error');
    expect(await page.getByRole('region', { name: 'Response body' }).textContent()).toContain('"code": "server_error"');
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`curl '${sandbox.url}/ns/live/buyers/payment-methods?buyer_id=${BUYER}'`);
    expect(curl).toContain('-H "authorization: Bearer $TOKEN"');
    expect(curl).toContain("-H 'x-sandbox-scenario: server-error'");
    expect(curl).not.toContain(auth.authorization.slice(7));
    await shot(page, 'requests');

    // Filters apply to the list and to what arrives.
    await page.selectOption('#filter-status', '5xx');
    await poll(() => rows.count()).toBe(1);
    await api('/ns/live/card-scheme-definitions');
    await api('/ns/live/gift-cards', { headers: { 'x-sandbox-scenario': 'bad-gateway' } });
    await poll(() => rows.count()).toBe(2);
    expect(await rows.first().locator('td').nth(3).textContent()).toBe('502');
    expect(page.url()).toBe(`${sandbox.url}/ns/live/_sandbox/console?status=5xx`);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export as HAR' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^sandbox-requests-live-.*\.har$/);
    const har = JSON.parse(readFileSync(await file.path(), 'utf8'));
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.map((e: any) => e.response.status)).toEqual([500, 502]);
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.skipIf(!hasChromium)('moves the clock a day and shows a report execution reaching succeeded', async () => {
    const { page, context, errors } = await open('/ns/clock/_sandbox/console/clock');
    await page.getByLabel('Set to').fill('2026-11-22T10:00:00Z');
    await page.getByLabel('Frozen').check();
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await poll(() => page.textContent('#clock-now')).toBe('2026-11-22 10:00:00Z');
    expect(await page.textContent('#clock-state')).toBe('frozen');
    const report = await api('/ns/clock/reports', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Console report',
        schedule: 'daily',
        schedule_enabled: true,
        schedule_timezone: 'UTC',
        spec: { model: 'transactions', params: {} },
      }),
    });
    expect(report.status).toBe(201);
    const reportId = (await report.json()).id;
    await page.getByRole('button', { name: 'Advance 1 minute' }).click(); // the page reads the records again
    await poll(() => page.textContent('#clock-now')).toBe('2026-11-22 10:01:00Z');
    expect(await page.locator('#main').textContent()).toContain('Report "Console report" runs (daily)');

    await page.getByRole('button', { name: 'Advance 1 day' }).click();
    await poll(() => page.textContent('#clock-now')).toBe('2026-11-23 10:01:00Z');
    const executions = page.locator('#recent-executions tbody tr', { hasText: 'Console report' });
    await poll(() => executions.count()).toBe(1);
    expect(await executions.locator('td').allTextContents()).toEqual(['2026-11-23 00:00:00Z', 'Console report', 'succeeded', '2026-11-23 00:00:30Z']);
    // The same through the API.
    const listed = await (await api('/ns/clock/_sandbox/records/report_executions?limit=1000&shape=stored')).json();
    expect(listed.items.filter((e: any) => e.report_id === reportId).map((e: any) => e.status)).toEqual(['succeeded']);
    await shot(page, 'clock');
    expect(errors).toEqual([]);
    await context.close();
  });

  it.skipIf(!hasChromium)('edits a buyer through the records API, with its 400 and 422 shown by the field, and the change seen through the API', async () => {
    const { page, context, errors } = await open('/ns/records/_sandbox/console/records');
    await page.getByRole('link', { name: /^buyers \d+$/ }).click();
    await page.getByLabel('Search by id or field').fill('display_name:jane');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: BUYER }).click();
    await page.waitForSelector('#record-form');
    expect(await page.inputValue('#field-display_name')).toBe('Jane Doe');

    await page.fill('#field-merchant_account_id', 'nope');
    await page.fill('#field-billing_details', '"not an object"');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => page.textContent('[data-error-for="billing_details"]')).toMatch(/billing_details/);
    expect(await page.getAttribute('#field-billing_details', 'aria-invalid')).toBe('true');
    await page.fill('#field-billing_details', await page.getAttribute('#field-billing_details', 'data-original').then((v) => v as string));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => page.textContent('[data-error-for="merchant_account_id"]')).toBe(
      "merchant_account_id names merchant_accounts record 'nope', which does not exist in this namespace.",
    );
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('field-merchant_account_id');

    await page.fill('#field-merchant_account_id', 'default');
    await page.fill('#field-display_name', 'Ada Lovelace');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => page.textContent('#status')).toBe('Saved display_name.');
    // Through the API: PUT /buyers/{id} keeps absent fields and answers the buyer.
    const buyer = await (await api(`/ns/records/buyers/${BUYER}`, { method: 'PUT', body: '{}' })).json();
    expect(buyer.display_name).toBe('Ada Lovelace');
    await poll(() => page.inputValue('#field-display_name')).toBe('Ada Lovelace');
    await shot(page, 'records');

    // Gift cards name this buyer: the delete is refused with the referential message.
    await page.getByRole('button', { name: 'Delete record…' }).click();
    await page.getByRole('button', { name: `Delete ${BUYER} now` }).click();
    await poll(() => page.textContent('#record-form [data-errors]')).toMatch(/still name this record in buyer_id/);
    expect((await api(`/ns/records/_sandbox/records/buyers/${BUYER}`)).status).toBe(200);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.skipIf(!hasChromium)('activates a built-in scenario for every merchant account, and mints a token that works', async () => {
    const { page, context, errors } = await open('/ns/scen/_sandbox/console/scenarios');
    await page.getByRole('button', { name: 'Activate rate-limited' }).click();
    await poll(() => page.locator('#active-scenarios').textContent()).toContain('For every merchant account: rate-limited');
    expect((await api('/ns/scen/gift-cards')).status).toBe(429);
    await page.getByRole('button', { name: 'Deactivate all and reset counters' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => page.locator('main').textContent()).toContain('No scenario is active');
    expect((await api('/ns/scen/gift-cards')).status).toBe(200);
    await page.getByRole('button', { name: 'Activate slow' }).click(); // left on for the screenshot: harmless, nothing calls
    await poll(() => page.locator('#active-scenarios').textContent()).toContain('slow');
    await shot(page, 'scenarios');

    await page.getByRole('link', { name: 'Namespaces and tokens' }).click();
    await page.waitForSelector('#token-form');
    await page.getByLabel('buyers.write').check();
    await page.getByRole('button', { name: 'Mint token' }).click();
    await page.waitForSelector('#token-result:not([hidden])');
    await page.getByRole('button', { name: 'Copy token' }).click();
    const token = await page.evaluate(() => navigator.clipboard.readText());
    expect(token).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    const put = await fetch(`${sandbox.url}/ns/scen/buyers/${BUYER}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'Minted' }),
    });
    expect(put.status).toBe(200);
    expect((await fetch(`${sandbox.url}/ns/scen/gift-cards`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(403); // only buyers.write
    await shot(page, 'namespaces');
    expect(errors).toEqual([]);
    await context.close();
  });

  it.skipIf(!hasChromium)('passes axe-core WCAG 2.1 A/AA on every page, and is used with Tab and Enter', async () => {
    await api('/ns/a11y/card-scheme-definitions');
    for (const slug of ['requests', 'scenarios', 'clock', 'records?collection=buyers', 'namespaces']) {
      const { page, context, errors } = await open(`/ns/a11y/_sandbox/console/${slug}`);
      if (slug === 'requests') await poll(() => page.locator('#request-rows tr').count()).toBe(1);
      expect(await accessibilityViolations(page), slug).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }
    const { page, context } = await open('/ns/a11y/_sandbox/console/clock');
    const focusOrder: string[] = [];
    for (let i = 0; i < 9; i++) {
      await page.keyboard.press('Tab');
      focusOrder.push(await page.evaluate(() => (document.activeElement as HTMLElement).textContent?.trim() ?? ''));
    }
    expect(focusOrder).toEqual([
      'Skip to content',
      'payments-sandbox console',
      'all namespaces',
      'Requests',
      'Scenarios',
      'Clock',
      'Records',
      'Namespaces and tokens',
      'Advance 1 minute',
    ]);
    const before = await page.textContent('#clock-now');
    await page.keyboard.press('Enter'); // on Advance 1 minute
    await poll(() => page.textContent('#status')).toBe('Clock moved: advance 1 minute.');
    await poll(() => page.textContent('#clock-now')).not.toBe(before);
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Advance 1 minute'); // the focus stays on the control
    await context.close();
  });

  it.skipIf(!hasChromium)('fits a narrow window without scrolling sideways', async () => {
    for (const slug of ['requests', 'clock', 'records?collection=buyers', 'namespaces', 'scenarios']) {
      const { page, context } = await open(`/ns/narrow/_sandbox/console/${slug}`, { width: 400, height: 800 });
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }));
      expect(widths.page, slug).toBeLessThanOrEqual(widths.window);
      if (slug === 'requests') await page.screenshot({ path: join(SHOTS, 'console-narrow.png') });
      await context.close();
    }
  });
});

describe('the console of a sandbox with an admin token, in Chromium', { timeout: 90_000 }, () => {
  let sandbox: RunningSandbox;
  let browser: Browser;

  beforeAll(async () => {
    if (!hasChromium) return;
    sandbox = await startSandbox({ port: 0, adminToken: 'browser-secret-16+', logger: quiet() });
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  it.skipIf(!hasChromium)('asks for the token, refuses a wrong one, then keeps it for the tab and follows the journal live', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page } = await openPage(context);
    await page.goto(`${sandbox.url}/_sandbox/console`);
    await page.waitForSelector('#login:not([hidden])');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('admin-token');
    await page.getByLabel('Admin token', { exact: true }).fill('wrong');
    await page.keyboard.press('Enter');
    await poll(() => page.textContent('#login-error')).toBe('That admin token is wrong.');
    await page.getByLabel('Admin token', { exact: true }).fill('browser-secret-16+');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('#request-filters');
    await poll(() => page.textContent('#live-state')).toBe('Live');
    await fetch(`${sandbox.url}/card-scheme-definitions`, { headers: { authorization: `Bearer ${await sandbox.token()}` } });
    await poll(() => page.locator('#request-rows tr').count()).toBe(1);
    expect(await page.evaluate(() => sessionStorage.getItem('payments-sandbox-admin-token'))).toBe('browser-secret-16+');
    await page.getByRole('link', { name: 'Clock' }).click();
    await page.waitForSelector('#clock-now'); // the next page uses the kept token
    await page.getByRole('button', { name: 'Forget admin token' }).click();
    await page.waitForSelector('#login:not([hidden])');
    await context.close();
  });
});
