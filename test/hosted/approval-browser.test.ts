// The hosted approval page in a real headless Chromium (Debian's, through playwright-core), with
// every request off 127.0.0.1 blocked: the well-known waiting token's approval_url from the token
// list, Approve, the token succeeded through the API and its notification at a local receiver; a
// token made waiting through the records API, Decline, failed; a second visit with no buttons; the
// same inside a namespace and over HTTPS (--tls); axe-core's WCAG 2.1 A/AA rules on the page.
// Skipped, with a visible warning, only where /usr/bin/chromium is absent.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { accessibilityViolations, CHROMIUM, hasChromium, launchChromium, openPage } from '../support/browser.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { h1Request } from '../tls/support.js';
import { Receiver } from '../webhooks/receiver.js';

if (!hasChromium) console.warn(`approval-browser.test.ts: ${CHROMIUM} is absent, the browser tests of the hosted pages do not run (apt-get install chromium)`);

const PM = WELL_KNOWN.paymentMethods.card.id;
const WAITING = WELL_KNOWN.paymentServiceTokens.braintree.id;
const quiet = () => createLogger({ logLevel: 'silent', logFormat: 'json' });

interface Answer {
  status: number;
  body: any;
}

/** One sandbox (plain or --tls), how the test calls it, and a subscription to a local receiver. */
interface Setup {
  sandbox: RunningSandbox;
  call(method: string, path: string, body?: unknown): Promise<Answer>;
  receiver: Receiver;
}

async function setUp(sandbox: RunningSandbox): Promise<Setup> {
  const auth = `Bearer ${await sandbox.token()}`;
  const ca = sandbox.tls ? readFileSync(sandbox.tls.caFile as string) : null;
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const headers = { authorization: auth, 'content-type': 'application/json' };
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (ca) {
      const res = await h1Request(`${sandbox.url}${path}`, { method, headers, ca, body: text });
      return { status: res.status as number, body: res.body ? JSON.parse(res.body) : null };
    }
    const res = await fetch(`${sandbox.url}${path}`, { method, headers, body: text });
    const raw = await res.text();
    return { status: res.status, body: raw ? JSON.parse(raw) : null };
  };
  const receiver = await Receiver.start();
  return { sandbox, call, receiver };
}

async function subscribe(setup: Setup, prefix: string): Promise<void> {
  const sub = await setup.call('POST', `${prefix}/_sandbox/records/webhook_subscriptions`, { url: setup.receiver.url });
  expect(sub.status).toBe(201);
  setup.receiver.trust(sub.body.secret);
}

const call = (setup: Setup, path: string) => setup.call('GET', path);
const buttons = (page: Page) => page.getByRole('button').allTextContents();

