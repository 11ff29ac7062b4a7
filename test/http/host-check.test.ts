// The Host check (src/http/host-check.ts), over HTTP: a name a web page could have re-pointed at
// the sandbox (DNS rebinding) gets 403 on every route, before anything acts; loopback names, IP
// literals (a phone on the LAN, a container's published port), --host and --allowed-host are
// served, and so is HTTP/1.0 without a Host (a proxy's health check).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { hostRuleOf, isServedHost } from '../../src/http/host-check.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { exchange as exchangeWith } from '../reliability/raw-socket.js';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { connectH2, h2Request } from '../tls/support.js';

const BUYER = `/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}`;

function hostRefusal(name: string) {
  return {
    type: 'error',
    code: 'forbidden',
    status: 403,
    message:
      `The Host header names '${name}', which this sandbox does not serve (a defence against DNS rebinding). ` +
      `Reach it as localhost or by IP address, or start it with --allowed-host ${name} (SANDBOX_ALLOWED_HOST).`,
    details: [
      {
        location: 'header',
        pointer: '/host',
        type: 'host_not_allowed',
        message: "Header 'host' must name localhost, an IP address, the --host value or an --allowed-host name.",
      },
    ],
  };
}

describe('the Host check, with the default rule', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb.server.close());

  const displayName = async () => (await sb.http.get(BUYER)).body.display_name;

  it.each([
    ['the API', 'get', '/card-scheme-definitions'],
    ['the control API', 'get', '/_sandbox/health'],
    ['the control API through a namespace', 'get', '/ns/rebound/_sandbox/health'],
    ['the console', 'get', '/_sandbox/console'],
    ['a console part', 'get', '/_sandbox/console/parts/requests'],
    ['the docs', 'get', '/docs'],
    ['a served document', 'get', '/openapi.json'],
    ['an unknown path', 'get', '/nowhere'],
    ['a preflight', 'options', '/buyers'],
  ] as const)('refuses a rebound name on %s with 403 and the error body', async (_, method, path) => {
    const res = await sb.http[method](path).set('host', 'evil.example:4010').set('authorization', sb.auth).set('origin', 'http://evil.example:4010');
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.body).toEqual(hostRefusal('evil.example'));
  });

  it('refuses before anything acts: a reset or a change sent with a rebound name leaves the state as it was', async () => {
    await sb.http.patch(BUYER).send({ display_name: 'Changed before' }).expect(200);
    const reset = await sb.http.post('/_sandbox/reset?all=true&journal=true').set('host', 'evil.example:4010').send({});
    expect(reset.status).toBe(403);
    expect(reset.body).toEqual(hostRefusal('evil.example'));
    const change = await sb.http.patch(BUYER).set('host', 'evil.example').send({ display_name: 'Rebound' });
    expect(change.status).toBe(403);
    expect(await displayName()).toBe('Changed before');
    // Nor is a namespace made for it.
    expect((await sb.http.get('/ns/rebound/_sandbox/health').set('host', 'evil.example')).status).toBe(403);
    const names = (await sb.http.get('/_sandbox/namespaces')).body.items.map((n: { name: string }) => n.name);
    expect(names).not.toContain('rebound');
  });

  it.each([
    'localhost',
    'localhost:4010',
    'LocalHost:4010',
    'localhost.:4010',
    'app.localhost:4010',
    '127.0.0.1:4010',
    '127.8.9.10',
    '192.168.1.20:4010', // a phone on the LAN
    '10.0.0.5',
    '[::1]:4010',
    '[fe80::1]',
  ])('serves Host: %s', async (host) => {
    const res = await sb.http.get('/_sandbox/health').set('host', host);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
  });

  it.each([
    ['a single name', 'sandbox:4010', 'sandbox'],
    ['a name ending like localhost', 'evillocalhost:4010', 'evillocalhost'],
    ['localhost as a subdomain', 'localhost.evil.example', 'localhost.evil.example'],
    ['an address inside a name', '127.0.0.1.nip.io:4010', '127.0.0.1.nip.io'],
  ])('refuses %s (Host: %s)', async (_, host, name) => {
    const res = await sb.http.get('/_sandbox/health').set('host', host);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(hostRefusal(name));
  });

  it('serves in process (app.request(), no Host) and still reads a Host given there', async () => {
    const app = createApp(sb.deps);
    expect((await app.request('/_sandbox/health')).status).toBe(200);
    const rebound = await app.request('/_sandbox/health', { headers: { host: 'evil.example' } });
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toEqual(hostRefusal('evil.example'));
  });

  it('says the same to every request with that name, as judged the first time (accepted names are remembered, refused ones never)', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await sb.http.get('/_sandbox/health').set('host', 'evil.example')).status).toBe(403);
      expect((await sb.http.get('/_sandbox/health').set('host', 'localhost:1')).status).toBe(200);
    }
  });
});

