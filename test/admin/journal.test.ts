import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

function listen(server: Server): Promise<AddressInfo> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address() as AddressInfo)));
}

describe('request journal', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ journalSize: 5 });
  });
  afterAll(() => sb.server.close());

  const journal = (ns: string, query = '') => sb.http.get(`/_sandbox/requests${query}`).set('x-sandbox-namespace', ns);
  const count = async (ns: string, query = '') => (await sb.http.get(`/_sandbox/requests/count${query}`).set('x-sandbox-namespace', ns)).body.count;

  it('records the request and its response, with Authorization redacted', async () => {
    const body = { display_name: 'Journaled' };
    const put = await sb.http
      .put(`/ns/j1/buyers/${WELL_KNOWN.buyers.default.id}?trace=1&trace=2`)
      .set('authorization', sb.auth)
      .set('x-request-id', 'journal-req-1')
      .send(body);
    expect(put.status).toBe(200);
    const res = await journal('j1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 1, limit: 100, offset: 0 });
    const [entry] = res.body.items;
    expect(entry).toEqual({
      id: 1,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      namespace: 'j1',
      method: 'PUT',
      path: `/buyers/${WELL_KNOWN.buyers.default.id}`,
      url: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/ns/j1/buyers/${WELL_KNOWN.buyers.default.id}\\?trace=1&trace=2$`)),
      query: { trace: ['1', '2'] },
      headers: expect.objectContaining({ authorization: '[redacted]', 'x-request-id': 'journal-req-1', 'content-type': 'application/json' }),
      body,
      status: 200,
      response_headers: { 'content-type': 'application/json', 'x-request-id': 'journal-req-1' },
      response_body: put.body,
      duration_ms: expect.any(Number),
      operation_id: 'updateBuyer',
      merchant_account_id: 'default',
      scenario: null,
      request_id: 'journal-req-1',
    });
    expect(JSON.stringify(res.body)).not.toContain(sb.auth.slice(7));
  });

  it('records errors and unknown paths, but not control requests', async () => {
    await sb.http.get('/ns/j2/no-such-path').set('authorization', sb.auth).expect(404);
    await sb.http.get('/ns/j2/card-scheme-definitions').expect(401);
    await sb.http.post('/ns/j2/_sandbox/reset').expect(200);
    await sb.http.get('/ns/j2/_sandbox/health').expect(200);
    const res = await journal('j2');
    expect(res.body.items.map((e: { path: string; status: number; operation_id: string | null }) => [e.path, e.status, e.operation_id])).toEqual([
      ['/card-scheme-definitions', 401, 'listCardSchemeDefinitions'],
      ['/no-such-path', 404, null],
    ]);
    expect(res.body.items[0].response_body).toMatchObject({ type: 'error', code: 'unauthorized' });
    expect(res.body.items[0].body).toBeNull();
  });

  it('redacts a generated private key from the journal', async () => {
    const created = await sb.http
      .post('/ns/j3/api-key-pairs')
      .set('authorization', sb.auth)
      .send({ display_name: 'Secret', role_ids: [WELL_KNOWN.roles.readOnly.id] });
    expect(created.status).toBe(201);
    expect(created.body.private_key).toMatch(/BEGIN PRIVATE KEY/);
    const res = await journal('j3');
    expect(res.body.items[0].response_body.private_key).toBe('[redacted]');
    expect(res.body.items[0].response_body.id).toBe(created.body.id);
    expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY');
  });

  it('redacts the admin token header', async () => {
    await sb.http.get('/ns/j4/card-scheme-definitions').set('authorization', sb.auth).set('x-sandbox-admin-token', 'hunter2').expect(200);
    const [entry] = (await journal('j4')).body.items;
    expect(entry.headers['x-sandbox-admin-token']).toBe('[redacted]');
    expect(JSON.stringify(entry)).not.toContain('hunter2');
  });

  it('keeps every header as sent: repeats joined, colons, quotes, Latin-1 and empty values intact', async () => {
    // Raw Node request: supertest cannot repeat a header.
    const { port } = sb.server.listening ? (sb.server.address() as AddressInfo) : await listen(sb.server);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          port,
          host: '127.0.0.1',
          method: 'GET',
          path: '/ns/jh/card-scheme-definitions',
          headers: [
            'Host',
            `127.0.0.1:${port}`, // the array form adds no Host of its own
            'Authorization',
            sb.auth,
            'X-Multi',
            'first',
            'x-multi',
            'second: with a colon',
            'x-quoted',
            'say "hi" \\ back',
            'x-latin',
            'caf\u00e9',
            'x-empty',
            '',
          ],
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    const [entry] = (await journal('jh')).body.items;
    expect(entry.headers).toEqual({
      host: `127.0.0.1:${port}`,
      authorization: '[redacted]',
      'x-multi': 'first, second: with a colon',
      'x-quoted': 'say "hi" \\ back',
      'x-latin': 'caf\u00e9',
      'x-empty': '',
      connection: 'keep-alive',
    });
  });

  it('filters by method, path, operation_id and status, and counts', async () => {
    const ns = 'j5';
    await sb.http.get(`/ns/${ns}/card-scheme-definitions`).set('authorization', sb.auth).expect(200);
    await sb.http.get(`/ns/${ns}/connections`).set('authorization', sb.auth).expect(200);
    await sb.http.put(`/ns/${ns}/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).send({}).expect(200);
    await sb.http.put(`/ns/${ns}/buyers/b0000000-0000-4000-8000-0000000000ff`).set('authorization', sb.auth).send({}).expect(404);
    expect(await count(ns)).toBe(4);
    expect(await count(ns, '?method=put')).toBe(2);
    expect(await count(ns, '?operation_id=updateBuyer')).toBe(2);
    expect(await count(ns, '?path=/connections')).toBe(1);
    expect(await count(ns, '?path=/buyers/*')).toBe(2);
    expect(await count(ns, '?status=404')).toBe(1);
    expect(await count(ns, '?status=2xx')).toBe(3);
    expect(await count(ns, '?method=PUT&status=2xx')).toBe(1);
    const page = await journal(ns, '?limit=2&offset=1');
    expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.body.items.map((e: { path: string }) => e.path)).toEqual([`/buyers/${WELL_KNOWN.buyers.default.id}`, '/connections']);
    const bad = await journal(ns, '?status=abc&limit=0');
    expect(bad.status).toBe(400);
    expectErrorBody(bad.body, 400, 'bad_request');
    expect(bad.body.details.map((d: { pointer: string }) => d.pointer).sort()).toEqual(['/limit', '/status']);
  });

  it('keeps only the newest journalSize entries', async () => {
    for (let i = 0; i < 8; i++) await sb.http.get(`/ns/j6/connections?i=${i}`).set('authorization', sb.auth).expect(200);
    const res = await journal('j6');
    expect(res.body.total).toBe(5);
    expect(res.body.items.map((e: { id: number; query: { i: string } }) => [e.id, e.query.i])).toEqual([
      [8, '7'],
      [7, '6'],
      [6, '5'],
      [5, '4'],
      [4, '3'],
    ]);
  });

  it('reads one namespace, another by name, or every namespace with * (at the root only), and clears', async () => {
    await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-namespace', 'j7').expect(200);
    await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-namespace', 'j8').expect(200);
    const root = (query: string) => sb.http.get(`/_sandbox/requests/count${query}`);
    expect((await root('?namespace=j7')).body.count).toBe(1);
    expect((await root('?namespace=never-made')).body.count).toBe(0);
    expect(await count('j7', '?namespace=j7')).toBe(1); // its own name, through itself
    expect((await root('')).body.count).toBe(0);
    const all = await sb.http.get('/_sandbox/requests?namespace=*&path=/connections&limit=1000');
    const namespaces = new Set(all.body.items.map((e: { namespace: string }) => e.namespace));
    expect(namespaces).toEqual(new Set(['j5', 'j6', 'j7', 'j8']));
    const cleared = await sb.http.delete('/_sandbox/requests').set('x-sandbox-namespace', 'j7');
    expect(cleared.status).toBe(204);
    expect(await count('j7')).toBe(0);
    expect(await count('j8')).toBe(1);
    await sb.http.delete('/_sandbox/requests?namespace=*').expect(204);
    expect((await root('?namespace=*')).body.count).toBe(0);
    expect(sb.deps.namespaces.has('never-made')).toBe(false);
  });
});
