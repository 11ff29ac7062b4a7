// Who may create a namespace, and when one may go: only an authenticated API call or a control
// API call creates one; strangers naming new namespaces create none and push out no one; past the
// cap only a namespace idle long enough and not in use is evicted, else a 503 that says why. And
// through a namespace the control API sees and changes that namespace only.
import { createServer } from 'node:http';
import { Writable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { SandboxConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { buildSandbox } from '../../src/sandbox.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';

const BUYER = WELL_KNOWN.buyers.default.id;

/** A sandbox whose log lines are kept. */
async function sandboxWithLog(overrides: Partial<SandboxConfig>) {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const deps = await buildSandbox({ validateResponses: true, ...overrides }, { logger: createLogger({ logLevel: 'info', logFormat: 'json' }, { out }) });
  const server = createServer(getRequestListener(createApp(deps).fetch));
  return { deps, server, http: supertest.agent(server), auth: `Bearer ${await tokenFor('admin')}`, logs: () => lines.map((l) => JSON.parse(l)) };
}

describe('namespace creation and the cap', () => {
  let sb: Awaited<ReturnType<typeof sandboxWithLog>>;
  beforeAll(async () => {
    sb = await sandboxWithLog({ namespaceCap: 3 }); // idle time: the default 900 s
  });
  afterAll(() => sb.server.close());
  const names = async () => (await sb.http.get('/_sandbox/namespaces').expect(200)).body;

  it('creates none for 60 strangers naming new namespaces, and leaves a namespace in use untouched', async () => {
    await sb.http.put(`/ns/in-use/buyers/${BUYER}`).set('authorization', sb.auth).send({ display_name: 'Acknowledged' }).expect(200);
    for (let i = 0; i < 60; i++) {
      const res = await sb.http.get(`/ns/stranger-${i}/gift-cards`); // no token
      expect(res.status).toBe(401);
      expectErrorBody(res.body, 401, 'unauthorized');
    }
    const bad = await sb.http.get('/ns/stranger-bad-token/gift-cards').set('authorization', 'Bearer not.a.jwt');
    expect(bad.status).toBe(401);
    const list = await names();
    expect(list.items.map((n: { name: string }) => n.name).sort()).toEqual(['default', 'in-use']);
    expect(list).toMatchObject({ count: 1, cap: 3, idle_seconds: 900, evicted: 0 });
    const buyer = await sb.http.get(`/ns/in-use/_sandbox/records/buyers/${BUYER}`).expect(200);
    expect(buyer.body.display_name).toBe('Acknowledged');
  });

  it("shows a stranger's refused requests in the namespace's journal once it is created", async () => {
    const journal = await sb.http.get('/ns/stranger-7/_sandbox/requests').expect(200); // a control call creates it
    expect(journal.body.items.map((e: { path: string; status: number; namespace: string }) => [e.path, e.status, e.namespace])).toEqual([
      ['/gift-cards', 401, 'stranger-7'],
    ]);
    expect(sb.deps.namespaces.has('stranger-7')).toBe(true);
  });

  it('answers 503 with Retry-After, names the cap and the option, and logs it when no namespace may go', async () => {
    await sb.http.get('/ns/third/card-scheme-definitions').set('authorization', sb.auth).expect(200);
    expect((await names()).count).toBe(3);
    const refused = await sb.http.get('/ns/fourth/card-scheme-definitions').set('authorization', sb.auth);
    expect(refused.status).toBe(503);
    expectErrorBody(refused.body, 503, 'service_unavailable');
    expect(refused.body.message).toContain("Namespace 'fourth' cannot be created");
    expect(refused.body.message).toContain('at most 3 namespaces besides default (--namespace-cap)');
    expect(refused.body.message).toContain('(--namespace-idle-seconds)');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(899);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(refused.headers['x-request-id']).toMatch(/./);
    // The control API is refused the same way; a stranger still gets its 401, never a 503.
    expect((await sb.http.get('/ns/fifth/_sandbox/health')).status).toBe(503);
    expect((await sb.http.get('/ns/sixth/gift-cards')).status).toBe(401);
    expect(sb.deps.namespaces.has('fourth')).toBe(false);
    const health = await sb.http.get('/_sandbox/health').expect(200);
    expect(health.body.namespaces).toEqual({ count: 3, cap: 3, idle_seconds: 900, evicted: 0 });
    const warnings = sb.logs().filter((l) => l.event === 'namespace-cap-reached');
    expect(warnings).toHaveLength(1); // at most one line per ten seconds
    expect(warnings[0]).toMatchObject({ level: 'warn', refused: 'fourth', cap: 3, idle_seconds: 900 });
    expect(warnings[0].msg).toContain('--namespace-cap');
    // Existing namespaces are served as ever.
    await sb.http.get('/ns/in-use/card-scheme-definitions').set('authorization', sb.auth).expect(200);
  });
});

describe('eviction of idle namespaces', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ namespaceCap: 2, namespaceIdleSeconds: 0 });
  });
  afterAll(() => sb.server.close());

  it('never evicts a namespace with a request in flight, even the least recently used', async () => {
    // A slow request (the `slow` scenario: 1.5 s) keeps n1 in use while newer namespaces come.
    const slow = sb.http
      .get('/ns/n1/gift-cards?limit=1')
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'slow')
      .then((r) => r);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await sb.http.get('/ns/n2/card-scheme-definitions').set('authorization', sb.auth).expect(200);
    const before = (await sb.http.get('/_sandbox/namespaces')).body.evicted;
    await sb.http.get('/ns/n3/card-scheme-definitions').set('authorization', sb.auth).expect(200);
    const after = (await sb.http.get('/_sandbox/namespaces')).body;
    expect(after.items.map((n: { name: string }) => n.name).sort()).toEqual(['default', 'n1', 'n3']);
    expect(after.evicted).toBe(before + 1);
    expect((await slow).status).toBe(200);
  });
});

