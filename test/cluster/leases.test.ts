// Leases of a shared sandbox against the calls that may take one: only a call that creates a
// namespace (an authenticated API call, a control call past the admin token) leases it; strangers'
// calls, unknown control paths and the console's shells and files leave nothing in Redis; a name a
// call leased but could not create is given back. Also: a reset across nodes that could not reset a
// namespace says so; a namespace held by a node that does not hand it over is a bounded wait, then
// 503; a percent-encoded /ns/ prefix, and a path with a dot segment, are refused through the proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, openSocket, parseResponse } from '../reliability/raw-socket.js';
import { expectErrorBody, startTestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import {
  adminHeaders,
  type HaProxy,
  LEASE_MS,
  type RedisServer,
  readMetrics,
  redisCli,
  type SandboxNode,
  startNode,
  startProxy,
  startRedis,
  waitFor,
} from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const ADMIN_TOKEN = 'an-admin-token-for-the-tests';
const admin = { 'x-sandbox-admin-token': ADMIN_TOKEN };
let redis: RedisServer;
let a: SandboxNode;
let b: SandboxNode;
let auth: Record<string, string>;

beforeAll(async () => {
  redis = await startRedis();
  [a, b] = await Promise.all([startNode(redis, 'node1', ['--admin-token', ADMIN_TOKEN]), startNode(redis, 'node2', ['--admin-token', ADMIN_TOKEN])]);
  auth = await adminHeaders();
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
}, 60_000);

/** Every key Redis holds of namespaces whose names start with `prefix`. */
const keysOf = (prefix: string) => redisCli(redis, '--scan', '--pattern', `payments-sandbox:ns:${prefix}*`);

async function owned(node: SandboxNode): Promise<string[]> {
  return (await (await fetch(`${node.url}/_sandbox/health`, { headers: admin })).json()).owned_namespaces;
}

async function metric(node: SandboxNode, line: RegExp): Promise<number> {
  return (await readMetrics(node, admin))(line);
}

const ACQUIRED = /^payments_sandbox_lease_changes_total\{change="acquired"\} (\d+)$/m;
const RELEASED = /^payments_sandbox_lease_changes_total\{change="released"\} (\d+)$/m;
const RENEWED = /^payments_sandbox_lease_renewals_total\{result="renewed"\} (\d+)$/m;

async function namespaceNames(node: SandboxNode): Promise<string[]> {
  const res = await fetch(`${node.url}/_sandbox/namespaces`, { headers: admin });
  expect(res.status).toBe(200);
  return (await res.json()).items.map((i: { name: string }) => i.name);
}

describe('what takes a lease in a shared sandbox', () => {
  it('leaves nothing in Redis for calls that may not create a namespace: no token, a wrong admin token, an unknown control path, the console', async () => {
    const acquired = await metric(a, ACQUIRED);
    const listed = await namespaceNames(a);
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${a.url}/ns/junk-${i}/connections`);
      expect(res.status).toBe(401);
      expectErrorBody(await res.json(), 401, 'unauthorized');
    }
    const unknownOperation = await fetch(`${a.url}/ns/junk-op/nowhere`, { headers: auth });
    expect(unknownOperation.status).toBe(404);
    await unknownOperation.arrayBuffer();
    // The control API: the admin token comes first, then the operation.
    const noToken = await fetch(`${a.url}/ns/cjunk-1/_sandbox/records/buyers`);
    expect(noToken.status).toBe(401);
    expectErrorBody(await noToken.json(), 401, 'unauthorized');
    const wrongToken = await fetch(`${a.url}/ns/cjunk-1/_sandbox/clock`, { headers: { 'x-sandbox-admin-token': 'not-the-admin-token-at-all' } });
    expect(wrongToken.status).toBe(403);
    expectErrorBody(await wrongToken.json(), 403, 'forbidden');
    const ghost = await fetch(`${a.url}/ns/ghost/_sandbox/nope`, { headers: admin });
    expect(ghost.status).toBe(404);
    expectErrorBody(await ghost.json(), 404, 'not_found');
    // The console: its shell and files hold no data; its parts need the admin token, and never create a namespace.
    for (const path of ['/_sandbox/console', '/_sandbox/console/records', '/_sandbox/console/assets/console.css', '/_sandbox/console/x']) {
      const res = await fetch(`${a.url}/ns/cjunk-2${path}`);
      expect([path, res.status]).toEqual([path, path.endsWith('/x') ? 404 : 200]);
      await res.arrayBuffer();
    }
    const part = await fetch(`${a.url}/ns/cjunk-3/_sandbox/console/parts/records`);
    expect(part.status).toBe(401);
    await part.arrayBuffer();
    const partWithToken = await fetch(`${a.url}/ns/cjunk-4/_sandbox/console/parts/records`, { headers: admin });
    expect(partWithToken.status).toBe(200);
    expect(await partWithToken.text()).toContain('Namespace <strong>cjunk-4</strong> does not exist yet');

    expect(keysOf('junk-')).toBe('');
    expect(keysOf('cjunk-')).toBe('');
    expect(keysOf('ghost')).toBe('');
    expect(await owned(a)).toEqual([]);
    expect(await metric(a, ACQUIRED)).toBe(acquired);
    expect(await namespaceNames(a)).toEqual(listed);
  });

  it('leases a namespace for the call that creates it, and keeps renewing that lease', async () => {
    const put = await fetch(`${a.url}/ns/made/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: JSON.stringify({ display_name: 'made' }) });
    expect([put.status, put.headers.get('x-sandbox-node')]).toEqual([200, 'node1']);
    expect(redisCli(redis, 'get', 'payments-sandbox:ns:made:lease')).toMatch(/^node1\n1\n[0-9a-f]{12}$/);
    expect(await owned(a)).toEqual(['made']);
    // A control call past the admin token creates one too (as in one process), and leases it.
    const clock = await fetch(`${a.url}/ns/made-by-control/_sandbox/clock`, { headers: admin });
    expect(clock.status).toBe(200);
    await clock.arrayBuffer();
    expect(await owned(a)).toEqual(['made', 'made-by-control']);
    // Renewed: still held past the first lease's end, after renewals (every third of a lease) that say so.
    const leasedAt = performance.now();
    const renewedBefore = await metric(a, RENEWED);
    await waitFor('renewals of both leases past the first lease', async () =>
      performance.now() - leasedAt > LEASE_MS * 1.2 && (await metric(a, RENEWED)) >= renewedBefore + 6 ? true : undefined,
    );
    expect(redisCli(redis, 'get', 'payments-sandbox:ns:made:lease')).toMatch(/^node1\n1\n[0-9a-f]{12}$/);
    expect(Number(redisCli(redis, 'pttl', 'payments-sandbox:ns:made-by-control:lease'))).toBeGreaterThan(0);
  });

  it('gives back at once the lease of a namespace the call could not create (the cap), and never renews it', async () => {
    const capped = await startNode(redis, 'node3', ['--admin-token', ADMIN_TOKEN, '--namespace-cap', '1']);
    try {
      const first = await fetch(`${capped.url}/ns/cap-1/connections`, { headers: auth });
      expect(first.status).toBe(200);
      await first.arrayBuffer();
      const released = await metric(capped, RELEASED);
      const refused = await fetch(`${capped.url}/ns/cap-2/connections`, { headers: auth });
      expect(refused.status).toBe(503);
      expectErrorBody(await refused.json(), 503, 'service_unavailable');
      expect(redisCli(redis, 'exists', 'payments-sandbox:ns:cap-2:lease')).toBe('0');
      expect(await owned(capped)).toEqual(['cap-1']);
      expect(await metric(capped, RELEASED)).toBe(released + 1);
      // Another node may create it at once: nobody holds it.
      const elsewhere = await fetch(`${b.url}/ns/cap-2/connections`, { headers: auth });
      expect([elsewhere.status, elsewhere.headers.get('x-sandbox-node')]).toEqual([200, 'node2']);
      await elsewhere.arrayBuffer();
    } finally {
      await capped.stop();
    }
  });

  it('takes as its own no lease an earlier process under its node id left: it waits for it to lapse, and the name stays free', async () => {
    // What a node restarted under its id finds: Redis says an earlier process of node2 holds a namespace nobody created.
    redisCli(redis, 'set', 'payments-sandbox:ns:orphan:lease', 'node2\n7\n0123456789ab', 'PX', String(LEASE_MS));
    const acquired = await metric(b, ACQUIRED);
    const res = await fetch(`${b.url}/ns/orphan/connections`);
    expect(res.status).toBe(401);
    await res.arrayBuffer();
    expect(redisCli(redis, 'exists', 'payments-sandbox:ns:orphan:lease')).toBe('0'); // it lapsed: neither renewed nor taken
    expect(await owned(b)).not.toContain('orphan');
    expect(await metric(b, ACQUIRED)).toBe(acquired);
    expect(keysOf('orphan')).toBe('');
  });

  it('answers an unknown control path 404 and creates nothing in one process (memory)', async () => {
    const sandbox = await startTestSandbox();
    try {
      const before = (await sandbox.http.get('/_sandbox/namespaces')).body.items.map((i: { name: string }) => i.name);
      for (const path of ['/ns/ghost/_sandbox/nope', '/ns/ghost/_sandbox/records/nope/x/y']) {
        const res = await sandbox.http.get(path);
        expect([path, res.status]).toEqual([path, 404]);
        expectErrorBody(res.body, 404, 'not_found');
      }
      // A percent-encoded prefix is refused in one process too (the same code reads it).
      const encoded = await sandbox.http.get('/ns/gh%6Fst/connections').set('authorization', sandbox.auth);
      expect(encoded.status).toBe(400);
      expectErrorBody(encoded.body, 400, 'bad_request');
      expect(encoded.body.message).toContain('is percent-encoded: write its name as is (write /ns/ghost/)');
      const res = await sandbox.http.get('/_sandbox/namespaces');
      expect(res.body.items.map((i: { name: string }) => i.name)).toEqual(before);
      expect(sandbox.deps.namespaces.has('ghost')).toBe(false);
    } finally {
      sandbox.server.close();
    }
  });

  it('answers an unknown control path 404 and creates nothing, as one process does', async () => {
    const before = await namespaceNames(b);
    const res = await fetch(`${b.url}/ns/ghost/_sandbox/nope`, { headers: admin });
    expect(res.status).toBe(404);
    const body = await res.json();
    expectErrorBody(body, 404, 'not_found');
    expect(body.details).toEqual([]);
    expect(await namespaceNames(b)).toEqual(before);
    expect(keysOf('ghost')).toBe('');
  });
});