describe('the Host check, with --allowed-host', () => {
  it('serves names given exactly, domains given with a leading dot with their subdomains, and any name for *', async () => {
    const sb = await startTestSandbox({ allowedHosts: ['sandbox.example', '.corp.example'] });
    try {
      const status = async (host: string) => (await sb.http.get('/_sandbox/health').set('host', host)).status;
      expect(await status('sandbox.example:4010')).toBe(200);
      expect(await status('SANDBOX.EXAMPLE')).toBe(200);
      expect(await status('api.sandbox.example')).toBe(403);
      expect(await status('corp.example')).toBe(200);
      expect(await status('ci.build.corp.example:8080')).toBe(200);
      expect(await status('evilcorp.example')).toBe(403);
      expect(await status('localhost')).toBe(200);
      expect((await sb.http.get('/_sandbox/health').set('host', 'evil.example')).body).toEqual(hostRefusal('evil.example'));
    } finally {
      sb.server.close();
    }
    const any = await startTestSandbox({ allowedHosts: ['*'] });
    try {
      expect((await any.http.get('/_sandbox/health').set('host', 'evil.example')).status).toBe(200);
    } finally {
      any.server.close();
    }
  });

  it('serves the --host name', () => {
    const rule = hostRuleOf({ host: 'devbox.lan', allowedHosts: [] });
    expect(isServedHost(rule, 'devbox.lan:4010')).toBe(true);
    expect(isServedHost(rule, 'devbox.lan.')).toBe(true);
    expect(isServedHost(rule, 'other.lan:4010')).toBe(false);
    expect(isServedHost(hostRuleOf({ host: '0.0.0.0', allowedHosts: [] }), '172.17.0.2:4010')).toBe(true);
  });
});

describe('the Host check on a listening sandbox', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, validateResponses: true, logLevel: 'silent' });
  });
  afterAll(() => sb.close());

  const exchange = (lines: string[]) => exchangeWith(sb.port, lines);

  it('serves HTTP/1.0 without a Host header (HAProxy health check) and refuses HTTP/1.0 naming another host', async () => {
    const ok = await exchange(['GET /_sandbox/health HTTP/1.0']);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('ok');
    const rebound = await exchange(['GET /_sandbox/health HTTP/1.0', 'host: evil.example']);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toEqual(hostRefusal('evil.example'));
  });

  it('reads the authority of an absolute-form target, not Host (RFC 9112 3.2.2), and nothing acts', async () => {
    const buyer = (await (await fetch(`http://127.0.0.1:${sb.port}${BUYER}`)).json()).display_name;
    await fetch(`http://127.0.0.1:${sb.port}${BUYER}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"display_name":"Kept"}' });
    const reset = await exchangeWith(sb.port, [
      'POST http://evil.example/_sandbox/reset HTTP/1.1',
      `host: 127.0.0.1:${sb.port}`,
      'content-length: 0',
      'connection: close',
    ]);
    expect(reset.status).toBe(403);
    expect(reset.body).toEqual(hostRefusal('evil.example'));
    expect((await (await fetch(`http://127.0.0.1:${sb.port}${BUYER}`)).json()).display_name).toBe('Kept');
    const own = await exchangeWith(sb.port, [`GET http://127.0.0.1:${sb.port}/_sandbox/health HTTP/1.1`, 'host: evil.example', 'connection: close']);
    expect(own.status).toBe(200);
    expect(buyer).not.toBe('Kept');
  });

  it('serves an IPv4-mapped IPv6 literal in Host: [::ffff:127.0.0.1]', async () => {
    for (const host of ['[::ffff:127.0.0.1]', `[::ffff:127.0.0.1]:${sb.port}`, '[::FFFF:7f00:1]']) {
      const res = await exchangeWith(sb.port, ['GET /_sandbox/health HTTP/1.1', `host: ${host}`, 'connection: close']);
      expect([host, res.status, res.body.status]).toEqual([host, 200, 'ok']);
    }
  });

  it('serves the address a client used: 127.0.0.1 and localhost with the port', async () => {
    expect((await fetch(`http://127.0.0.1:${sb.port}/_sandbox/health`)).status).toBe(200);
    expect((await fetch(`http://localhost:${sb.port}/_sandbox/health`)).status).toBe(200);
  });
});

describe('the Host and own-origin checks over HTTP/2 (--tls)', () => {
  it('reads the host from :authority, and the scheme of the own origin is https', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-host-tls-'));
    const sb = await startSandbox({ port: 0, tls: true, tlsDir: join(dir, 'tls'), validateResponses: true, logLevel: 'silent' });
    const session = await connectH2(sb.url, readFileSync(sb.tls!.caFile!));
    try {
      const own = `127.0.0.1:${sb.port}`;
      const health = (authority: string) => h2Request(session, { ':path': '/_sandbox/health', ':authority': authority });
      expect((await health(own)).status).toBe(200);
      expect((await health(`localhost:${sb.port}`)).status).toBe(200);
      const rebound = await health(`evil.example:${sb.port}`);
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body)).toEqual(hostRefusal('evil.example'));
      // :authority names the site, whatever a host header beside it says (RFC 9113 8.3.1).
      const beside = await h2Request(session, { ':method': 'POST', ':path': '/_sandbox/reset', ':authority': `evil.example:${sb.port}`, host: own });
      expect(beside.status).toBe(403);
      expect(JSON.parse(beside.body)).toEqual(hostRefusal('evil.example'));
      const reset = (origin: string) =>
        h2Request(session, { ':method': 'POST', ':path': '/_sandbox/reset', ':authority': own, origin, 'content-type': 'application/json' }, '{}');
      expect((await reset(`https://${own}`)).status).toBe(200);
      expect((await reset(`http://${own}`)).status).toBe(403);
    } finally {
      session.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
