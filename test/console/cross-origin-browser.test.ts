// Issue 27, part 2, in a real headless Chromium: a page of another local origin (a tiny server on
// another port, reached as 127.0.0.1: same site, another origin; and as localhost: another site)
// tries to reset everything and to mint a token through the control API, with fetch (no-cors and
// cors, with and without a preflight) and with HTML forms (text/plain and urlencoded). Every try
// reaches the sandbox and is refused (its metrics count them as 403s), and the state is as it was:
// a buyer changed before is still changed, the journal keeps its entries, no namespace was made.
// The same script from the sandbox's own origin (the console's page) does reset: the test can fail.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { CHROMIUM, hasChromium, launchChromium } from '../support/browser.js';
import { WELL_KNOWN } from '../support/sandbox.js';

if (!hasChromium) console.warn(`cross-origin-browser.test.ts: ${CHROMIUM} is absent, the browser tests of the own-origin check do not run`);

const BUYER = `/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}`;
const RESET = '/_sandbox/reset?all=true&journal=true';
const TOKENS = '/ns/minted-by-page/_sandbox/tokens';
/** What each page tries per target path: requests that reach the sandbox (a preflight for the JSON one). */
const FETCHES = ['no-cors text/plain', 'cors text/plain', 'cors json'] as const;
const FORMS = ['text/plain', 'application/x-www-form-urlencoded'] as const;

describe('a page of another origin against the control API, in Chromium', { timeout: 90_000 }, () => {
  let sandbox: RunningSandbox;
  let attacker: Server;
  let browser: Browser;

  beforeAll(async () => {
    if (!hasChromium) return;
    sandbox = await startSandbox({ port: 0, validateResponses: true, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    attacker = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title><body></body>'));
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await sandbox?.close();
  });

  const control = (path: string, init?: RequestInit) => fetch(`${sandbox.url}${path}`, init);

  /** What a page could have changed. */
  async function state() {
    const buyer = (await (await control(BUYER)).json()).display_name;
    const journal = (await (await control('/_sandbox/requests/count')).json()).count;
    const namespaces = ((await (await control('/_sandbox/namespaces')).json()).items as Array<{ name: string }>).map((n) => n.name).sort();
    return { buyer, journal, namespaces };
  }

  /** Requests the sandbox refused with 403 before matching an operation (its own metrics). */
  async function refusedCount(): Promise<number> {
    const text = await (await control('/_sandbox/metrics')).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('payments_sandbox_requests_total{') && l.includes('operation="(none)"') && l.includes('status="403"'));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }

  /** The page's fetches at one path: how each ended, as the page saw it. */
  function tryFetches(page: Page, url: string): Promise<string[]> {
    return page.evaluate(
      async ({ url, kinds }) => {
        const inits: Record<string, RequestInit> = {
          'no-cors text/plain': { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"all":true}' },
          'cors text/plain': { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"all":true}' },
          'cors json': { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"all":true}' },
        };
        const ended: string[] = [];
        for (const kind of kinds) {
          try {
            const res = await fetch(url, inits[kind]);
            ended.push(`${kind}: ${res.type} ${res.status}`);
          } catch (err) {
            ended.push(`${kind}: ${(err as Error).name}`);
          }
        }
        return ended;
      },
      { url, kinds: [...FETCHES] },
    );
  }

  /** A form of the page posted to `url` into a frame; the status the sandbox answered. */
  async function postForm(page: Page, url: string, enctype: string): Promise<number> {
    const answered = page.waitForResponse((res) => res.url() === url && res.request().method() === 'POST');
    await page.evaluate(
      ({ url, enctype }) => {
        const frame = Object.assign(document.createElement('iframe'), { name: `frame-${Math.random()}` });
        const form = Object.assign(document.createElement('form'), { method: 'POST', action: url, enctype, target: frame.name });
        form.append(Object.assign(document.createElement('input'), { name: 'all', value: 'true' }));
        document.body.append(frame, form);
        form.submit();
      },
      { url, enctype },
    );
    return (await answered).status();
  }

  it.skipIf(!hasChromium)('refuses fetches and form posts of pages on another port and on another name, and nothing changes', async () => {
    const { port } = attacker.address() as AddressInfo;
    expect((await control(BUYER, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"display_name":"Changed before"}' })).status).toBe(
      200,
    );
    expect((await control('/card-scheme-definitions', { headers: { authorization: `Bearer ${await sandbox.token()}` } })).status).toBe(200);
    const before = await state();
    expect(before.journal).toBe(1);
    const refusedBefore = await refusedCount();

    const origins = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
    for (const origin of origins) {
      const context = await browser.newContext();
      const page = await context.newPage();
      expect((await page.goto(`${origin}/`))?.status()).toBe(200);
      for (const path of [RESET, TOKENS]) {
        // The browser hides the answers too, but the sandbox must not have acted: state() below.
        expect(await tryFetches(page, `${sandbox.url}${path}`)).toEqual(['no-cors text/plain: opaque 0', 'cors text/plain: TypeError', 'cors json: TypeError']);
        for (const enctype of FORMS)
          expect([origin, path, enctype, await postForm(page, `${sandbox.url}${path}`, enctype)]).toEqual([origin, path, enctype, 403]);
      }
      await context.close();
    }

    expect(await state()).toEqual(before);
    expect(before.namespaces).not.toContain('minted-by-page');
    // Each try reached the sandbox and was refused there (the JSON fetch as its preflight).
    expect((await refusedCount()) - refusedBefore).toBe(origins.length * 2 * (FETCHES.length + FORMS.length));
  });

  it.skipIf(!hasChromium)('lets the same script reset from the sandbox’s own origin (the console’s page)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    expect((await page.goto(`${sandbox.url}/_sandbox/console`))?.status()).toBe(200);
    expect((await control(BUYER, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"display_name":"Changed before"}' })).status).toBe(
      200,
    );
    const ended = await page.evaluate(
      async (url) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status,
      `${sandbox.url}${RESET}`,
    );
    expect(ended).toBe(200);
    expect((await state()).buyer).not.toBe('Changed before');
    await context.close();
  });
});
