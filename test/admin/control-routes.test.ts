import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { expectErrorBody, keyPem, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';

describe('reset, snapshot, tokens', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  const snapshotText = async (ns = 'default') => (await sb.http.get('/_sandbox/snapshot').set('x-sandbox-namespace', ns)).text;

  it('answers another method on a control route with 405, Allow and what the control API serves there', async () => {
    const res = await sb.http.post('/_sandbox/clock').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PUT, DELETE');
    expectErrorBody(res.body, 405, 'method_not_allowed');
    expect(res.body.message).toBe('The control API serves only GET, PUT and DELETE on /_sandbox/clock, not POST.');
    const record = await sb.http.put(`/ns/m405/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}`).send({});
    expect(record.status).toBe(405);
    expect(record.headers.allow).toBe('GET, DELETE, PATCH');
    expect(record.body.message).toBe('The control API serves only GET, DELETE and PATCH on /_sandbox/records/{collection}/{record_id}, not PUT.');
  });

  it('answers health with the namespace', async () => {
    const res = await sb.http.get('/ns/h1/_sandbox/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', seed: 4010, namespace: 'h1' });
  });

  it('resets to byte-identical state, clock included, after changes through the API and the records API', async () => {
    const before = await snapshotText();
    expect(JSON.parse(before)).toMatchObject({ schema_version: 1, seed: 4010 });
    const del = await sb.http.delete(`/webhook-subscriptions/${WELL_KNOWN.webhookSubscriptions.default.id}`).set('authorization', sb.auth);
    expect(del.status).toBe(204);
    await sb.http.post('/_sandbox/records/buyers').send({ display_name: 'Temp' }).expect(201);
    await sb.http.put('/_sandbox/clock').send({ now: '2031-01-01T00:00:00Z', frozen: true }).expect(200);
    expect(await snapshotText()).not.toBe(before);

    const res = await sb.http.post('/_sandbox/reset');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ namespaces: ['default'], journal_cleared: false });
    expect(await snapshotText()).toBe(before);
    const clock = (await sb.http.get('/_sandbox/clock')).body;
    expect(clock.frozen).toBe(false);
    expect(Math.abs(clock.offset_ms)).toBeLessThan(1000);
    const again = await sb.http.delete(`/webhook-subscriptions/${WELL_KNOWN.webhookSubscriptions.default.id}`).set('authorization', sb.auth);
    expect(again.status).toBe(204);
    await sb.http.post('/_sandbox/reset').expect(200);
  });

  it('keeps the journal on reset unless asked, and resets every namespace with all', async () => {
    await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth).set('x-sandbox-namespace', 'r1').expect(200);
    await sb.http.post('/_sandbox/records/buyers').set('x-sandbox-namespace', 'r1').send({ display_name: 'In r1' }).expect(201);
    const count = () => sb.http.get('/_sandbox/requests/count').set('x-sandbox-namespace', 'r1');
    await sb.http.post('/_sandbox/reset').set('x-sandbox-namespace', 'r1').expect(200);
    expect((await count()).body).toEqual({ count: 1 });
    await sb.http.post('/_sandbox/records/buyers').set('x-sandbox-namespace', 'r1').send({ display_name: 'In r1' }).expect(201);

    const res = await sb.http.post('/_sandbox/reset').send({ all: true, journal: true });
    expect(res.status).toBe(200);
    expect(res.body.namespaces).toEqual(expect.arrayContaining(['default', 'r1']));
    expect(res.body.journal_cleared).toBe(true);
    expect((await count()).body).toEqual({ count: 0 });
    expect(await snapshotText('r1')).toBe(await snapshotText('default'));
    const byQuery = await sb.http.post('/_sandbox/reset?all=yes');
    expect(byQuery.status).toBe(400);
    expectErrorBody(byQuery.body, 400, 'bad_request');
    const extra = await sb.http.post('/_sandbox/reset').send({ everything: true });
    expect(extra.status).toBe(400);
    expect(extra.body.details[0]).toMatchObject({ location: 'body', pointer: '/everything', type: 'extra_forbidden' });
  });

  it('round-trips a snapshot into another namespace', async () => {
    await sb.http.post('/_sandbox/records/webhook_subscriptions').set('x-sandbox-namespace', 's1').send({ url: 'https://s1.example/hook' }).expect(201);
    const exported = await sb.http.get('/_sandbox/snapshot').set('x-sandbox-namespace', 's1');
    const put = await sb.http.put('/_sandbox/snapshot').set('x-sandbox-namespace', 's2').send(exported.body);
    expect(put.status).toBe(200);
    expect(put.body.namespace).toBe('s2');
    expect(put.body.record_counts.webhook_subscriptions).toBe(exported.body.collections.webhook_subscriptions.length);
    expect(await snapshotText('s2')).toBe(exported.text);
    const hooks = await sb.http.get('/_sandbox/records/webhook_subscriptions?limit=1000').set('x-sandbox-namespace', 's2');
    expect(hooks.body.items.map((h: { url: string }) => h.url)).toContain('https://s1.example/hook');
  });

  it('refuses a snapshot that is not one, leaving state untouched', async () => {
    const before = await snapshotText('s3');
    const cases: Array<[unknown, string]> = [
      [{ schema_version: 2, collections: {} }, '/schema_version'],
      [{ schema_version: 1, collections: { dragons: [] } }, '/collections'],
      [{ schema_version: 1, collections: { buyers: [{ id: 'x' }] } }, '/collections/buyers/0/merchant_account_id'],
      [{ schema_version: 1 }, '/collections'],
    ];
    for (const [body, pointer] of cases) {
      const res = await sb.http
        .put('/_sandbox/snapshot')
        .set('x-sandbox-namespace', 's3')
        .send(body as object);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expectErrorBody(res.body, 400, 'bad_request');
      expect(
        res.body.details.map((d: { pointer: string }) => d.pointer),
        JSON.stringify(body),
      ).toContain(pointer);
    }
    const data = JSON.parse(before);
    data.collections.roles.push(data.collections.roles[0]);
    const dup = await sb.http.put('/_sandbox/snapshot').set('x-sandbox-namespace', 's3').send(data);
    expect(dup.status).toBe(400);
    expect(dup.body.details).toEqual([
      expect.objectContaining({ pointer: `/collections/roles/${data.collections.roles.length - 1}/id`, type: 'duplicate_id' }),
    ]);
    expect(await snapshotText('s3')).toBe(before);
  });

  it('mints a token for the admin pair by default that the API accepts', async () => {
    const res = await sb.http.post('/_sandbox/tokens');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      token: expect.any(String),
      expires_at: expect.any(String),
      key_pair_id: WELL_KNOWN.keyPairs.admin.id,
      thumbprint: expect.any(String),
    });
    expect(decodeProtectedHeader(res.body.token)).toMatchObject({ alg: 'ES512', kid: res.body.thumbprint });
    const claims = decodeJwt(res.body.token);
    expect(new Date((claims.exp as number) * 1000).toISOString()).toBe(res.body.expires_at);
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    const api = await sb.http.get('/card-scheme-definitions').set('authorization', `Bearer ${res.body.token}`);
    expect(api.status).toBe(200);
  });

  it('mints narrowed, short tokens for other pairs and with a given private key', async () => {
    const rsa = await sb.http.post('/_sandbox/tokens').send({ key_pair_id: WELL_KNOWN.keyPairs.rsa.id, scopes: ['buyers.read'], ttl_seconds: 60 });
    expect(rsa.status).toBe(200);
    expect(decodeProtectedHeader(rsa.body.token).alg).toBe('RS512');
    const claims = decodeJwt(rsa.body.token);
    expect(claims.scopes).toEqual(['buyers.read']);
    expect((claims.exp as number) - (claims.iat as number)).toBe(60);
    const forbidden = await sb.http.post('/reports').set('authorization', `Bearer ${rsa.body.token}`).send({});
    expect(forbidden.status).toBe(403);
    const given = await sb.http.post('/_sandbox/tokens').send({ key_pair_id: WELL_KNOWN.keyPairs.readOnly.id, private_key: keyPem('read-only') });
    expect(given.status).toBe(200);
    expect(given.body.key_pair_id).toBe(WELL_KNOWN.keyPairs.readOnly.id);
  });

  it('refuses tokens it cannot mint', async () => {
    const missing = await sb.http.post('/_sandbox/tokens').send({ key_pair_id: 'no-such-pair' });
    expect(missing.status).toBe(404);
    expectErrorBody(missing.body, 404, 'not_found');
    const wrongKey = await sb.http.post('/_sandbox/tokens').send({ key_pair_id: WELL_KNOWN.keyPairs.admin.id, private_key: keyPem('rsa') });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.details[0]).toMatchObject({ location: 'body', pointer: '/private_key' });
    const notPem = await sb.http.post('/_sandbox/tokens').send({ private_key: 'hello' });
    expect(notPem.status).toBe(400);
    const badTtl = await sb.http.post('/_sandbox/tokens').send({ ttl_seconds: 0, scopes: 'all' });
    expect(badTtl.status).toBe(400);
    expect(badTtl.body.details.map((d: { pointer: string }) => d.pointer).sort()).toEqual(['/scopes', '/ttl_seconds']);
    const created = await sb.http
      .post('/api-key-pairs')
      .set('authorization', sb.auth)
      .send({ display_name: 'gen', role_ids: [WELL_KNOWN.roles.readOnly.id] });
    expect(created.status).toBe(201);
    const noFile = await sb.http.post('/_sandbox/tokens').send({ key_pair_id: created.body.id });
    expect(noFile.status).toBe(400);
    expect(noFile.body.message).toMatch(/send its private_key/);
    const withKey = await sb.http.post('/_sandbox/tokens').send({ key_pair_id: created.body.id, private_key: created.body.private_key });
    expect(withKey.status).toBe(200);
  });
});
