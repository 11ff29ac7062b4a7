// The API reference page in a real headless Chromium with every request off 127.0.0.1 blocked:
// it loads, lists every operation of openapi.json (and of openapi.admin.json on /docs/admin), and
// logs no console error; "Try it out" calls the sandbox at the address the page came from.
// Skipped, with a visible warning, only where /usr/bin/chromium is absent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { CHROMIUM, hasChromium, launchChromium, openPage } from '../support/browser.js';

if (!hasChromium) console.warn(`docs-browser.test.ts: ${CHROMIUM} is absent, the browser test of /docs does not run (apt-get install chromium)`);

const ROOT = join(import.meta.dirname, '../..');
const operationIds = (file: string): string[] => {
  const doc = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  return Object.values(doc.paths).flatMap((item) =>
    Object.values(item).flatMap((op) => (op && typeof op === 'object' && op.operationId ? [op.operationId] : [])),
  );
};

describe('the /docs page in Chromium', () => {
  let sandbox: RunningSandbox;
  let browser: Browser;

  beforeAll(async () => {
    if (!hasChromium) return;
    sandbox = await startSandbox({ port: 0, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  /** Opens a page that may only talk to 127.0.0.1 (no blob: or data: either), every console error counted, a failed load included. */
  async function openOffline(path: string): Promise<{ page: Page; blocked: string[]; errors: string[] }> {
    const opened = await openPage(await browser.newContext(), { allow: (url) => url.hostname === '127.0.0.1', everyConsoleError: true });
    const res = await opened.page.goto(`${sandbox.url}${path}`);
    expect(res?.status()).toBe(200);
    return opened;
  }

  /**
   * /docs/admin, opened once for the two tests that read it: Swagger UI's first render of a spec
   * costs Chromium about 5 s of CPU (measured: the renderer's own time), the most of any page here.
   */
  let adminPage: ReturnType<typeof openOffline> | undefined;
  const openAdmin = () => {
    adminPage ??= openOffline('/docs/admin');
    return adminPage;
  };

  async function listedOperationIds(page: Page, count: number): Promise<string[]> {
    await page.waitForFunction((n) => document.querySelectorAll('.opblock-summary-operation-id').length >= n, count, { timeout: 20_000 });
    return page.$$eval('.opblock-summary-operation-id', (nodes) => nodes.map((n) => (n.textContent ?? '').trim()));
  }

  it.skipIf(!hasChromium)('lists all 19 operations of openapi.json and its 47 webhook events, offline, with no console error', async () => {
    const webhooks = Object.values<any>(JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')).webhooks).map((item) => item.post.operationId as string);
    expect(operationIds('openapi.json')).toHaveLength(19);
    expect(webhooks).toHaveLength(47);
    const expected = [...operationIds('openapi.json'), ...webhooks];
    const { page, blocked, errors } = await openOffline('/docs');
    const listed = await listedOperationIds(page, expected.length);
    expect([...listed].sort()).toEqual([...expected].sort());
    await expect(page.title()).resolves.toBe('payments-sandbox API reference');
    expect(await page.textContent('.info .title')).toContain(JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')).info.title);
    await page.waitForLoadState('networkidle');
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });

  it.skipIf(!hasChromium)('offers the address the page came from as server, and "Try it out" reaches the sandbox there', async () => {
    expect(sandbox.url).not.toBe('http://127.0.0.1:4010');
    const { page, blocked, errors } = await openAdmin();
    await listedOperationIds(page, 1);
    const servers = await page.$$eval('.servers select option', (options) => options.map((o) => (o as HTMLOptionElement).value));
    expect(servers).toEqual([sandbox.url]);
    await page.click('#operations-Sandbox-getHealth .opblock-summary');
    await page.click('#operations-Sandbox-getHealth .try-out__btn');
    await page.click('#operations-Sandbox-getHealth .execute');
    await page.waitForSelector('#operations-Sandbox-getHealth .live-responses-table tbody .response-col_status', { timeout: 20_000 });
    const status = await page.textContent('#operations-Sandbox-getHealth .live-responses-table tbody .response-col_status');
    expect(status?.trim()).toBe('200');
    const url = await page.textContent('#operations-Sandbox-getHealth .request-url pre');
    expect(url?.trim()).toBe(`${sandbox.url}/_sandbox/health`);
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });

  it.skipIf(!hasChromium)('shows the control API on /docs/admin', async () => {
    const expected = operationIds('openapi.admin.json');
    const { page, blocked, errors } = await openAdmin();
    const listed = await listedOperationIds(page, expected.length);
    expect([...listed].sort()).toEqual([...expected].sort());
    expect(await page.textContent('.info .title')).toContain('payments-sandbox control API');
    await page.waitForLoadState('networkidle');
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });
});
