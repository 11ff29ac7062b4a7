// Every HTML page the sandbox serves refuses to be framed by another origin (issue 36 part 2;
// src/http/frame-guard.ts): the test walks every GET route of the app, fills each parameter with
// the values that give a page (every console page and part; a hosted page of an unknown and of a
// known id), and every answer that is HTML must carry CSP frame-ancestors and X-Frame-Options. A
// route with a parameter the test does not know fails it, so a new HTML route cannot be missed.
// The same in Chromium: test/console/framing-browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { PAGES } from '../../src/console/pages.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

/** The URLs a route pattern stands for, or an error naming what the test cannot fill. */
function urlsOf(pattern: string, ids: { token: string; transaction: string }): string[] {
  if (pattern === '/*' || pattern === '/_sandbox/*') return ['/nothing-here', '/_sandbox/nothing-here']; // the APIs: JSON
  let urls = [pattern.endsWith('/*') ? `${pattern.slice(0, -1)}nothing-here` : pattern];
  const fill = (param: string, values: string[]) => {
    urls = urls.flatMap((url) => (url.includes(param) ? values.map((v) => url.replace(param, v)) : [url]));
  };
  fill(
    ':slug/:fragment?',
    PAGES.flatMap((page) => [page.slug, ...Object.keys(page.fragments ?? {}).map((f) => `${page.slug}/${f}`)]),
  );
  fill(':slug', [...PAGES.map((page) => page.slug), 'no-such-page']);
  fill(':token_id', [ids.token, 'ffffffff-ffff-4fff-8fff-ffffffffffff']);
  fill(':transaction_id', [ids.transaction, 'ffffffff-ffff-4fff-8fff-ffffffffffff']);
  fill(':name', ['no-such-asset']);
  const unknown = urls.find((url) => url.includes(':'));
  if (unknown) throw new Error(`frame-guard.test.ts does not know how to fill ${unknown}: add its values`);
  return urls;
}

describe('framing of the sandbox’s HTML pages', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb.server.close());

  it('refuses framing by other origins on every HTML route', async () => {
    const transaction = (await sb.http.get('/_sandbox/records/transactions?limit=1')).body.items[0].id;
    const token = (await sb.http.get('/_sandbox/records/payment_service_tokens?limit=1')).body.items[0].id;
    const patterns = [
      ...new Set(
        createApp(sb.deps)
          .routes.filter((r) => r.method === 'GET' || r.method === 'ALL')
          .map((r) => r.path),
      ),
    ];
    const html: string[] = [];
    const unguarded: string[] = [];
    for (const url of patterns.flatMap((pattern) => urlsOf(pattern, { token, transaction }))) {
      const res = await sb.http.get(url);
      if (!String(res.headers['content-type']).startsWith('text/html')) continue;
      html.push(`${url} ${res.status}`);
      const policy = String(res.headers['content-security-policy']);
      const frameOptions = res.headers['x-frame-options'];
      if (!/frame-ancestors '(self|none)'/.test(policy) || !['SAMEORIGIN', 'DENY'].includes(frameOptions)) {
        unguarded.push(`${url}: content-security-policy ${policy}, x-frame-options ${frameOptions}`);
      }
    }
    expect(unguarded).toEqual([]);
    // The walk did reach the pages: the docs, every console page and part, the hosted pages (found or not).
    const reached = html.map((line) => line.split(' ')[0]);
    expect(reached).toEqual(
      expect.arrayContaining([
        '/docs',
        '/docs/',
        '/docs/admin',
        '/_sandbox/console',
        '/_sandbox/console/',
        ...PAGES.flatMap((page) => [`/_sandbox/console/${page.slug}`, `/_sandbox/console/parts/${page.slug}`]),
        `/_sandbox/hosted/approvals/${token}`,
        '/_sandbox/hosted/approvals/ffffffff-ffff-4fff-8fff-ffffffffffff',
        `/_sandbox/hosted/transactions/${transaction}/complete`,
      ]),
    );
  });

  it('keeps the hosted pages’ stricter rule: no frame at all', async () => {
    const res = await sb.http.get('/_sandbox/hosted/approvals/ffffffff-ffff-4fff-8fff-ffffffffffff');
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe("frame-ancestors 'none'; form-action 'self' http: https:");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('leaves answers that are not HTML alone', async () => {
    for (const url of ['/openapi.json', '/_sandbox/health', '/_sandbox/console/assets/console.css']) {
      const res = await sb.http.get(url);
      expect([url, res.status, res.headers['x-frame-options']]).toEqual([url, 200, undefined]);
    }
  });
});
