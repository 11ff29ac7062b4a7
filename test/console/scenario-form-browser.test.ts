// Scenarios by form (issue 37, part 3), in Chromium: "On call number" takes a list and ranges
// (1,3-4 fails the 1st, 3rd and 4th calls), a typo is refused next to the field before anything is
// sent, "Activate it now" defines and activates in one step; and "Copy as curl" of a request a
// console-activated scenario failed names the scenario, so the copied command, run by bash once
// the activation is gone, gets the 500 the client got.
import { execFile } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { accessibilityViolations, CHROMIUM, hasChromium, launchChromium, openPage } from '../support/browser.js';
import { WELL_KNOWN } from '../support/sandbox.js';

if (!hasChromium) console.warn(`scenario-form-browser.test.ts: ${CHROMIUM} is absent, these browser tests do not run (apt-get install chromium)`);

const BUYER = WELL_KNOWN.buyers.default.id;
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 50 });

function bash(script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', script], { env: { ...process.env, ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

describe('scenarios by form, and curl of what a scenario answered, in Chromium', { timeout: 120_000 }, () => {
  let sandbox: RunningSandbox;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    if (!hasChromium) return;
    sandbox = await startSandbox({ port: 0, validateResponses: true, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    token = await sandbox.token();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  const call = (ns: string, headers: Record<string, string> = {}) =>
    fetch(`${sandbox.url}/ns/${ns}/buyers/payment-methods?buyer_id=${BUYER}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  async function open(path: string) {
    const namespace = /^\/ns\/([^/]+)\//.exec(path)?.[1];
    expect((await fetch(`${sandbox.url}/ns/${namespace}/_sandbox/health`)).status).toBe(200);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sandbox.url });
    const opened = await openPage(context);
    expect((await opened.page.goto(`${sandbox.url}${path}`))?.status()).toBe(200);
    await opened.page.waitForSelector('main h1 + .summary');
    return { ...opened, context };
  }

  it.skipIf(!hasChromium)('defines "500 on calls 1,3-4" and activates it in one step; a typo is refused before sending', async () => {
    const { page, context, errors } = await open('/ns/calls/_sandbox/console/scenarios');
    await page.getByLabel('Operation', { exact: true }).selectOption('listBuyerPaymentMethods');
    await page.getByLabel('On call number').fill('1;3');
    await page.getByRole('button', { name: 'Define scenario' }).click();
    await poll(() => page.textContent('#scenario-call-error')).toBe("'1;3' is not a call number or a range: write 2, 1,2 or 3-5.");
    const defined = async () => ((await (await fetch(`${sandbox.url}/ns/calls/_sandbox/scenarios`)).json()) as { items: Array<{ source: string }> }).items;
    expect((await defined()).filter((s) => s.source === 'defined')).toEqual([]); // nothing was sent
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByLabel('On call number').fill('1,3-4');
    const name = 'listbuyerpaymentmethods-calls-1-3-4-500';
    expect(JSON.parse((await page.textContent('#definition-preview')) as string)).toEqual({
      name,
      description: 'The 1st, 3rd and 4th calls of listBuyerPaymentMethods answer 500; the others run normally.',
      operations: ['listBuyerPaymentMethods'],
      calls: [1, 3, 4],
      respond: { status: 500 },
    });
    await page.getByLabel('Activate it now, for every merchant account (PUT /_sandbox/scenarios/active)').check();
    await page.getByRole('button', { name: 'Define scenario' }).click();
    await poll(() => page.textContent('#status')).toBe(`Scenario ${name} saved and activated for every merchant account.`);
    await poll(() => page.locator('#active-scenarios').textContent()).toBe(`For every merchant account: ${name} Deactivate for every merchant account`);
    expect((await defined()).filter((s) => s.source === 'defined')).toHaveLength(1);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call('calls')).status);
    expect(statuses).toEqual([500, 200, 500, 500, 200]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.skipIf(!hasChromium)("copies as curl a request a console-activated scenario failed: the command gets the client's 500", async () => {
    const { page, context } = await open('/ns/replay/_sandbox/console/scenarios');
    await page.getByRole('button', { name: 'Activate server-error' }).click();
    await poll(() => page.locator('#active-scenarios').textContent()).toContain('For every merchant account: server-error');
    expect((await call('replay')).status).toBe(500); // no header: the activation answered it
    // The activation ends; the client's 500 is now reproduced only by naming the scenario.
    expect((await fetch(`${sandbox.url}/ns/replay/_sandbox/scenarios/active`, { method: 'DELETE' })).status).toBe(204);
    expect((await call('replay')).status).toBe(200);

    await page.goto(`${sandbox.url}/ns/replay/_sandbox/console/requests?status=5xx`);
    const row = page.locator('#request-rows tr').first();
    await poll(() => row.locator('td').nth(3).textContent()).toBe('500');
    await row.getByRole('button').click();
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl.split('\n')).toContain(
      '# x-sandbox-scenario added: the scenario server-error answered this request (activated, not named by the client) with 500; a scenario that counts calls (calls, after, times) answers a replay as its next call, which may run normally',
    );
    expect(curl).toContain("-H 'x-sandbox-scenario: server-error'");
    const status = await bash(`${curl} -s -o /dev/null -w '%{http_code}'`, { TOKEN: token });
    expect(status).toBe('500');
    await context.close();
  });

  it.skipIf(!hasChromium)('an empty requests page says how to make a first request, and hides it once one arrives', async () => {
    const { page, context } = await open('/ns/empty/_sandbox/console/requests');
    const hint = page.locator('#requests-empty');
    expect(await hint.isVisible()).toBe(true);
    expect(await hint.locator('pre').textContent()).toBe(
      `export TOKEN=$(npx payments-sandbox token)   # in a container: docker run --rm payments-sandbox token\ncurl -H "Authorization: Bearer $TOKEN" ${sandbox.url}/ns/empty/connections`,
    );
    expect(await accessibilityViolations(page)).toEqual([]);
    expect((await fetch(`${sandbox.url}/ns/empty/connections`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await poll(() => page.locator('#request-rows tr').count()).toBe(1);
    expect(await hint.isVisible()).toBe(false);
    await context.close();
  });
});
