// Issue 36, part 1, in a real headless Chromium: pages of three origins, all served by one tiny
// server on 127.0.0.1 (Chromium maps the public-looking names to it with --host-resolver-rules),
// hold a valid admin token (the key pairs are published: a page can sign one itself) and try to
// overwrite a buyer with a PUT and to create a namespace. The page at evil.example, an origin the
// sandbox does not grant, fails at its preflight and nothing changes; the pages at localhost (a
// loopback origin) and checkout.example (named with --cors-origin) overwrite the buyer, and may use
// a namespace code created but not create one.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { CHROMIUM, hasChromium, launchChromium, servePlainPage } from '../support/browser.js';
import { WELL_KNOWN } from '../support/sandbox.js';

if (!hasChromium) console.warn(`api-cors-browser.test.ts: ${CHROMIUM} is absent, the browser tests of the API's CORS do not run`);

const BUYER = `/buyers/${WELL_KNOWN.buyers.default.id}`;

describe('the API’s CORS in Chromium', { timeout: 120_000 }, () => {
  let sandbox: RunningSandbox;
  let pages: Awaited<ReturnType<typeof servePlainPage>>;
  let port: number;
  let browser: Browser;

  beforeAll(async () => {
    if (!hasChromium) return;
    pages = await servePlainPage();
    port = pages.port;
    sandbox = await startSandbox({
      port: 0,
      validateResponses: true,
      corsOrigins: [`http://checkout.example:${port}`],
      logger: createLogger({ logLevel: 'silent', logFormat: 'json' }),
    });
    browser = await launchChromium(['--host-resolver-rules=MAP evil.example 127.0.0.1, MAP checkout.example 127.0.0.1']);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await sandbox?.close();
  });

  const control = (path: string, init?: RequestInit) => fetch(`${sandbox.url}${path}`, init);
  const displayName = async () => (await (await control(`/_sandbox/records${BUYER}`)).json()).display_name;
  const namespaces = async () => ((await (await control('/_sandbox/namespaces')).json()).items as Array<{ name: string }>).map((n) => n.name).sort();

  async function pageAt(host: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    expect((await page.goto(`http://${host}:${port}/`))?.status()).toBe(200);
    return page;
  }

  /** The page's PUT of the buyer and its GET in a new namespace: each status it read, or the error it got. */
  async function tryFromPage(page: Page, name: string, namespace: string): Promise<string[]> {
    const token = await sandbox.token();
    return page.evaluate(
      async ({ base, buyer, token, name, namespace }) => {
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const ended: string[] = [];
        for (const [url, init] of [
          [`${base}${buyer}`, { method: 'PUT', headers, body: JSON.stringify({ display_name: name }) }],
          [`${base}/ns/${namespace}/card-scheme-definitions`, { headers }],
        ] as const) {
          try {
            ended.push(`${init.method ?? 'GET'} ${(await fetch(url, init)).status}`);
          } catch (err) {
            ended.push(`${init.method ?? 'GET'} ${(err as Error).name}`);
          }
        }
        return ended;
      },
      { base: sandbox.url, buyer: BUYER, token, name, namespace },
    );
  }

  it.skipIf(!hasChromium)('refuses a page of an origin it does not grant: nothing changes', async () => {
    const [before, listed] = [await displayName(), await namespaces()];
    const page = await pageAt('evil.example');
    expect(await tryFromPage(page, 'Overwritten by evil.example', 'made-by-evil')).toEqual(['PUT TypeError', 'GET TypeError']);
    expect(await displayName()).toBe(before);
    expect(await namespaces()).toEqual(listed);
    await page.context().close();
  });

  it.skipIf(!hasChromium)('serves pages of a loopback origin and of a --cors-origin, which use namespaces but do not create them', async () => {
    for (const host of ['localhost', 'checkout.example']) {
      const listed = await namespaces();
      const page = await pageAt(host);
      // The buyer is overwritten; the new namespace is refused, and the page may read why (403, not a network error).
      expect([host, ...(await tryFromPage(page, `Written by ${host}`, `made-by-${host}`))]).toEqual([host, 'PUT 200', 'GET 403']);
      expect(await displayName()).toBe(`Written by ${host}`);
      expect(await namespaces()).toEqual(listed);
      // Made by code, it is the page's to use.
      expect((await control(`/ns/made-by-${host}/_sandbox/reset`, { method: 'POST' })).status).toBe(200);
      expect([host, ...(await tryFromPage(page, `Again by ${host}`, `made-by-${host}`))]).toEqual([host, 'PUT 200', 'GET 200']);
      await page.context().close();
    }
  });
});