describe('a namespace another node holds and does not hand over', () => {
  it('waits a bounded time for it, then answers 503 with Retry-After naming the holder', async () => {
    const ns = 'stuck';
    const put = await fetch(`${a.url}/ns/${ns}/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: JSON.stringify({ display_name: 'kept' }) });
    expect(put.status).toBe(200);
    // A holder that never answers a handover (what a node paused for long looks like), for a minute.
    redisCli(redis, 'set', `payments-sandbox:ns:${ns}:lease`, 'absent-node\n99', 'PX', '60000');
    await waitFor('node1 to drop the namespace it lost', async () => ((await owned(a)).includes(ns) ? undefined : true));
    const started = performance.now();
    const res = await fetch(`${b.url}/ns/${ns}/connections`, { headers: auth });
    const waited = performance.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(String(Math.ceil(LEASE_MS / 1000)));
    const body = await res.json();
    expectErrorBody(body, 503, 'service_unavailable');
    expect(body.message).toBe(
      `Namespace '${ns}' is held by node absent-node of the shared sandbox, which has not handed it over within ${LEASE_MS + 1000} ms (it may be paused or stopping; its lease lapses within ${LEASE_MS} ms of its last renewal). Retry.`,
    );
    expect(waited).toBeGreaterThanOrEqual(LEASE_MS + 1000 - 50); // it waited for the handover before giving up
    expect(await owned(b)).not.toContain(ns);

    // The reset across nodes cannot reset it: it says so (503 naming it and its holder) instead of listing it as reset.
    const logBefore = redisCli(redis, 'lrange', `payments-sandbox:ns:${ns}:log`, '0', '-1');
    const reset = await fetch(`${a.url}/_sandbox/reset?all=true`, { method: 'POST', headers: admin });
    expect(reset.status).toBe(503);
    expect(reset.headers.get('retry-after')).toBe('1');
    const resetBody = await reset.json();
    expectErrorBody(resetBody, 503, 'service_unavailable');
    expect(resetBody.message).toContain(`Not every namespace was reset: '${ns}' (held by node absent-node) did not reset when asked`);
    expect(redisCli(redis, 'lrange', `payments-sandbox:ns:${ns}:log`, '0', '-1')).toBe(logBefore);

    // Once the holder is gone, it moves with what was acknowledged, and the reset resets it.
    redisCli(redis, 'del', `payments-sandbox:ns:${ns}:lease`);
    const read = await fetch(`${b.url}/ns/${ns}/_sandbox/records/buyers/${BUYER}`, { headers: admin });
    expect([read.status, (await read.json()).display_name]).toEqual([200, 'kept']);
    const again = await fetch(`${a.url}/_sandbox/reset?all=true`, { method: 'POST', headers: admin });
    expect(again.status).toBe(200);
    expect((await again.json()).namespaces).toContain(ns);
    const after = await fetch(`${b.url}/ns/${ns}/_sandbox/records/buyers/${BUYER}`, { headers: admin });
    expect((await after.json()).display_name).toBe('Jane Doe');
  }, 30_000);

  it('waits a bounded time for a paused owner (SIGSTOP, long lease), then answers 503 with Retry-After naming it', async () => {
    const paused = await startNode(redis, 'node5', ['--admin-token', ADMIN_TOKEN, '--lease-ms', '60000']);
    try {
      const put = await fetch(`${paused.url}/ns/paused/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: JSON.stringify({ display_name: 'kept' }) });
      expect([put.status, put.headers.get('x-sandbox-node')]).toEqual([200, 'node5']);
      paused.signal('SIGSTOP');
      const res = await fetch(`${b.url}/ns/paused/connections`, { headers: auth });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe(String(Math.ceil(LEASE_MS / 1000)));
      const body = await res.json();
      expectErrorBody(body, 503, 'service_unavailable');
      expect(body.message).toBe(
        `Namespace 'paused' is held by node node5 of the shared sandbox, which has not handed it over within ${LEASE_MS + 1000} ms (it may be paused or stopping; its lease lapses within ${LEASE_MS} ms of its last renewal). Retry.`,
      );
      expect(redisCli(redis, 'get', 'payments-sandbox:ns:paused:lease')).toMatch(/^node5\n\d+\n[0-9a-f]{12}$/);
    } finally {
      paused.signal('SIGCONT');
      await paused.stop();
    }
    // Woken, then stopped at once: the handover asked for while it slept is finished before it exits, lease given back.
    expect(await paused.exited).toBe(0);
    expect(redisCli(redis, 'exists', 'payments-sandbox:ns:paused:lease')).toBe('0');
  }, 30_000);
});

