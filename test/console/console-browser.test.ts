// The console in a real headless Chromium (Debian's, driven by playwright-core), with every request
// off 127.0.0.1 blocked: the flows a tester uses, keyboard use and accessibility (axe-core's WCAG
// 2.1 A/AA rules on pages in the middle of a flow; on every page: phone-browser.test.ts), a narrow
// window, and the admin token form. The same tests take docs/console.md's
// screenshots (docs/console-*.png, 1280x800; see SHOTS). Skipped, with a visible warning, only where
// /usr/bin/chromium is absent. The console's browser script is the one `npm run build` made.
// UPDATE_SCREENSHOTS=1 writes the screenshots into docs/.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { accessibilityViolations, CHROMIUM, hasChromium, launchChromium, openPage } from '../support/browser.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { Receiver } from '../webhooks/receiver.js';

if (!hasChromium) console.warn(`console-browser.test.ts: ${CHROMIUM} is absent, the browser tests of the console do not run (apt-get install chromium)`);

const ROOT = join(import.meta.dirname, '../..');
/** The screenshots of docs/console.md are rewritten only when asked (UPDATE_SCREENSHOTS=1): they are taken every run, kept elsewhere otherwise, so a test run leaves the tree as it was. */
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs') : mkdtempSync(join(tmpdir(), 'console-shots-'));
const BUYER = WELL_KNOWN.buyers.default.id;
const quiet = () => createLogger({ logLevel: 'silent', logFormat: 'json' });

async function launch(): Promise<Browser> {
  if (!existsSync(join(ROOT, 'dist/bundle/console/console.js'))) throw new Error('the console script is not built: run npm run build first');
  return launchChromium();
}

/** Waits for what a page shows: bounded, and generous for a busy machine. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 50 });

/**
 * Waits until the cells of `selector` read `texts`, looked at again on each change of the page (a
 * MutationObserver in the page: it swaps its list when it reads it anew), not on a clock: under
 * load the page's own refresh may come late. The guard only bounds how long a failing test takes.
 */
async function untilCells(page: Page, selector: string, texts: string[]): Promise<void> {
  const read = () => page.locator(selector).allTextContents();
  const shown = page.evaluate(
    ([sel, want]) =>
      new Promise<void>((resolve) => {
        const done = () => JSON.stringify([...document.querySelectorAll(sel)].map((cell) => cell.textContent)) === want;
        if (done()) return resolve();
        const observer = new MutationObserver(() => {
          if (!done()) return;
          observer.disconnect();
          resolve();
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      }),
    [selector, JSON.stringify(texts)] as const,
  );
  let guard: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    guard = setTimeout(async () => reject(new Error(`${selector} reads ${JSON.stringify(await read())}, not ${JSON.stringify(texts)}`)), 80_000);
  });
  try {
    await Promise.race([shown, late]);
  } finally {
    clearTimeout(guard);
  }
  expect(await read()).toEqual(texts);
}

