// The API's CORS rule (src/http/cors.ts, issue 36 part 1) over HTTP with the headers a browser sends:
// loopback origins, the sandbox's own and --cors-origin ones are granted (the origin echoed, with
// Vary: Origin); any other page's preflight or request is a 403 before anything acts; `*` only when
// asked for. Pages may use a namespace but not create one (admitNamespace), so they cannot use up
// the namespace cap. The same in Chromium: test/console/api-cors-browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackOrigin } from '../../src/http/cors.js';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const BUYER = `/buyers/${WELL_KNOWN.buyers.default.id}`;
const EXPOSED = 'x-request-id,retry-after,x-sandbox-scenario,x-sandbox-node';

function refusal(origin: string, fix = ` If that page is yours, start the sandbox with --cors-origin ${origin} (SANDBOX_CORS_ORIGIN).`) {
  return {
    type: 'error',
    code: 'forbidden',
    status: 403,
    message: `The API serves browser pages of loopback origins (localhost, 127.0.0.1), the sandbox's own and those given with --cors-origin; this request came from the page at ${origin}.${fix}`,
    details: [
      {
        location: 'header',
        pointer: '/origin',
        type: 'origin_not_allowed',
        message: `Header 'origin' must name a loopback origin, the sandbox's own or a --cors-origin.`,
      },
    ],
  };
}

function namespaceRefusal(name: string, from: string) {
  return {
    type: 'error',
    code: 'forbidden',
    status: 403,
    message: `Namespace '${name}' does not exist, and a web page of another origin (${from}) may not create one: namespaces are made by code (a call without an Origin header), so that pages cannot use up the --namespace-cap CI jobs rely on. Create it from your test's setup (any authenticated API call, or POST /ns/${name}/_sandbox/reset), then use it from the page.`,
    details: [
      {
        location: 'header',
        pointer: '/origin',
        type: 'origin_not_allowed',
        message: 'A page of another origin may use an existing namespace but not create one.',
      },
    ],
  };
}

const preflight = (sb: TestSandbox, origin: string, path = BUYER) =>
  sb.http.options(path).set('origin', origin).set('access-control-request-method', 'PUT').set('access-control-request-headers', 'authorization,content-type');

const namespaces = async (sb: TestSandbox) => (await sb.http.get('/_sandbox/namespaces')).body.items.map((n: { name: string }) => n.name).sort();

describe('which origins are loopback origins', () => {
  it.each([
    ['http://localhost:5173', true],
    ['https://localhost', true],
    ['http://app.localhost:3000', true],
    ['http://127.0.0.1:3000', true],
    ['http://127.1.2.3', true],
    ['http://[::1]:8080', true],
    ['http://[::ffff:127.0.0.1]:8080', true],
    ['http://localhost.evil.example', false],
    ['http://128.0.0.1', false],
    ['http://[::ffff:10.0.0.1]', false],
    ['http://192.168.1.20:3000', false],
    ['ftp://localhost', false],
    ['null', false],
    ['not an origin', false],
  ])('%s: %s', (origin, loopback) => {
    expect(isLoopbackOrigin(origin)).toBe(loopback);
  });
});

