import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

describe('namespaces', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ namespaceCap: 3, namespaceIdleSeconds: 0 }); // any namespace not in use may be evicted
  });
  afterAll(() => sb.server.close());

  const subscriptionIds = async (ns: string) =>
    (await sb.http.get('/_sandbox/records/webhook_subscriptions?limit=1000').set('x-sandbox-namespace', ns)).body.items.map((r: { id: string }) => r.id);

  it('keeps records of two namespaces used concurrently apart', async () => {
    const seeded = await subscriptionIds('default');
    const work = (ns: string, viaPrefix: boolean) =>
      Promise.all(
        Array.from({ length: 5 }, (_, i) => {
          const req = viaPrefix
            ? sb.http.post(`/ns/${ns}/_sandbox/records/webhook_subscriptions`)
            : sb.http.post('/_sandbox/records/webhook_subscriptions').set('x-sandbox-namespace', ns);
          return req.send({ url: `https://${ns}.example/${i}` });
        }),
      );
    const [a, b] = await Promise.all([work('iso-a', true), work('iso-b', false)]);
    const del = sb.http.delete(`/ns/iso-a/webhook-subscriptions/${WELL_KNOWN.webhookSubscriptions.default.id}`).set('authorization', sb.auth);
    expect((await del).status).toBe(204);
    const idsA = a.map((r) => r.body.id);
    const idsB = b.map((r) => r.body.id);
    expect(await subscriptionIds('iso-a')).toEqual(
      [...seeded.filter((id: string) => id !== WELL_KNOWN.webhookSubscriptions.default.id), ...idsA].sort(byOrderOf(await subscriptionIds('iso-a'))),
    );
    const inA = new Set(await subscriptionIds('iso-a'));
    const inB = new Set(await subscriptionIds('iso-b'));
    expect(idsA.every((id) => inA.has(id) && !inB.has(id))).toBe(true);
    expect(idsB.every((id) => inB.has(id) && !inA.has(id))).toBe(true);
    expect(inB.has(WELL_KNOWN.webhookSubscriptions.default.id)).toBe(true);
    expect(await subscriptionIds('default')).toEqual(seeded);
    const again = await sb.http
      .delete(`/webhook-subscriptions/${WELL_KNOWN.webhookSubscriptions.default.id}`)
      .set('authorization', sb.auth)
      .set('x-sandbox-namespace', 'iso-b');
    expect(again.status).toBe(204);
  });

  it('gives each namespace its own clock', async () => {
    await sb.http.put('/ns/iso-a/_sandbox/clock').send({ now: '2030-03-03T03:03:03.000Z', frozen: true }).expect(200);
    const [a, b] = await Promise.all([
      sb.http.post('/ns/iso-a/_sandbox/records/buyers').send({ display_name: 'A' }),
      sb.http.post('/ns/iso-b/_sandbox/records/buyers').send({ display_name: 'B' }),
    ]);
    expect(a.body.created_at).toBe('2030-03-03T03:03:03.000Z');
    expect(b.body.created_at).not.toBe('2030-03-03T03:03:03.000Z');
    expect(Math.abs(Date.parse(b.body.created_at) - Date.now())).toBeLessThan(60_000);
    await sb.http.get('/ns/iso-a/connections').set('authorization', sb.auth).expect(200);
    const [entry] = (await sb.http.get('/ns/iso-a/_sandbox/requests')).body.items;
    expect(entry.timestamp).toBe('2030-03-03T03:03:03.000Z');
    expect((await sb.http.get('/ns/iso-b/_sandbox/clock')).body.frozen).toBe(false);
  });

  it('resets one namespace alone', async () => {
    const fresh = await sb.http.get('/_sandbox/snapshot').set('x-sandbox-namespace', 'default');
    await sb.http.post('/ns/iso-a/_sandbox/reset').expect(200);
    expect((await sb.http.get('/ns/iso-a/_sandbox/snapshot')).text).toBe(fresh.text);
    expect((await sb.http.get('/ns/iso-a/_sandbox/clock')).body.frozen).toBe(false);
    expect((await sb.http.get('/ns/iso-b/_sandbox/snapshot')).text).not.toBe(fresh.text);
  });

  it('lists namespaces with their record counts and journal sizes', async () => {
    const res = await sb.http.get('/_sandbox/namespaces');
    expect(res.status).toBe(200);
    expect(res.body.cap).toBe(3);
    const b = res.body.items.find((n: { name: string }) => n.name === 'iso-b');
    expect(b).toEqual({
      name: 'iso-b',
      last_used_at: expect.any(String),
      journal_size: 1,
      journal_dropped: 0,
      record_counts: expect.objectContaining({ webhook_subscriptions: sb.deps.fixtures().collections.webhook_subscriptions.length + 4 }),
    });
    expect(res.body.items.map((n: { name: string }) => n.name)).toContain('default');
  });

  it('evicts the least recently used namespaces not in use past the cap, never default', async () => {
    await sb.http.post('/_sandbox/reset?all=true').expect(200);
    for (const name of ['ev-1', 'ev-2', 'ev-3']) await sb.http.get(`/ns/${name}/_sandbox/health`).expect(200);
    const before = (await sb.http.get('/_sandbox/namespaces')).body.evicted;
    await sb.http.post('/ns/ev-1/_sandbox/records/buyers').send({ display_name: 'keeps ev-1 busy' }).expect(201);
    await sb.http.get('/ns/ev-4/_sandbox/health').expect(200);
    const res = await sb.http.get('/_sandbox/namespaces');
    const names = res.body.items.map((n: { name: string }) => n.name).sort();
    expect(names).toEqual(['default', 'ev-1', 'ev-3', 'ev-4']);
    expect(res.body.evicted).toBe(before + 1);
    const ev1 = res.body.items.find((n: { name: string }) => n.name === 'ev-1');
    expect(ev1.record_counts.buyers).toBe(sb.deps.fixtures().collections.buyers.length + 1);
    const back = await sb.http.get('/_sandbox/records/buyers?limit=1').set('x-sandbox-namespace', 'ev-2');
    expect(back.body.total).toBe(sb.deps.fixtures().collections.buyers.length);
  });

  it('drops a namespace on request, but not default', async () => {
    await sb.http.get('/ns/drop-me/_sandbox/health').expect(200);
    expect((await sb.http.delete('/_sandbox/namespaces/drop-me')).status).toBe(204);
    expect(sb.deps.namespaces.has('drop-me')).toBe(false);
    const missing = await sb.http.delete('/_sandbox/namespaces/drop-me');
    expect(missing.status).toBe(404);
    expectErrorBody(missing.body, 404, 'not_found');
    const dflt = await sb.http.delete('/_sandbox/namespaces/default');
    expect(dflt.status).toBe(400);
    expectErrorBody(dflt.body, 400, 'bad_request');
    const bad = await sb.http.delete('/_sandbox/namespaces/-bad');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ location: 'path', pointer: '/name' });
  });

  it('refuses an invalid namespace name, naming where it was written', async () => {
    const res = await sb.http.get('/_sandbox/health').set('x-sandbox-namespace', 'no spaces allowed');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message:
        "Namespace 'no spaces allowed' in the x-sandbox-namespace header is not valid: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
      details: [
        {
          location: 'header',
          pointer: '/x-sandbox-namespace',
          type: 'string_pattern_mismatch',
          message: 'A namespace is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
        },
      ],
    });
    const inPath = await sb.http.get('/ns/.x/_sandbox/health');
    expect(inPath.status).toBe(400);
    expect(inPath.body).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: "Namespace '.x' in the path prefix /ns/.x/ is not valid: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
      details: [
        {
          location: 'path',
          pointer: '/ns',
          type: 'string_pattern_mismatch',
          message: 'A namespace is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
        },
      ],
    });
    expect(sb.deps.namespaces.has('.x')).toBe(false);
  });

  it('refuses a /ns/{name}/ prefix that disagrees with x-sandbox-namespace, naming both, and changes neither', async () => {
    const buyer = `/buyers/${WELL_KNOWN.buyers.default.id}`;
    const res = await sb.http.put(`/ns/mm-1${buyer}`).set('authorization', sb.auth).set('x-sandbox-namespace', 'mm-2').send({ display_name: 'which' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: "The path prefix /ns/mm-1/ names namespace 'mm-1' but the x-sandbox-namespace header names 'mm-2': send one of them, or the same name in both.",
      details: [
        { location: 'path', pointer: '/ns', type: 'value_error', message: "The prefix names namespace 'mm-1'." },
        { location: 'header', pointer: '/x-sandbox-namespace', type: 'value_error', message: "The header names namespace 'mm-2'." },
      ],
    });
    expect(sb.deps.namespaces.has('mm-1')).toBe(false);
    expect(sb.deps.namespaces.has('mm-2')).toBe(false);
    // The same name in both, or an empty header, is served under the prefix's namespace.
    for (const header of ['mm-1', '']) {
      const ok = await sb.http
        .put(`/ns/mm-1${buyer}`)
        .set('authorization', sb.auth)
        .set('x-sandbox-namespace', header)
        .send({ display_name: `same-${header}` });
      expect([header, ok.status]).toEqual([header, 200]);
    }
    const record = await sb.http.get(`/ns/mm-1/_sandbox/records${buyer}`);
    expect(record.body.display_name).toBe('same-');
    expect(sb.deps.namespaces.has('mm-2')).toBe(false);
  });
});

function byOrderOf(order: string[]) {
  return (a: string, b: string) => order.indexOf(a) - order.indexOf(b);
}