describe('the control API through a namespace', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
    for (const ns of ['alpha', 'beta']) {
      await sb.http
        .put(`/ns/${ns}/buyers/${BUYER}`)
        .set('authorization', sb.auth)
        .send({ display_name: `${ns} buyer` })
        .expect(200);
    }
  });
  afterAll(() => sb.server.close());

  const forbidden = (res: supertest.Response) => {
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 403, 'forbidden');
    expect(res.body.message).toContain('only at the root /_sandbox');
  };
  const alphaCount = async () => (await sb.http.get('/_sandbox/requests/count?namespace=alpha').expect(200)).body.count;

  it("refuses another namespace's journal, every namespace's, and clearing them", async () => {
    forbidden(await sb.http.get('/ns/beta/_sandbox/requests?namespace=alpha'));
    forbidden(await sb.http.get('/ns/beta/_sandbox/requests?namespace=*'));
    forbidden(await sb.http.get('/_sandbox/requests/count?namespace=alpha').set('x-sandbox-namespace', 'beta'));
    forbidden(await sb.http.delete('/ns/beta/_sandbox/requests?namespace=alpha'));
    forbidden(await sb.http.delete('/ns/beta/_sandbox/requests?namespace=*'));
    expect(await alphaCount()).toBe(1);
    const own = await sb.http.get('/ns/beta/_sandbox/requests?namespace=beta').expect(200);
    expect(own.body.items.map((e: { namespace: string }) => e.namespace)).toEqual(['beta']);
  });

  it('refuses a reset of every namespace and dropping another, and changes nothing', async () => {
    forbidden(await sb.http.post('/ns/beta/_sandbox/reset?all=true'));
    forbidden(await sb.http.post('/_sandbox/reset').set('x-sandbox-namespace', 'beta').send({ all: true }));
    forbidden(await sb.http.delete('/ns/beta/_sandbox/namespaces/alpha'));
    forbidden(await sb.http.delete('/_sandbox/namespaces/alpha').set('x-sandbox-namespace', 'beta'));
    const alphaBuyer = await sb.http.get(`/ns/alpha/_sandbox/records/buyers/${BUYER}`).expect(200);
    expect(alphaBuyer.body.display_name).toBe('alpha buyer');
  });

  it('lists only itself, resets itself and drops itself', async () => {
    const list = await sb.http.get('/ns/beta/_sandbox/namespaces').expect(200);
    expect(list.body.items.map((n: { name: string }) => n.name)).toEqual(['beta']);
    // Its counts are what it sees: itself, and the settings; how many others were evicted is the root's.
    expect(list.body).toEqual({ items: [expect.objectContaining({ name: 'beta' })], count: 1, cap: 50, idle_seconds: 900 });
    const byHeader = await sb.http.get('/_sandbox/namespaces').set('x-sandbox-namespace', 'beta').expect(200);
    expect(byHeader.body).toEqual({ ...list.body, items: [{ ...list.body.items[0], last_used_at: byHeader.body.items[0].last_used_at }] });
    const health = await sb.http.get('/ns/beta/_sandbox/health').expect(200);
    expect(health.body.namespaces).toEqual({ count: 1, cap: 50, idle_seconds: 900 });
    const root = await sb.http.get('/_sandbox/namespaces').expect(200);
    expect(root.body).toMatchObject({ count: 2, cap: 50, idle_seconds: 900, evicted: 0 });
    expect((await sb.http.get('/_sandbox/health').expect(200)).body.namespaces).toEqual({ count: 2, cap: 50, idle_seconds: 900, evicted: 0 });
    const reset = await sb.http.post('/ns/beta/_sandbox/reset').expect(200);
    expect(reset.body.namespaces).toEqual(['beta']);
    await sb.http.delete('/ns/beta/_sandbox/namespaces/beta').expect(204);
    expect(sb.deps.namespaces.has('beta')).toBe(false);
  });

  it("refuses the process's metrics through a namespace, and serves them at the root", async () => {
    forbidden(await sb.http.get('/ns/beta/_sandbox/metrics'));
    forbidden(await sb.http.get('/_sandbox/metrics').set('x-sandbox-namespace', 'alpha'));
    const metrics = await sb.http.get('/_sandbox/metrics').expect(200);
    expect(metrics.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(metrics.text).toMatch(/^payments_sandbox_requests_total\{operation="updateBuyer",status="200"\} 2$/m);
  });

  it('serves reads and actions across namespaces at the root', async () => {
    expect(await alphaCount()).toBe(1);
    expect((await sb.http.get('/_sandbox/requests?namespace=*').expect(200)).body.total).toBeGreaterThanOrEqual(1);
    const reset = await sb.http.post('/_sandbox/reset?all=true').expect(200);
    expect(reset.body.namespaces).toContain('alpha');
    const alphaBuyer = await sb.http.get(`/ns/alpha/_sandbox/records/buyers/${BUYER}`).expect(200);
    expect(alphaBuyer.body.display_name).toBe('Jane Doe');
    await sb.http.delete('/_sandbox/namespaces/alpha').expect(204);
  });
});