describe('the API’s CORS by default', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ allowedHosts: ['sandbox.example'] });
  });
  afterAll(() => sb.server.close());

  it.each(['http://localhost:5173', 'http://127.0.0.1:3000', 'http://app.localhost:8080', 'http://[::1]:3000'])(
    'grants the loopback origin %s: its preflight and its request',
    async (origin) => {
      const pre = await preflight(sb, origin);
      expect(pre.status).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe(origin);
      expect(pre.headers['access-control-allow-methods']).toContain('PUT');
      expect(pre.headers['access-control-allow-headers']).toBe('authorization,content-type');
      expect(pre.headers.vary).toMatch(/origin/i);
      const res = await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).set('origin', origin);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-expose-headers']).toBe(EXPOSED);
    },
  );

  it('grants the sandbox’s own origin under a name it serves, and refuses another name', async () => {
    const own = await preflight(sb, 'http://sandbox.example:4010').set('host', 'sandbox.example:4010');
    expect(own.status).toBe(204);
    expect(own.headers['access-control-allow-origin']).toBe('http://sandbox.example:4010');
    const other = await preflight(sb, 'http://sandbox.example:4011').set('host', 'sandbox.example:4010');
    expect(other.status).toBe(403);
    expect(other.body).toEqual(refusal('http://sandbox.example:4011'));
  });

  it.each(['https://evil.example', 'http://localhost.evil.example:4010', 'http://192.168.1.20:3000'])(
    'refuses the preflight of %s, without any CORS header',
    async (origin) => {
      const res = await preflight(sb, origin);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusal(origin));
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
    },
  );

  it('refuses a request of another page before it acts, and Origin: null too', async () => {
    const before = (await sb.http.get(BUYER).set('authorization', sb.auth)).body;
    const put = await sb.http
      .put(BUYER)
      .set('authorization', sb.auth)
      .set('origin', 'https://evil.example')
      .send({ display_name: 'Overwritten by a page', external_identifier: null, billing_details: null });
    expect(put.status).toBe(403);
    expect(put.body).toEqual(refusal('https://evil.example'));
    expect(put.headers['access-control-allow-origin']).toBeUndefined();
    const nul = await sb.http.get(BUYER).set('authorization', sb.auth).set('origin', 'null');
    expect(nul.status).toBe(403);
    expect(nul.body).toEqual(refusal('null', ''));
    expect((await sb.http.get(BUYER).set('authorization', sb.auth)).body).toEqual(before);
  });

  it('serves the documents to any page (they hold no data)', async () => {
    const res = await sb.http.get('/openapi.json').set('origin', 'https://editor.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('lets a granted page use a namespace but not create one; code creates it', async () => {
    const listed = await namespaces(sb);
    const made = await sb.http.get('/ns/made-by-page/card-scheme-definitions').set('authorization', sb.auth).set('origin', 'http://localhost:5173');
    expect(made.status).toBe(403);
    expect(made.body).toEqual(namespaceRefusal('made-by-page', 'http://localhost:5173'));
    expect(made.headers['access-control-allow-origin']).toBe('http://localhost:5173'); // the page may read why
    // An image or script tag of another site sends no Origin, but says where it comes from.
    const tag = await sb.http.get('/ns/made-by-tag/card-scheme-definitions').set('authorization', sb.auth).set('sec-fetch-site', 'cross-site');
    expect(tag.status).toBe(403);
    expect(tag.body).toEqual(namespaceRefusal('made-by-tag', 'another site (Sec-Fetch-Site: cross-site)'));
    expect(await namespaces(sb)).toEqual(listed);

    expect((await sb.http.get('/ns/made-by-code/card-scheme-definitions').set('authorization', sb.auth)).status).toBe(200);
    const used = await sb.http.get('/ns/made-by-code/card-scheme-definitions').set('authorization', sb.auth).set('origin', 'http://localhost:5173');
    expect(used.status).toBe(200);
    expect(used.body.items.length).toBeGreaterThan(0);
    expect(await namespaces(sb)).toEqual([...listed, 'made-by-code'].sort());
  });
});

describe('the API’s CORS with --cors-origin', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ corsOrigins: ['https://checkout.example'], allowedOrigins: ['https://dashboard.example'], namespaceCap: 2 });
  });
  afterAll(() => sb.server.close());

  it('grants the origins named, and still refuses the others', async () => {
    for (const origin of ['https://checkout.example', 'https://dashboard.example', 'http://localhost:5173']) {
      const res = await preflight(sb, origin);
      expect([origin, res.status, res.headers['access-control-allow-origin']]).toEqual([origin, 204, origin]);
    }
    const evil = await preflight(sb, 'https://evil.example');
    expect(evil.status).toBe(403);
    expect(evil.body).toEqual(refusal('https://evil.example'));
  });

  it('keeps the namespace cap for code: a named origin’s page cannot fill it', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await sb.http.get(`/ns/page-${i}/card-scheme-definitions`).set('authorization', sb.auth).set('origin', 'https://checkout.example');
      expect(res.status).toBe(403);
    }
    for (const name of ['ci-1', 'ci-2']) expect((await sb.http.get(`/ns/${name}/card-scheme-definitions`).set('authorization', sb.auth)).status).toBe(200);
    expect(await namespaces(sb)).toEqual(['ci-1', 'ci-2', 'default']);
  });
});

describe('the API’s CORS with --cors-origin *', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ corsOrigins: ['*'] });
  });
  afterAll(() => sb.server.close());

  it('grants every origin with *, and still makes no namespace for a page', async () => {
    const pre = await preflight(sb, 'https://evil.example');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    const listed = await namespaces(sb);
    const made = await sb.http.get('/ns/made-by-page/card-scheme-definitions').set('authorization', sb.auth).set('origin', 'https://evil.example');
    expect(made.status).toBe(403);
    expect(made.body).toEqual(namespaceRefusal('made-by-page', 'https://evil.example'));
    expect(await namespaces(sb)).toEqual(listed);
  });
});
