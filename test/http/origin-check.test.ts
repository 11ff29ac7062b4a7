// The own-origin check of the control API and the console (src/http/origin-check.ts), over HTTP with
// the headers a browser sends: a request another origin's page made is a 403 before anything acts,
// whatever its method and content type; no CORS grant on /_sandbox but to --allowed-origin; the
// API's CORS is test/http/cors.test.ts. The same in a real browser: test/console/cross-origin-browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const BUYER = `/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}`;
const FIX = "Open the console at the sandbox's own address, call the control API from code (no browser)";

function originRefusal(from: string, header: 'origin' | 'sec-fetch-site', fix = '') {
  return {
    type: 'error',
    code: 'forbidden',
    status: 403,
    message: `The control API and the console act only for pages of their own origin; this request came from ${from}. ${FIX}${fix}.`,
    details: [
      {
        location: 'header',
        pointer: `/${header}`,
        type: 'origin_not_allowed',
        message: `Header '${header}' must name the sandbox's own origin or an --allowed-origin.`,
      },
    ],
  };
}
const evilRefusal = originRefusal(
  'the page at https://evil.example',
  'origin',
  ', or start the sandbox with --allowed-origin https://evil.example (SANDBOX_ALLOWED_ORIGIN)',
);

describe('the control API and the console, for pages of other origins', () => {
  let sb: TestSandbox;
  // supertest listens on a new port per request: the tests that need the Host name it.
  const HOST = '127.0.0.1:4010';
  const own = `http://${HOST}`;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb.server.close());

  /** What a page of another origin could change: a buyer changed before, the journal, the namespaces. */
  async function state() {
    const buyer = (await sb.http.get(BUYER)).body.display_name;
    const journal = (await sb.http.get('/_sandbox/requests/count')).body.count;
    const namespaces = (await sb.http.get('/_sandbox/namespaces')).body.items.map((n: { name: string }) => n.name).sort();
    return { buyer, journal, namespaces };
  }

  it.each([
    ['text/plain', 'text/plain', '{}'],
    ['a form', 'application/x-www-form-urlencoded', 'a=1'],
    ['multipart', 'multipart/form-data; boundary=x', '--x--\r\n'],
    ['JSON', 'application/json', '{}'],
  ])('refuses a reset of everything and a token sent as %s from another origin, and nothing changes', async (_, type, body) => {
    await sb.http.patch(BUYER).send({ display_name: 'Changed before' }).expect(200);
    await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).expect(200);
    const before = await state();
    expect(before.journal).toBeGreaterThan(0);

    const reset = await sb.http.post('/_sandbox/reset?all=true&journal=true').set('origin', 'https://evil.example').set('content-type', type).send(body);
    expect(reset.status).toBe(403);
    expect(reset.body).toEqual(evilRefusal);
    expect(reset.headers['access-control-allow-origin']).toBeUndefined();
    const token = await sb.http.post('/ns/minted/_sandbox/tokens').set('origin', 'https://evil.example').set('content-type', type).send(body);
    expect(token.status).toBe(403);
    expect(token.body).toEqual(evilRefusal);
    expect(token.text).not.toMatch(/eyJ/);
    expect(await state()).toEqual(before);
  });

  it.each(['put', 'patch', 'delete', 'get'] as const)('refuses %s from another origin', async (method) => {
    const res = await sb.http[method](BUYER).set('origin', 'https://evil.example').set('content-type', 'text/plain').send('{"display_name":"x"}');
    expect(res.status).toBe(403);
    expect(res.body).toEqual(evilRefusal);
  });

  it('grants no preflight on /_sandbox to another origin', async () => {
    const res = await sb.http
      .options('/_sandbox/reset')
      .set('origin', 'https://evil.example')
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', 'content-type');
    expect(res.status).toBe(403);
    expect(res.body).toEqual(evilRefusal);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('refuses Origin: null, another port, another scheme, and another name of the same machine', async () => {
    const nullOrigin = await sb.http.post('/_sandbox/reset').set('origin', 'null').send({});
    expect(nullOrigin.body).toEqual(originRefusal('a page without an origin (Origin: null: a sandboxed frame, a file or a redirect)', 'origin'));
    for (const origin of ['http://127.0.0.1:4011', 'https://127.0.0.1:4010', 'http://localhost:4010', 'http://127.0.0.1']) {
      const res = await sb.http.post('/_sandbox/reset').set('host', HOST).set('origin', origin).send({});
      expect([origin, res.status]).toEqual([origin, 403]);
      expect(res.body.details[0].pointer).toBe('/origin');
    }
  });

  it('refuses a request that names no origin but whose Sec-Fetch-Site says another site', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const res = await sb.http.post('/_sandbox/reset?all=true').set('sec-fetch-site', site).set('content-type', 'text/plain').send('{}');
      expect(res.status).toBe(403);
      expect(res.body).toEqual(originRefusal(`a page of another site (its Sec-Fetch-Site header says ${site})`, 'sec-fetch-site'));
      // An image or script tag of another site (a GET, no Origin) is refused too: it creates no namespace.
      const img = await sb.http.get('/ns/by-image/_sandbox/health').set('sec-fetch-site', site).set('sec-fetch-mode', 'no-cors').set('sec-fetch-dest', 'image');
      expect(img.status).toBe(403);
    }
    expect((await state()).namespaces).not.toContain('by-image');
  });

  it('serves its own origin, what the user typed, and clients that are no browser', async () => {
    await sb.http.patch(BUYER).send({ display_name: 'Changed' }).expect(200);
    const ownPage = await sb.http.post('/_sandbox/reset').set('host', HOST).set('origin', own).set('sec-fetch-site', 'same-origin').send({});
    expect(ownPage.status).toBe(200);
    // The same page reaching the sandbox as localhost: its own origin is then http://localhost:4010.
    const byName = await sb.http.get('/_sandbox/health').set('host', 'LOCALHOST:4010').set('origin', 'http://localhost:4010');
    expect(byName.status).toBe(200);
    // Behind a proxy that ends TLS, the page's scheme is the forwarded one.
    const proxied = (proto: string) =>
      sb.http.post('/_sandbox/reset').set('host', HOST).set('origin', `https://${HOST}`).set('x-forwarded-proto', proto).send({});
    expect((await proxied('https')).status).toBe(200);
    expect((await proxied('HTTPS, http')).status).toBe(200);
    expect((await proxied('http')).status).toBe(403);

    expect((await sb.http.get(BUYER)).body.display_name).not.toBe('Changed');
    expect((await sb.http.get('/_sandbox/health').set('sec-fetch-site', 'none').set('sec-fetch-mode', 'navigate')).status).toBe(200);
    const token = await sb.http.post('/_sandbox/tokens').send({});
    expect(token.status).toBe(200);
    expect(token.body.token).toMatch(/^eyJ/);
  });

  it('lets a link of another site open a console page (a navigation, whose answer that site cannot read), not frame it or fetch its parts', async () => {
    const navigate = (path: string, dest: string, mode = 'navigate') =>
      sb.http.get(path).set('sec-fetch-site', 'cross-site').set('sec-fetch-mode', mode).set('sec-fetch-dest', dest);
    expect((await navigate('/_sandbox/console', 'document')).status).toBe(200);
    expect((await navigate('/_sandbox/console', 'iframe')).status).toBe(403);
    expect((await navigate('/_sandbox/console/parts/requests', 'empty', 'cors')).status).toBe(403);
    // The control API is no page: a navigation there is refused like any request of another site.
    expect((await navigate('/_sandbox/health', 'document')).status).toBe(403);
    const part = await sb.http.get('/_sandbox/console/parts/requests').set('origin', 'https://evil.example');
    expect(part.status).toBe(403);
    expect(part.body).toEqual(evilRefusal);
  });

  it('keeps the API to the pages its CORS grants (test/http/cors.test.ts)', async () => {
    const res = await sb.http
      .get('/card-scheme-definitions')
      .set('authorization', sb.auth)
      .set('origin', 'https://evil.example')
      .set('sec-fetch-site', 'cross-site');
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const local = await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).set('origin', 'http://localhost:5173');
    expect(local.status).toBe(200);
    expect(local.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });
});

describe('the control API with --allowed-origin', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ allowedOrigins: ['http://localhost:5173'] });
  });
  afterAll(() => sb.server.close());

  it('serves pages of the allowed origin, with CORS naming it, and refuses the others', async () => {
    const preflight = await sb.http
      .options('/_sandbox/reset')
      .set('origin', 'http://localhost:5173')
      .set('sec-fetch-site', 'same-site')
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', 'content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    const reset = await sb.http.post('/_sandbox/reset').set('origin', 'http://localhost:5173').send({});
    expect(reset.status).toBe(200);
    expect(reset.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(reset.headers['access-control-expose-headers']).toBe('x-request-id,retry-after,x-sandbox-scenario,x-sandbox-node');
    const other = await sb.http.post('/_sandbox/reset').set('origin', 'http://localhost:5174').send({});
    expect(other.status).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