describe('a percent-encoded namespace prefix', () => {
  let proxy: HaProxy;
  beforeAll(async () => {
    proxy = await startProxy([a, b], ADMIN_TOKEN);
  }, 30_000);
  afterAll(() => proxy?.stop());

  it('is refused with a 400 naming the problem through HAProxy, so one namespace never has two owners', async () => {
    const res = await fetch(`${proxy.url}/ns/te%61m-1/connections`, { headers: auth });
    expect(res.status).toBe(400);
    const body = await res.json();
    expectErrorBody(body, 400, 'bad_request');
    expect(body.message).toBe(
      "The namespace in the path prefix /ns/te%61m-1/ is percent-encoded: write its name as is (write /ns/team-1/). A namespace is 1-64 letters, digits, '.', '_' or '-', which never need encoding, and a proxy routing by namespace reads the prefix as written.",
    );
    expect(body.details).toEqual([
      {
        location: 'path',
        pointer: '/ns',
        type: 'string_pattern_mismatch',
        message: 'A namespace is 1-64 letters, digits, ".", "_" or "-", not percent-encoded.',
      },
    ]);
    const control = await fetch(`${proxy.url}/ns/te%61m-1/_sandbox/clock`, { headers: admin });
    expect(control.status).toBe(400);
    await control.arrayBuffer();
    const slash = await fetch(`${proxy.url}/ns/team%2Fjob-2/connections`, { headers: auth });
    expect(slash.status).toBe(400);
    expect((await slash.json()).message).toMatch(/^The namespace in the path prefix \/ns\/team%2Fjob-2\/ is percent-encoded: write its name as is\. /);
    expect(keysOf('team')).toBe('');
    // Written as is, it is served by one node, every time.
    const nodes = new Set<string | null>();
    for (let i = 0; i < 4; i++) {
      const ok = await fetch(`${proxy.url}/ns/team-1/connections`, { headers: auth });
      expect(ok.status).toBe(200);
      await ok.arrayBuffer();
      nodes.add(ok.headers.get('x-sandbox-node'));
    }
    expect(nodes.size).toBe(1);
  });

  it('refuses a path whose dot segment would move it into another namespace, so the node never serves what the proxy hashed elsewhere', async () => {
    const put = await fetch(`${proxy.url}/ns/dot-jj/buyers/${BUYER}`, { method: 'PUT', headers: auth, body: JSON.stringify({ display_name: 'kept' }) });
    expect(put.status).toBe(200);
    await put.arrayBuffer();
    for (const prefix of ['/ns/dot-hh/%2e%2e/dot-jj', '/ns/dot-hh/../dot-jj']) {
      const body = JSON.stringify({ display_name: 'via-dots' });
      const { socket, received } = await openSocket(Number(new URL(proxy.url).port), 5_000);
      socket.write(
        head([
          `PUT ${prefix}/buyers/${BUYER} HTTP/1.1`,
          'host: localhost',
          `authorization: ${auth.authorization}`,
          'content-type: application/json',
          `content-length: ${body.length}`,
          'connection: close',
        ]) + body,
      );
      const res = parseResponse((await received).text);
      socket.destroy();
      expect([prefix, res.status]).toEqual([prefix, 400]);
      expectErrorBody(res.body, 400, 'bad_request');
      expect(res.body.message).toMatch(/holds a dot segment/);
    }
    const record = await fetch(`${proxy.url}/ns/dot-jj/_sandbox/records/buyers/${BUYER}`, { headers: admin });
    expect((await record.json()).display_name).toBe('kept');
    expect(keysOf('dot-hh')).toBe('');
  });
});
