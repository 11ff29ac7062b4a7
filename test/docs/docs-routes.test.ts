// The API reference routes over HTTP: /docs and /docs/admin pages, the Swagger UI assets served
// locally, and /openapi.json + /openapi.admin.json byte for byte. None needs a token.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const ROOT = join(import.meta.dirname, '../..');

describe('docs routes', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    // sandbox.test: a name served only because it is allowed (http/host-check.ts).
    sb = await startTestSandbox({ auth: 'jwt', adminToken: 'docs-admin-token', allowedHosts: ['sandbox.test'] });
  });
  afterAll(() => sb.server.close());

  const specText = (name: string, host?: string) => {
    const req = sb.http.get(`/${name}`);
    if (host !== undefined) req.set('host', host);
    return req.buffer(true).parse((r, cb) => {
      let text = '';
      r.on('data', (d: Buffer) => (text += d));
      r.on('end', () => cb(null, text));
    });
  };
  const serverUrls = (text: string) => (JSON.parse(text) as { servers: Array<{ url: string }> }).servers.map((s) => s.url);

  it.each(['openapi.json', 'openapi.admin.json'])('serves /%s as the file, its servers naming the address used, without a token', async (name) => {
    const res = await specText(name);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const file = readFileSync(join(ROOT, name), 'utf8');
    const origin = `http://${(res.request as unknown as { host: string }).host}`; // supertest's Host: 127.0.0.1:<port>
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(origin).not.toBe('http://127.0.0.1:4010');
    // Byte for byte the file but for the servers' origin.
    expect(res.body).toBe(file.replaceAll('"url": "http://127.0.0.1:4010', `"url": "${origin}`));
    expect(serverUrls(res.body)).toEqual(serverUrls(file).map((url) => url.replace('http://127.0.0.1:4010', origin)));
    expect(JSON.parse(res.body).paths).toEqual(JSON.parse(file).paths);
  });

  it('follows the Host header the client used: a name, a port, an IPv6 address', async () => {
    expect(serverUrls((await specText('openapi.json', 'localhost:5555')).body)).toEqual(['http://localhost:5555', 'http://localhost:5555/ns/{namespace}']);
    expect(serverUrls((await specText('openapi.admin.json', 'sandbox.test')).body)).toEqual(['http://sandbox.test']);
    expect(serverUrls((await specText('openapi.json', '[::1]:4010')).body)).toEqual(['http://[::1]:4010', 'http://[::1]:4010/ns/{namespace}']);
    // The file's own address gives the file itself.
    expect((await specText('openapi.json', '127.0.0.1:4010')).body).toBe(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
    // A Host that is not a host is refused before the app (Node's or Hono's server), never reflected.
    const bad = await specText('openapi.json', 'evil.test/"x');
    expect(bad.status).toBe(400);
    expect(bad.text ?? bad.body).not.toContain('evil.test/"x');
  });

  it.each([
    ['/docs', 'Payments API (openapi.json)'],
    ['/docs/', 'Payments API (openapi.json)'],
    ['/docs/admin', 'Control API /_sandbox (openapi.admin.json)'],
  ])('serves the page %s opening on %s, with local assets only', async (path, primary) => {
    const res = await sb.http.get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
    const html = res.text;
    expect(html).toContain(`"urls.primaryName":"${primary}"`);
    expect(html).toContain('{"url":"/openapi.json","name":"Payments API (openapi.json)"}');
    expect(html).toContain('{"url":"/openapi.admin.json","name":"Control API /_sandbox (openapi.admin.json)"}');
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(urls).toEqual([
      '/docs/assets/swagger-ui.css',
      '/docs/assets/favicon-32x32.png',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui-standalone-preset.js',
    ]);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it.each([
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
    ['favicon-32x32.png', 'image/png'],
  ])('serves the asset %s from swagger-ui-dist', async (name, type) => {
    const res = await sb.http
      .get(`/docs/assets/${name}`)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (d: Buffer) => chunks.push(d));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    const original = readFileSync(join(ROOT, 'node_modules/swagger-ui-dist', name));
    const body = res.body as Buffer;
    if (type === 'image/png') expect(body.equals(original)).toBe(true);
    else {
      expect(body.length).toBeGreaterThan(original.length - 200);
      expect(body.toString()).not.toContain('sourceMappingURL');
    }
  });

  it.each(['index.html', 'swagger-ui-bundle.js.map', '..%2Fpackage.json', 'swagger-initializer.js'])(
    'answers an asset it does not serve (%s) with 404',
    async (name) => {
      const res = await sb.http.get(`/docs/assets/${name}`);
      expect(res.status).toBe(404);
      expectErrorBody(res.body, 404, 'not_found');
      expect(res.body.message).toMatch(/^There is no docs asset '.*'; the page is at \/docs\.$/);
    },
  );

  it('answers HEAD without a body and other methods as unknown paths', async () => {
    const head = await sb.http.head('/openapi.json');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    const post = await sb.http.post('/docs').send({});
    expect(post.status).toBe(404);
    expectErrorBody(post.body, 404, 'not_found');
  });

  it('keeps docs requests out of the request journal', async () => {
    const count = async () => (await sb.http.get('/_sandbox/requests/count').set('x-sandbox-admin-token', 'docs-admin-token')).body.count as number;
    await sb.http.get('/connections').set('authorization', sb.auth);
    const before = await count();
    expect(before).toBeGreaterThan(0);
    await sb.http.get('/docs');
    await sb.http.get('/openapi.json');
    await sb.http.get('/docs/assets/swagger-ui.css');
    expect(await count()).toBe(before);
  });

  it('still asks for a token on API operations', async () => {
    const res = await sb.http.get('/connections');
    expect(res.status).toBe(401);
  });
});