/** A screenshot of the page for docs/console.md (1280x800) from its top, or from an element of it (without the status line over it). */
async function shot(page: Page, name: string, from?: string): Promise<void> {
  await page.evaluate((selector) => {
    if (!selector) return window.scrollTo(0, 0);
    (document.getElementById('status') as HTMLElement).textContent = '';
    window.scrollTo(0, (document.querySelector(selector) as HTMLElement).getBoundingClientRect().top + window.scrollY - 8);
  }, from);
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
    await tab?.context.close();
    await browser?.close();
    await sandbox?.close();
    if (process.env.UPDATE_SCREENSHOTS !== '1') rmSync(SHOTS, { recursive: true, force: true });
  });

  /**
   * The tab the tests share, as a tester goes from page to page: a context of its own for each test
   * cost Chromium about a second more a page (compiling the same scripts again). Each test has its
   * own namespace; what a page collected is cleared before the next one opens.
   */
  let tab: Awaited<ReturnType<typeof openPage>> & { context: BrowserContext };

  /** Opens a console page in the shared tab (its namespace made first, as a test run's first call would). */
  async function open(path: string, viewport = { width: 1280, height: 800 }) {
    const namespace = /^\/ns\/([^/]+)\//.exec(path)?.[1];
    if (namespace) expect((await fetch(`${sandbox.url}/ns/${namespace}/_sandbox/health`)).status).toBe(200);
    if (!tab) {
      const context = await browser.newContext({ viewport, acceptDownloads: true });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sandbox.url });
      tab = { ...(await openPage(context)), context };
    } else {
      await tab.page.setViewportSize(viewport);
    }
    tab.blocked.length = 0; // what the pages before it collected
    tab.errors.length = 0;
    await visit(tab.page, path);
    return tab;
  }

  /** A console page at `path`, in a tab already open. */
  async function visit(page: Page, path: string) {
    const res = await page.goto(`${sandbox.url}${path}`);
    expect(res?.status(), path).toBe(200);
    await page.waitForSelector('main h1 + .summary');
  }

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${sandbox.url}${path}`, { ...init, headers: { ...auth, 'content-type': 'application/json', ...init.headers } });

  it.skipIf(!hasChromium)('shows requests arriving live with status and scenario, their detail, curl, and a HAR export', async () => {
    const { page, blocked, errors } = await open('/ns/live/_sandbox/console');
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
    // A status the operation does not declare (listConnections has no 500) is marked in its row.
    await api('/ns/live/connections', { headers: { 'x-sandbox-scenario': 'server-error' } });
    await poll(() => rows.count()).toBe(3);
    expect(await rows.first().locator('td').nth(5).textContent()).toBe('server-error outside the contract');
    expect(await rows.nth(1).locator('td').nth(5).textContent()).toBe('bad-gateway'); // listGiftCards declares 502

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export as HAR' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^sandbox-requests-live-.*\.har$/);
    // Saved where this test can read it: the run's shared Chromium (browser-server.ts) keeps downloads on its side.
    const folder = mkdtempSync(join(tmpdir(), 'console-har-'));
    await file.saveAs(join(folder, 'export.har'));
    const har = JSON.parse(readFileSync(join(folder, 'export.har'), 'utf8'));
    rmSync(folder, { recursive: true, force: true });
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.map((e: any) => e.response.status)).toEqual([500, 502, 500]);
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });

  it.skipIf(!hasChromium)('moves the clock a day and shows a report execution reaching succeeded', async () => {
    const { page, errors } = await open('/ns/clock/_sandbox/console/clock');
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
  });

  it.skipIf(!hasChromium)('edits a buyer through the records API, with its 400 and 422 shown by the field, and the change seen through the API', async () => {
    const { page, errors } = await open('/ns/records/_sandbox/console/records');
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
  });

  it.skipIf(!hasChromium)('activates a built-in scenario for every merchant account, and mints a token that works', async () => {
    const { page, errors } = await open('/ns/scen/_sandbox/console/scenarios');
    await page.getByRole('button', { name: 'Activate rate-limited' }).click();
    await poll(() => page.locator('#active-scenarios').textContent()).toContain('For every merchant account: rate-limited');
    expect((await api('/ns/scen/gift-cards')).status).toBe(429);
    await page.getByRole('button', { name: 'Deactivate all and reset counters' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => page.locator('main').textContent()).toContain('No scenario is active');
    expect((await api('/ns/scen/gift-cards')).status).toBe(200);
    await page.getByRole('button', { name: 'Activate slow' }).click();
    await poll(() => page.locator('#active-scenarios').textContent()).toContain('slow');

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
  });

  it.skipIf(!hasChromium)(
    'defines "500 on the 2nd call of listBuyerPaymentMethods" in the form and sees the second call arrive live with status 500 and its name',
    async () => {
      const { page, context, errors } = await open('/ns/define/_sandbox/console/scenarios');
      const name = 'listbuyerpaymentmethods-call-2-500';
      await page.getByLabel('Operation', { exact: true }).selectOption('listBuyerPaymentMethods');
      await page.getByLabel('Answer status').fill('418');
      await page.getByLabel('On call number').fill('2');
      // The definition as JSON, written while the form is filled in.
      expect(JSON.parse((await page.textContent('#definition-preview')) as string)).toEqual({
        name: 'listbuyerpaymentmethods-call-2-418',
        description: 'The 2nd call of listBuyerPaymentMethods answers 418; the others run normally.',
        operations: ['listBuyerPaymentMethods'],
        calls: [2],
        respond: { status: 418 },
      });
      expect(await page.getAttribute('#scenario-name', 'placeholder')).toBe('listbuyerpaymentmethods-call-2-418');
      // The API's 400 points at /respond/status: shown next to the status, which gets the focus.
      await page.getByRole('button', { name: 'Define scenario' }).click();
      await poll(() => page.textContent('#scenario-status-error')).toMatch(/^418 is not declared by operation listBuyerPaymentMethods \(it declares 200, 400/);
      expect(await page.getAttribute('#scenario-status', 'aria-invalid')).toBe('true');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('scenario-status');
      expect(await accessibilityViolations(page)).toEqual([]); // with the error shown
      // Corrected from the keyboard: the field has the focus, Enter sends the form.
      await page.keyboard.press('Control+A');
      await page.keyboard.type('500');
      await page.keyboard.press('Enter');
      await poll(() => page.textContent('#status')).toBe(`Scenario ${name} saved: activate it in the catalog.`);
      const defined = await (await api(`/ns/define/_sandbox/scenarios/${name}`)).json();
      expect(defined).toMatchObject({ source: 'defined', operations: ['listBuyerPaymentMethods'], definition: { calls: [2], respond: { status: 500 } } });
      await page.getByRole('button', { name: `Activate ${name}` }).click();
      await poll(() => page.locator('#active-scenarios').textContent()).toBe(`For every merchant account: ${name} Deactivate for every merchant account`);

      // The Requests page, open beside it, sees the calls arrive.
      const requests = await context.newPage();
      await requests.goto(`${sandbox.url}/ns/define/_sandbox/console`);
      await poll(() => requests.textContent('#live-state')).toBe('Live');
      expect((await api(`/ns/define/buyers/payment-methods?buyer_id=${BUYER}`)).status).toBe(200);
      expect((await api(`/ns/define/buyers/payment-methods?buyer_id=${BUYER}`)).status).toBe(500);
      const rows = requests.locator('#request-rows tr');
      await poll(() => rows.count()).toBe(2);
      expect(await rows.first().locator('td').allTextContents()).toEqual([
        expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3}$/),
        'GET',
        `/buyers/payment-methods?buyer_id=${BUYER}`,
        '500',
        expect.stringMatching(/ ms$/),
        name,
      ]);
      expect(await rows.nth(1).locator('td').nth(3).textContent()).toBe('200');
      await requests.close();

      // Its counters, read again with the page.
      await page.getByRole('link', { name: 'Scenarios' }).click();
      await page.waitForSelector(`tr[data-scenario="${name}"]`);
      expect(await page.locator(`tr[data-scenario="${name}"] td.num`).textContent()).toBe('2 / 1');
      expect(await page.locator('#scenario-counters tbody tr').allTextContents()).toEqual([`${name}default3 of 321`]);
      expect(errors).toEqual([]);
    },
  );

  it.skipIf(!hasChromium)('writes a definition as JSON, replaces and deletes one, and activates with limits', async () => {
    const { page, errors } = await open('/ns/json/_sandbox/console/scenarios');
    // The other cases, chosen with the keyboard: their fields appear, the JSON follows.
    await page.getByLabel('Answer a status on the Nth call of an operation').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.isChecked('#case-delay')).toBe(true);
    expect(await page.isVisible('#scenario-delay-ms')).toBe(true);
    expect(await page.isVisible('#scenario-status')).toBe(false);
    await page.getByLabel('Operation', { exact: true }).selectOption('listGiftCards');
    expect(JSON.parse((await page.textContent('#definition-preview')) as string)).toMatchObject({
      name: 'listgiftcards-delay-1500ms',
      delay_ms: 1500,
      pass: true,
    });
    await page.getByLabel('Fail every report execution').check();
    expect(await page.isVisible('#scenario-operation')).toBe(false);
    expect(JSON.parse((await page.textContent('#definition-preview')) as string)).toMatchObject({
      name: 'report-executions-fail',
      report_execution: { path: ['pending', 'dispatched', 'processing', 'failed'] },
    });

    // The JSON editor: text that is not JSON, then a definition the API refuses, each said by the field.
    await page.getByRole('button', { name: 'Edit as JSON' }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('scenario-definition');
    expect(JSON.parse(await page.inputValue('#scenario-definition'))).toMatchObject({ name: 'report-executions-fail' });
    await page.fill('#scenario-definition', '{"name": "half"');
    await page.getByRole('button', { name: 'Send JSON' }).click();
    await poll(() => page.textContent('#scenario-definition-error')).toMatch(/^This is not JSON/);
    await page.fill('#scenario-definition', JSON.stringify({ name: 'teapot', description: 'x', operations: ['listGiftCards'], respond: { status: 418 } }));
    await page.getByRole('button', { name: 'Send JSON' }).click();
    await poll(() => page.textContent('#scenario-definition-error')).toMatch(/^\/respond\/status: 418 is not declared by operation listGiftCards/);
    await page.fill(
      '#scenario-definition',
      JSON.stringify({ name: 'teapot', description: 'Gift cards fail.', operations: ['listGiftCards'], respond: { status: 503 } }),
    );
    await page.getByRole('button', { name: 'Send JSON' }).click();
    await poll(() => page.textContent('#status')).toBe('Scenario teapot saved: activate it in the catalog.');

    // Edited as JSON and sent again: replaced (PUT); a file's scenario replaced in this namespace only.
    await page.getByRole('button', { name: 'Edit teapot as JSON' }).click();
    expect(await page.isChecked('#json-replace')).toBe(true);
    await page.fill('#scenario-definition', (await page.inputValue('#scenario-definition')).replace('503', '502'));
    // The page reads its content again after a save: the next click waits for that, or the new content would close the editor it opens.
    await page.evaluate(() => {
      (window as any).mainReloaded = new Promise((resolve) => document.getElementById('main')?.addEventListener('htmx:afterSettle', resolve, { once: true }));
    });
    await page.getByRole('button', { name: 'Send JSON' }).click();
    await page.evaluate(() => (window as any).mainReloaded.then(() => undefined));
    await poll(async () => (await (await api('/ns/json/_sandbox/scenarios/teapot')).json()).definition.respond).toEqual({ status: 502 });
    await page.getByRole('button', { name: 'Edit slow as JSON, to replace it in this namespace' }).click();
    await page.fill('#scenario-definition', (await page.inputValue('#scenario-definition')).replace('1500', '10'));
    await page.getByRole('button', { name: 'Send JSON' }).click();
    await poll(() => page.locator('tr[data-scenario="slow"] td').first().textContent()).toBe('defined here (replaces scenarios/slow.yaml)');
    expect((await (await api('/_sandbox/scenarios/slow')).json()).steps).toEqual([{ delay_ms: 1500, pass: true, times: 1 }]); // default namespace: as the file says

    // Activated with limits: the form ticks, the API keeps them; a call is counted against them.
    await page.getByRole('checkbox', { name: 'teapot' }).check();
    await page.getByLabel('For calls').fill('1');
    await page.getByRole('button', { name: 'Activate the ticked scenarios' }).click();
    await poll(() => page.locator('#active-scenarios').textContent()).toContain('For every merchant account: teapot (at most 1 call, 0 taken)');
    expect((await api('/ns/json/gift-cards')).status).toBe(502);
    expect((await api('/ns/json/gift-cards')).status).toBe(200); // it turned itself off
    await page.getByLabel('Answer a status on the Nth call of an operation').check();
    await page.getByLabel('Operation', { exact: true }).selectOption('listBuyerPaymentMethods');
    await page.getByLabel('On call number').fill('2');
    await shot(page, 'scenarios', 'header.top');
    // Deleted: gone from the catalog and from the API.
    await page.getByRole('button', { name: 'Delete teapot' }).click();
    await poll(() => page.locator('tr[data-scenario="teapot"]').count()).toBe(0);
    expect((await api('/ns/json/_sandbox/scenarios/teapot')).status).toBe(404);
    expect(errors).toEqual([]);
  });

  it.skipIf(!hasChromium)('subscribes a receiver, sees its delivery with the attempt, and sends it again after the receiver failed', async () => {
    const receiver = await Receiver.start();
    try {
      // Seeded subscriptions of other accounts are removed first, but for one the page deletes.
      const seeded = (await (await api('/ns/hooks/_sandbox/records/webhook_subscriptions?limit=100')).json()).items.map((s: { id: string }) => s.id);
      for (const id of seeded.slice(1)) expect((await api(`/ns/hooks/_sandbox/records/webhook_subscriptions/${id}`, { method: 'DELETE' })).status).toBe(204);
      const { page, errors } = await open('/ns/hooks/_sandbox/console/webhooks');
      await page.evaluate(() => ((window as any).notReloaded = true));
      await page.getByRole('button', { name: /^Delete the subscription to https:/ }).click();
      await poll(() => page.locator('#subscriptions-table tbody tr').count()).toBe(0);
      expect((await api(`/ns/hooks/_sandbox/records/webhook_subscriptions/${seeded[0]}`)).status).toBe(404);

      // A URL the records API refuses, then the receiver's.
      await page.getByLabel('URL', { exact: true }).fill('ftp://nowhere');
      await page.getByRole('button', { name: 'Subscribe' }).click();
      await poll(() => page.textContent('#subscribe-url-error')).toContain("Body field 'url' must match the pattern");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('subscribe-url');
      await page.getByLabel('URL', { exact: true }).fill(receiver.url);
      await page.getByRole('button', { name: 'Subscribe' }).click();
      await poll(() => page.locator('#subscriptions-table tbody tr').count()).toBe(1);
      const row = page.locator('#subscriptions-table tbody tr');
      expect(await row.locator('td').nth(1).textContent()).toBe('active');
      receiver.trust((await (await api('/ns/hooks/_sandbox/records/webhook_subscriptions')).json()).items[0].secret);

      // An API call causes the event; the delivery and its attempt show without reloading.
      await page.evaluate(() => ((window as any).notReloaded = true));
      expect((await api(`/ns/hooks/buyers/${BUYER}`, { method: 'PUT', body: JSON.stringify({ display_name: 'Hooked' }) })).status).toBe(200);
      await receiver.waitFor(1, 'buyer.updated', 80_000);
      const delivery = page.locator('#deliveries-table tbody tr');
      await untilCells(page, '#deliveries-table tbody tr td', ['buyer.updated', receiver.url, 'succeeded', '1, last: 200', 'none']);
      expect(await page.evaluate(() => (window as any).notReloaded)).toBe(true);
      await delivery.getByRole('link').click();
      await page.waitForSelector('#attempts-table');
      await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('delivery-title'); // the opened delivery, below the list, has the focus
      const attempts = page.locator('#attempts-table tbody tr');
      expect(await attempts.count()).toBe(1);
      expect((await attempts.first().locator('td').allTextContents()).filter((_, i) => [0, 3, 5, 6].includes(i))).toEqual(['1', '200', '', 'ok']);

      // The receiver fails; sent again from the page: a second attempt, with its status and answer.
      receiver.answers = [{ status: 500, body: 'receiver down' }];
      await page.getByRole('button', { name: 'Send again' }).click();
      await receiver.waitFor(2, 'buyer.updated', 80_000);
      await untilCells(page, '#attempts-table tbody tr td:first-child', ['1', '2 (sent again)']);
      expect((await attempts.nth(1).locator('td').allTextContents()).filter((_, i) => [0, 3, 5, 6].includes(i))).toEqual([
        '2 (sent again)',
        '500',
        'answered 500: not a 2xx',
        'receiver down',
      ]);
      const [listed] = (await (await api('/ns/hooks/_sandbox/webhooks/deliveries')).json()).items;
      expect(listed.attempts.map((a: any) => [a.number, a.status_code, a.manual])).toEqual([
        [1, 200, false],
        [2, 500, true],
      ]);
      expect(await accessibilityViolations(page)).toEqual([]); // with a delivery and its attempts open
      await shot(page, 'webhooks', '#deliveries-title');

      // An event on demand, the behaviour steered, the secret rotated, the subscription deactivated: each through its control route.
      receiver.answers = [{ status: 200, body: 'ok' }];
      await page.getByLabel('Event', { exact: true }).last().selectOption('buyer.created');
      await page.getByRole('button', { name: 'Trigger' }).click();
      await poll(() => page.textContent('#status')).toBe('Event buyer.created sent: 1 deliveries.');
      await receiver.waitFor(1, 'buyer.created', 80_000);
      await page.getByLabel('Deliver every event twice').check();
      await page.getByRole('button', { name: 'Save behaviour' }).click();
      await poll(async () => (await (await api('/ns/hooks/_sandbox/webhooks/behaviour')).json()).duplicate).toBe(true);
      await page.getByRole('button', { name: 'Back to normal' }).click();
      await poll(async () => (await (await api('/ns/hooks/_sandbox/webhooks/behaviour')).json()).duplicate).toBe(false);
      const secret = await row.locator('code.secret').textContent();
      await page.getByRole('button', { name: /^Rotate secret of the subscription to / }).click();
      await poll(() => row.locator('code.secret').textContent()).not.toBe(secret);
      await page.getByRole('button', { name: /^Deactivate the subscription to / }).click();
      await poll(() => row.locator('td').nth(1).textContent()).toBe('inactive');
      const [subscription] = (await (await api('/ns/hooks/_sandbox/records/webhook_subscriptions')).json()).items;
      expect(subscription).toMatchObject({ url: receiver.url, active: false, previous_secret: secret });
      expect(errors).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it.skipIf(!hasChromium)('reads the list again when the live stream comes back after a break: requests recorded meanwhile show', async () => {
    const { page, errors } = await open('/ns/broken/_sandbox/console');
    await poll(() => page.textContent('#live-state')).toBe('Live');
    expect((await api('/ns/broken/card-scheme-definitions')).status).toBe(200);
    const rows = page.locator('#request-rows tr');
    await poll(() => rows.count()).toBe(1);
    // The stream breaks; its next connection is held until requests were recorded, then it succeeds at once.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked = () => {};
    const reconnecting = new Promise<void>((resolve) => (asked = resolve));
    const stream = (url: URL) => url.pathname === '/ns/broken/_sandbox/requests/stream';
    await page.route(stream, async (route) => {
      asked();
      await released;
      await route.continue();
    });
    sandbox.deps.journalFeed.closeAll();
    await poll(() => page.textContent('#live-state')).toMatch(/^Not live \(the stream ended\); retrying…$/);
    await reconnecting;
    expect((await api('/ns/broken/gift-cards')).status).toBe(200);
    expect((await api('/ns/broken/connections')).status).toBe(200);
    release();
    await poll(() => page.textContent('#live-state')).toBe('Live');
    await poll(() => rows.locator('td:nth-child(3)').allTextContents()).toEqual(['/connections', '/gift-cards', '/card-scheme-definitions']);
    expect((await api(`/ns/broken/buyers/payment-methods?buyer_id=${BUYER}`)).status).toBe(200); // and live again after
    await poll(() => rows.count()).toBe(4);
    expect(errors).toEqual([]);
    await page.unroute(stream); // the tab goes on to other pages
  });

  it.skipIf(!hasChromium)('resets a namespace with its journal and drops one, each after a confirm step, as the API then shows', async () => {
    const namespace = async (name: string) => ((await (await api('/_sandbox/namespaces')).json()).items as any[]).find((ns) => ns.name === name);
    const displayName = async () => (await (await api(`/ns/doomed/_sandbox/records/buyers/${BUYER}`)).json()).display_name;
    expect((await api(`/ns/doomed/buyers/${BUYER}`, { method: 'PUT', body: JSON.stringify({ display_name: 'Changed in the test' }) })).status).toBe(200);
    expect((await namespace('doomed')).journal_size).toBe(1);
    const { page, errors } = await open('/_sandbox/console/namespaces');
    const row = page.locator('#namespaces-table tr[data-namespace="doomed"]');
    await row.waitFor();

    // The first click only asks; "Keep it" takes the question back and changes nothing.
    await row.getByRole('button', { name: 'Reset doomed and its journal…' }).click();
    const confirmReset = row.getByRole('button', { name: 'Reset doomed and clear its journal now' });
    await poll(() => confirmReset.isVisible()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Reset doomed and clear its journal now');
    expect(await row.getByRole('button', { name: 'Reset doomed and its journal…' }).getAttribute('aria-expanded')).toBe('true');
    await row.getByRole('button', { name: 'Keep it' }).first().click();
    expect(await confirmReset.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Reset doomed and its journal…');
    expect((await namespace('doomed')).journal_size).toBe(1);
    expect(await displayName()).toBe('Changed in the test');

    await row.getByRole('button', { name: 'Reset doomed and its journal…' }).click();
    await confirmReset.click();
    await poll(() => page.textContent('#status')).toBe('Namespace doomed reset, its journal cleared.');
    expect(await displayName()).toBe('Jane Doe'); // back to the fixtures
    expect((await namespace('doomed')).journal_size).toBe(0);
    await poll(() => row.locator('td').nth(2).textContent()).toBe('0'); // the page read the list again

    await row.getByRole('button', { name: 'Drop doomed…' }).click();
    expect(await namespace('doomed')).toBeDefined(); // not yet
    await row.getByRole('button', { name: 'Drop doomed now' }).click();
    await poll(() => page.textContent('#status')).toBe('Namespace doomed dropped.');
    await poll(() => row.count()).toBe(0);
    expect(await namespace('doomed')).toBeUndefined();
    expect(await page.locator('#namespaces-table tr[data-namespace="default"]').getByRole('button', { name: /^Drop/ }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  // axe-core's WCAG 2.1 A/AA rules on every page, at a desktop's width and a phone's, filled and
  // with query strings: phone-browser.test.ts.
  it.skipIf(!hasChromium)('is used with Tab and Enter', async () => {
    const { page } = await open('/ns/a11y/_sandbox/console/clock');
    const focusOrder: string[] = [];
    for (let i = 0; i < 11; i++) {
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
      'Webhooks',
      'Waiting for the buyer',
      'Namespaces and tokens',
      'Advance 1 minute',
    ]);
    const before = await page.textContent('#clock-now');
    await page.keyboard.press('Enter'); // on Advance 1 minute
    await poll(() => page.textContent('#status')).toBe('Clock moved: advance 1 minute.');
    await poll(() => page.textContent('#clock-now')).not.toBe(before);
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Advance 1 minute'); // the focus stays on the control
  });

  it.skipIf(!hasChromium)('fits a narrow window without scrolling sideways', async () => {
    // One tab going from page to page, as a tester does (a context for each costs a second a page).
    const { page } = await open('/ns/narrow/_sandbox/console/requests', { width: 400, height: 800 });
    for (const slug of ['requests', 'clock', 'records?collection=buyers', 'namespaces', 'scenarios', 'webhooks', 'approvals']) {
      if (slug !== 'requests') await visit(page, `/ns/narrow/_sandbox/console/${slug}`);
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }));
      expect(widths.page, slug).toBeLessThanOrEqual(widths.window);
      if (slug === 'requests') await page.screenshot({ path: join(SHOTS, 'console-narrow.png') });
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