/** The flow a tester clicks through, in the namespace of `prefix` ('' or /ns/{name}). */
async function clickThrough(browser: Browser, setup: Setup, prefix: string): Promise<void> {
  const { call, receiver } = setup;
  receiver.clear();
  await subscribe(setup, prefix);
  // In a namespace, a phone's window: HTTPS as a phone that trusts the sandbox CA.
  const viewport = prefix ? { width: 360, height: 740 } : { width: 1280, height: 800 };
  const context = await browser.newContext({ ignoreHTTPSErrors: setup.sandbox.tls !== null, viewport });
  try {
    const { page, blocked, errors } = await openPage(context);

    // The well-known waiting token: its approval_url from the token list, Approve.
    const list = await call('GET', `${prefix}/payment-methods/${PM}/payment-service-tokens`);
    const approvalUrl = list.body.items.find((t: any) => t.id === WAITING).approval_url;
    expect(approvalUrl).toBe(`${setup.sandbox.url}${prefix}/_sandbox/hosted/approvals/${WAITING}`);
    expect((await page.goto(approvalUrl))?.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Approve this payment method?');
    expect(await buttons(page)).toEqual(['Approve', 'Decline', 'Cancel']);
    expect(await page.locator('dl').textContent()).toContain('Braintree (braintree-card)');
    expect(await accessibilityViolations(page, 5)).toEqual([]);
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }));
    expect(widths.page).toBeLessThanOrEqual(widths.window); // no sideways scrolling, on a phone too
    // The status in words, its raw value after it, broken (on a phone) only at its underscores (issue 37).
    expect(await page.locator('dl dd strong').textContent()).toBe('Waiting for your approval');
    const lines = await page.locator('code.status-code').evaluate((code) =>
      [...code.childNodes]
        .filter((n) => n.nodeType === Node.TEXT_NODE && /[a-z]/.test(n.textContent ?? ''))
        .map((n) => {
          const range = document.createRange();
          range.selectNodeContents(n);
          return [n.textContent, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size];
        }),
    );
    expect(lines).toEqual([
      ['buyer_', 1],
      ['approval_', 1],
      ['required', 1],
    ]);
    await Promise.all([page.waitForURL(approvalUrl, { waitUntil: 'load' }), page.getByRole('button', { name: 'Approve' }).click()]);
    expect(await page.getByRole('status').textContent()).toBe('The buyer approved this payment method.');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Payment method approved');
    expect(await buttons(page)).toEqual([]);
    // A way back: the console's tokens waiting for the buyer, in the page's namespace.
    expect(await page.getByRole('link', { name: 'Back to the tokens waiting for the buyer' }).getAttribute('href')).toBe(
      `${prefix}/_sandbox/console/approvals`,
    );
    expect(await accessibilityViolations(page, 5)).toEqual([]);
    const approved = (await call('GET', `${prefix}/payment-methods/${PM}/payment-service-tokens`)).body.items.find((t: any) => t.id === WAITING);
    expect(approved).toMatchObject({ status: 'succeeded', approval_url: null });
    const [note] = await receiver.waitFor(1, 'payment-service-token.updated');
    expect(note.verified).toBe(true);
    expect(note.event.target).toEqual(approved);

    // A token made waiting through the records API: Decline; a second visit offers no buttons.
    const made = await call('POST', `${prefix}/_sandbox/records/payment_service_tokens`, {
      payment_method_id: PM,
      payment_service_id: WELL_KNOWN.paymentServices.stripe.id,
      status: 'buyer_approval_required',
      token: 'tok_browser',
    });
    expect(made.status).toBe(201);
    await page.goto(made.body.approval_url);
    await Promise.all([page.waitForURL(made.body.approval_url, { waitUntil: 'load' }), page.getByRole('button', { name: 'Decline' }).click()]);
    expect(await page.getByRole('status').textContent()).toBe('The buyer declined this payment method.');
    const declined = await call('GET', `${prefix}/_sandbox/records/payment_service_tokens/${made.body.id}`);
    expect(declined.body).toMatchObject({ status: 'failed', approval_url: null });
    await page.goto(made.body.approval_url);
    expect(await buttons(page)).toEqual([]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Payment method declined');
    expect((await receiver.waitFor(2, 'payment-service-token.updated'))[1].event.target).toMatchObject({ id: made.body.id, status: 'failed' });
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

describe('the hosted approval page in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  let plain: Setup;
  let secure: Setup;
  let tlsDir: string;

  beforeAll(async () => {
    if (!hasChromium) return;
    tlsDir = mkdtempSync(join(tmpdir(), 'hosted-tls-'));
    plain = await setUp(await startSandbox({ port: 0, validateResponses: true, logger: quiet() }));
    secure = await setUp(await startSandbox({ port: 0, tls: true, tlsDir, validateResponses: true, logger: quiet() }));
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    for (const setup of [plain, secure]) {
      await setup?.receiver.close();
      await setup?.sandbox.close();
    }
    if (tlsDir) rmSync(tlsDir, { recursive: true, force: true });
  });

  it.skipIf(!hasChromium)('approve and decline by clicking, over HTTP', () => clickThrough(browser, plain, ''));
  it.skipIf(!hasChromium)('the same inside a namespace', () => clickThrough(browser, plain, '/ns/browser-team'));
  it.skipIf(!hasChromium)('the console lists the waiting token with a link to its page, and its Approve decides', async () => {
    const prefix = '/ns/console-team';
    plain.receiver.clear();
    await subscribe(plain, prefix);
    const context = await browser.newContext();
    try {
      const { page, blocked, errors } = await openPage(context);
      await page.goto(`${plain.sandbox.url}${prefix}/_sandbox/console/approvals`);
      // The seed has a few tokens waiting; the well-known one among them.
      const waitingCount = (await call(plain, `${prefix}/_sandbox/records/payment_service_tokens?limit=1000`)).body.items.filter(
        (t: any) => t.status === 'buyer_approval_required',
      ).length;
      const rows = page.locator('#waiting-rows tr');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(waitingCount);
      const row = page.locator('#waiting-rows tr', { hasText: WAITING });
      expect(await row.locator('td').first().textContent()).toBe(WAITING);
      const link = row.getByRole('link');
      expect(await link.getAttribute('href')).toBe(`${plain.sandbox.url}${prefix}/_sandbox/hosted/approvals/${WAITING}`);
      expect(await row.getByRole('button').allTextContents()).toEqual(['Approve', 'Decline', 'Cancel']);
      expect(await accessibilityViolations(page, 5)).toEqual([]);
      await row.getByRole('button', { name: `Approve token ${WAITING}` }).click();
      await expect
        .poll(() => page.locator('#decided-rows tr').first().locator('td').allTextContents(), { timeout: 15_000 })
        .toEqual([WAITING, 'approved', 'succeeded', expect.stringMatching(/^\d{4}-/)]);
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(waitingCount - 1);
      expect(await row.count()).toBe(0);
      const [note] = await plain.receiver.waitFor(1, 'payment-service-token.updated');
      expect(note.event.target).toMatchObject({ id: WAITING, status: 'succeeded', approval_url: null });
      await page.goto(`${plain.sandbox.url}${prefix}/_sandbox/hosted/approvals/${WAITING}`);
      expect(await buttons(page)).toEqual([]);
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.skipIf(!hasChromium)('the same over HTTPS (--tls), in a namespace too', async () => {
    expect(secure.sandbox.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await clickThrough(browser, secure, '');
    await clickThrough(browser, secure, '/ns/secure-team');
  });
});
