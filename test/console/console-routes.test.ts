// The console over HTTP: shells of every page (no data, no token), its files from the package,
// its content behind the admin token exactly like the control API, read without creating a
// namespace, and a request's detail with its validation details and the request as curl.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ASSET_NAMES } from '../../src/console/assets.js';
import { PAGES } from '../../src/console/pages.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const ROOT = join(import.meta.dirname, '../..');
const SLUGS = ['requests', 'scenarios', 'clock', 'records', 'webhooks', 'approvals', 'namespaces'];

describe('console routes, on loopback without an admin token', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  it('lists its pages in one table, the requests page first', () => {
    expect(PAGES.map((p) => p.slug)).toEqual(SLUGS);
  });

  it.each(['/_sandbox/console', ...SLUGS.map((s) => `/_sandbox/console/${s}`)])(
    'serves the shell of %s: landmarks, navigation, local files only',
    async (path) => {
      const res = await sb.http.get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
      expect(res.headers['cache-control']).toBe('no-store');
      const html = res.text;
      expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
      for (const landmark of ['<header', '<nav aria-label="Console pages">', '<main id="main"', 'role="status"']) expect(html).toContain(landmark);
      const slug = path === '/_sandbox/console' ? 'requests' : path.split('/').pop();
      expect(html).toContain(`data-part="/_sandbox/console/parts/${slug}"`);
      expect(html).toContain(`<a href="/_sandbox/console/${slug}" aria-current="page">`);
      expect([...html.matchAll(/<a href="\/_sandbox\/console\/(\w+)"/g)].map((m) => m[1])).toEqual(expect.arrayContaining(SLUGS));
      const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(urls.filter((u) => u.includes('/assets/'))).toEqual([
        '/_sandbox/console/assets/console.css',
        '/_sandbox/console/assets/htmx.min.js',
        '/_sandbox/console/assets/console.js',
      ]);
      expect(html).not.toMatch(/https?:\/\//);
      expect(html).toContain('<label for="admin-token">Admin token</label>');
    },
  );

  it('passes the page address query on to its content, and works through a namespace prefix', async () => {
    const res = await sb.http.get('/ns/c1/_sandbox/console/records?collection=buyers&q=jane');
    expect(res.text).toContain('data-part="/ns/c1/_sandbox/console/parts/records?collection=buyers&amp;q=jane"');
    expect(res.text).toContain('src="/ns/c1/_sandbox/console/assets/console.js"');
    expect(res.text).toContain('Namespace <strong>c1</strong>');
    expect(sb.deps.namespaces.has('c1')).toBe(false); // a page shell creates nothing
  });

  it('filters requests by what they show, and offers no upstream filter without --upstream', async () => {
    const part = (await sb.http.get('/_sandbox/console/parts/requests').expect(200)).text;
    expect(part).toContain('<select id="filter-status" name="status">');
    expect(part).not.toContain('filter-upstream');
  });

  it('serves every module of the browser script', () => {
    const modules = readdirSync(join(ROOT, 'src/console/client')).map((name) => name.replace(/\.ts$/, '.js'));
    expect(CONSOLE_ASSET_NAMES.filter((name) => !['htmx.min.js', 'console.css'].includes(name)).sort()).toEqual(modules.sort());
  });

  it.each(CONSOLE_ASSET_NAMES)('serves the asset %s from the package', async (name) => {
    const res = await sb.http.get(`/_sandbox/console/assets/${name}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
    const body = res.text;
    expect(body.length).toBeGreaterThan(1000);
    expect(body).not.toContain('sourceMappingURL');
    if (name === 'htmx.min.js') expect(body.trim()).toBe(readFileSync(join(ROOT, 'node_modules/htmx.org/dist/htmx.min.js'), 'utf8').trim());
    if (name !== 'htmx.min.js') expect(body).not.toMatch(/https?:\/\//); // our own files name no other server
  });

  it('answers 404 for other names, pages and parts, and leaves other methods to the control API', async () => {
    const asset = await sb.http.get('/_sandbox/console/assets/..%2Fpackage.json');
    expect(asset.status).toBe(404);
    expectErrorBody(asset.body, 404, 'not_found');
    const page = await sb.http.get('/_sandbox/console/dashboard');
    expect(page.status).toBe(404);
    expect(page.body.message).toBe("The console has no page 'dashboard'; its pages: requests, scenarios, clock, records, webhooks, approvals, namespaces.");
    const fragment = await sb.http.get('/_sandbox/console/parts/clock/entry');
    expect(fragment.status).toBe(404);
    const post = await sb.http.post('/_sandbox/console/clock');
    expect(post.status).toBe(404);
    expectErrorBody(post.body, 404, 'not_found');
  });

  it.each(SLUGS)('renders the content of %s', async (slug) => {
    const res = await sb.http.get(`/_sandbox/console/parts/${slug}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
    expect(res.text).toContain(`<h1>${PAGES.find((p) => p.slug === slug)?.title}</h1>`);
    // Every form control has a label or a name for screen readers.
    const ids = [...res.text.matchAll(/<(?:input|select|textarea)\b(?![^>]*type="hidden")[^>]*\bid="([^"]+)"/g)].map((m) => m[1]);
    for (const id of ids) expect(res.text, `label for ${id}`).toContain(`for="${id}"`);
    const unnamed = [...res.text.matchAll(/<(?:input|select|textarea)\b(?![^>]*type="hidden")(?![^>]*\bid=)[^>]*>/g)];
    expect(unnamed).toEqual([]);
  });

  it('reads a namespace that does not exist without creating it', async () => {
    const res = await sb.http.get('/ns/not-yet/_sandbox/console/parts/records');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Namespace <strong>not-yet</strong> does not exist yet.');
    expect(res.text).toContain('data-api="GET /ns/not-yet/_sandbox/health"');
    expect(sb.deps.namespaces.has('not-yet')).toBe(false);
  });

  it('shows the clock, the catalog, records and namespaces as the control API answers them', async () => {
    await sb.http.put('/ns/c2/_sandbox/clock').send({ now: '2026-11-22T10:00:00Z', frozen: true }).expect(200);
    const clock = (await sb.http.get('/ns/c2/_sandbox/console/parts/clock')).text;
    expect(clock).toContain('<dd id="clock-now"><time datetime="2026-11-22T10:00:00.000Z">2026-11-22 10:00:00Z</time></dd>');
    expect(clock).toContain('<dd id="clock-state">frozen</dd>');
    expect(clock).toContain('data-api="POST /ns/c2/_sandbox/clock/advance" data-json="{&quot;duration&quot;:&quot;1d&quot;}"');
    expect(clock).toMatch(/Report &quot;Daily transactions&quot; runs \(daily\)/);

    await sb.http
      .put('/ns/c2/_sandbox/scenarios/active')
      .send({ scenarios: ['slow'], merchant_account_id: 'merchant-two' })
      .expect(200);
    const scenarios = (await sb.http.get('/ns/c2/_sandbox/console/parts/scenarios?for=merchant-two')).text;
    const catalog = (await sb.http.get('/_sandbox/scenarios')).body.items.map((s: { name: string }) => s.name);
    for (const name of catalog) expect(scenarios).toContain(`data-scenario="${name}"`);
    expect(scenarios).toContain('For merchant account merchant-two: <code>slow</code>');
    expect(scenarios).toContain('aria-label="Deactivate slow"');
    expect(scenarios).toContain(
      'data-json="{&quot;scenarios&quot;:[&quot;slow&quot;,&quot;server-error&quot;],&quot;merchant_account_id&quot;:&quot;merchant-two&quot;}"',
    );

    const records = (await sb.http.get(`/ns/c2/_sandbox/console/parts/records?collection=buyers&q=jane`)).text;
    expect(records).toContain(`>${WELL_KNOWN.buyers.default.id}</a>`);
    expect(records).toMatch(/1 of \d+ records match/);
    const editor = (await sb.http.get(`/ns/c2/_sandbox/console/parts/records?collection=buyers&id=${WELL_KNOWN.buyers.default.id}`)).text;
    expect(editor).toContain(`data-record-path="/ns/c2/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}"`);
    expect(editor).toContain('<label for="field-display_name">display_name <span class="muted">string</span></label>');

    const namespaces = (await sb.http.get('/ns/c2/_sandbox/console/parts/namespaces')).text;
    expect(namespaces).toContain('<a href="/ns/c2/_sandbox/console">c2</a>');
    expect(namespaces).not.toContain('>default</a>'); // through a namespace, as the control API: that one only
    expect(namespaces).toContain('This namespace only: the others are listed in the console at the root');
    expect(namespaces).not.toContain('evicted so far'); // how many others went is the root's to tell
    const root = (await sb.http.get('/_sandbox/console/parts/namespaces')).text;
    expect(root).toContain('<a href="/_sandbox/console">default</a>');
    expect(root).toMatch(
      /\d+ besides default, at most 50 \(<code>--namespace-cap<\/code>\); one idle for 900 s may be evicted to make\s+room; 0 evicted so far\./,
    );
    expect(root).toContain('data-api="POST /ns/c2/_sandbox/reset"');
    expect(root).toContain('data-api="DELETE /_sandbox/namespaces/c2"');
    // What loses a journal or a namespace is behind a confirm step: the first button only shows the second.
    expect(root).toContain(
      '<span class="confirmable"><button type="button" data-confirm-start="true" aria-expanded="false">Drop c2…</button><span data-confirm="true" hidden=""><button type="button" class="danger" data-api="DELETE /_sandbox/namespaces/c2" data-done="Namespace c2 dropped.">Drop c2 now</button><button type="button" data-confirm-cancel="true">Keep it</button></span></span>',
    );
    expect(root).toContain(
      '<span data-confirm="true" hidden=""><button type="button" class="danger" data-api="POST /ns/c2/_sandbox/reset" data-json="{&quot;journal&quot;:true}" data-done="Namespace c2 reset, its journal cleared.">Reset c2 and clear its journal now</button>',
    );
    expect(root.match(/data-api="[^"]*"/g)?.filter((a) => a.includes('c2'))).toHaveLength(3); // reset, and the two confirmed
  });

  it("shows a request's detail: headers, bodies, the 400's details and the 422's detail, and curl with the token left out", async () => {
    await sb.http.put(`/ns/c3/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).send({ display_name: 5 }).expect(400);
    const [entry] = (await sb.http.get('/ns/c3/_sandbox/requests')).body.items;
    const res = await sb.http.get(`/ns/c3/_sandbox/console/parts/requests/entry?namespace=c3&id=${entry.id}`);
    expect(res.status).toBe(200);
    const html = res.text;
    expect(html).toContain('<h3 id="validation-title">Validation details</h3>');
    expect(html).toContain('<code>body /display_name</code>');
    expect(html).toContain('# authorization was redacted by the journal: export TOKEN=$(npx payments-sandbox token)');
    expect(html).toContain('-H &quot;authorization: Bearer $TOKEN&quot;');
    expect(html).toContain('--data-raw &#39;{&quot;display_name&quot;:5}&#39;');
    expect(html).not.toContain(sb.auth.slice(7));
    expect(html).toContain('<dt>x-request-id</dt>');

    // A 422 has its items in `detail` ({loc, msg, type}): shown the same way, loc joined with dots.
    const unknownRole = 'a1000000-0000-4000-8000-0000000000ff';
    const refused = await sb.http
      .post('/ns/c3/api-key-pairs')
      .set('authorization', sb.auth)
      .send({ display_name: 'k', role_ids: [WELL_KNOWN.roles.readOnly.id, unknownRole] })
      .expect(422);
    expect(refused.body.detail).toHaveLength(1);
    const [item] = refused.body.detail;
    expect(item.loc).toEqual(['body', 'role_ids', '1']);
    const [latest] = (await sb.http.get('/ns/c3/_sandbox/requests')).body.items;
    const unprocessable = (await sb.http.get(`/ns/c3/_sandbox/console/parts/requests/entry?namespace=c3&id=${latest.id}`)).text;
    expect(unprocessable).toContain('POST /api-key-pairs <span class="badge status-4xx">422</span>');
    expect(unprocessable).toContain('<h3 id="validation-title">Validation details</h3>');
    const asHtml = (text: string) =>
      text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
    const rows = [...unprocessable.matchAll(/<table id="validation-details">.*?<tbody>(.*?)<\/tbody>/gs)].map((m) => m[1]);
    expect(rows).toEqual([`<tr><td><code>body.role_ids.1</code></td><td>${asHtml(item.type)}</td><td>${asHtml(item.msg)}</td></tr>`]);
    expect(item.msg).toContain(unknownRole);

    const gone = await sb.http.get('/ns/c3/_sandbox/console/parts/requests/entry?namespace=c3&id=999');
    expect(gone.text).toContain('Request 999 of namespace c3 is no longer in the journal.');
    const other = await sb.http.get('/ns/c3/_sandbox/console/parts/requests/entry?namespace=default&id=1');
    expect(other.status).toBe(403);
    expectErrorBody(other.body, 403, 'forbidden');
  });
});

describe('console routes with an admin token', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ adminToken: 'console-secret-16+' });
  });
  afterAll(() => sb.server.close());

  it('serves shells and files without it: they hold no data', async () => {
    expect((await sb.http.get('/_sandbox/console/clock')).status).toBe(200);
    expect((await sb.http.get('/_sandbox/console/assets/console.js')).status).toBe(200);
  });

  it('needs it for content, exactly like the control API', async () => {
    const missing = await sb.http.get('/_sandbox/console/parts/clock');
    expect(missing.status).toBe(401);
    expectErrorBody(missing.body, 401, 'unauthorized');
    const wrong = await sb.http.get('/_sandbox/console/parts/clock').set('x-sandbox-admin-token', 'nope');
    expect(wrong.status).toBe(403);
    expectErrorBody(wrong.body, 403, 'forbidden');
    expect((await sb.http.get('/_sandbox/console/parts/clock').set('x-sandbox-admin-token', 'console-secret-16+')).status).toBe(200);
    expect((await sb.http.get('/_sandbox/console/parts/clock').set('authorization', 'Bearer console-secret-16+')).status).toBe(200);
    expect((await sb.http.get('/_sandbox/console/parts/requests/entry?id=1').set('x-sandbox-admin-token', 'nope')).status).toBe(403);
  });
});
