import { describe, expect, it } from 'vitest';
import { expectErrorBody, type TestSandbox, useTestSandbox } from './support/sandbox.js';

describe('request flow', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  it('serves an authenticated GET with JSON and a request id', async () => {
    const res = await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.items.length).toBeGreaterThan(0);
  });

  it('echoes the caller request id', async () => {
    const res = await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).set('x-request-id', 'ci-run-42');
    expect(res.headers['x-request-id']).toBe('ci-run-42');
  });

  it('answers an unknown path with 404 not_found', async () => {
    const res = await sb.http.get('/no-such-thing').set('authorization', sb.auth);
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 404, 'not_found');
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const res = await sb.http.post('/connections').set('authorization', sb.auth);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expectErrorBody(res.body, 405, 'method_not_allowed');
    expect(res.body.message).toBe('The API reference serves only GET on /connections, not POST.');
  });

  it('answers browsers with CORS headers, and a preflight with 204', async () => {
    const res = await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).set('origin', 'http://localhost:5173');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(res.headers['access-control-expose-headers']).toBe('x-request-id,retry-after,x-sandbox-scenario,x-sandbox-node');
    const preflight = await sb.http
      .options('/buyers/b0000000-0000-4000-8000-000000000001')
      .set('origin', 'http://localhost:5173')
      .set('access-control-request-method', 'PUT')
      .set('access-control-request-headers', 'authorization,content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(preflight.headers['access-control-allow-methods']).toContain('PUT');
    expect(preflight.headers['access-control-allow-headers']).toBe('authorization,content-type');
  });

  it('sends no CORS headers to clients that send no Origin', async () => {
    const res = await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
