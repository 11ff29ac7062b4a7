// GET /_sandbox/requests/stream through a real port: entries arrive live as server-sent events,
// filtered per connection and per namespace; a journal cleared says `reload`; a client that stops
// reading gets `dropped` and never slows the API; nobody connected means the journal does nothing
// for followers; close() ends open streams. A namespace followed by a stream is in use (never
// evicted while it is open), and a stream whose namespace is dropped anyway hears `reload`.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { EventReader } from '../support/sse.js';

describe('the live journal stream', () => {
  let sandbox: RunningSandbox;
  let auth: Record<string, string>;
  const opened: IncomingMessage[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, validateResponses: true, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    auth = { authorization: `Bearer ${await sandbox.token()}` };
  });
  afterAll(async () => {
    for (const res of opened) res.destroy();
    await sandbox.close();
  });

  /** Opens the stream at `path` (a control path, with its query) and waits for its answer. */
  function open(path: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${sandbox.url}${path}`, (res) => {
        opened.push(res);
        resolve(res);
      });
      req.on('error', reject);
      req.end();
    });
  }

  async function follow(path: string): Promise<{ res: IncomingMessage; events: EventReader }> {
    const res = await open(path);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    const events = new EventReader(res);
    const ready = await events.next();
    expect(ready.event).toBe('ready');
    return { res, events };
  }

  const call = (path: string, headers: Record<string, string> = {}) => fetch(`${sandbox.url}${path}`, { headers: { ...auth, ...headers } });

  it('sends each new matching request as it is recorded, oldest first, as a summary or whole', async () => {
    const summary = await follow('/ns/live1/_sandbox/requests/stream?view=summary');
    const full = await follow('/ns/live1/_sandbox/requests/stream');
    expect((await call('/ns/live1/card-scheme-definitions', { 'x-request-id': 'live-1' })).status).toBe(200);
    expect((await call('/ns/live1/gift-cards', { 'x-sandbox-scenario': 'server-error', 'x-request-id': 'live-2' })).status).toBe(500);
    const first = await summary.events.next();
    const second = await summary.events.next();
    expect([first.event, second.event]).toEqual(['request', 'request']);
    expect(first.data).toEqual({
      id: 1,
      timestamp: expect.any(String),
      namespace: 'live1',
      method: 'GET',
      path: '/card-scheme-definitions',
      url: `${sandbox.url}/ns/live1/card-scheme-definitions`,
      query: {},
      status: 200,
      duration_ms: expect.any(Number),
      operation_id: 'listCardSchemeDefinitions',
      merchant_account_id: 'default',
      scenario: null,
      request_id: 'live-1',
    });
    expect(second.data).toMatchObject({ id: 2, path: '/gift-cards', status: 500, scenario: 'server-error', request_id: 'live-2' });
    const whole = [await full.events.next(), await full.events.next()];
    expect(whole[1].data).toMatchObject({ id: 2, status: 500, scenario: 'server-error' });
    expect(whole[1].data.response_body).toMatchObject({ type: 'error', code: 'server_error' });
    expect(whole[1].data.response_headers).toMatchObject({ 'x-sandbox-scenario': 'server-error' });
    expect(whole[1].data.headers.authorization).toBe('[redacted]');
  });

  it('filters per connection, like GET /_sandbox/requests', async () => {
    const errors = await follow('/ns/live2/_sandbox/requests/stream?view=summary&status=5xx');
    const byPath = await follow(`/ns/live2/_sandbox/requests/stream?view=summary&path=${encodeURIComponent('*payment*')}`);
    const merchantTwo = await follow('/ns/live2/_sandbox/requests/stream?view=summary&merchant_account_id=merchant-two');
    await call('/ns/live2/card-scheme-definitions');
    await call(`/ns/live2/buyers/payment-methods?buyer_id=${WELL_KNOWN.buyers.default.id}`);
    await call('/ns/live2/gift-cards', { 'x-sandbox-scenario': 'bad-gateway', 'x-service-merchant-account-id': 'merchant-two' });
    expect((await errors.events.next()).data).toMatchObject({ status: 502, scenario: 'bad-gateway' });
    expect((await byPath.events.next()).data).toMatchObject({ path: '/buyers/payment-methods', status: 200 });
    expect((await merchantTwo.events.next()).data).toMatchObject({ status: 502, merchant_account_id: 'merchant-two' });
    const later = await Promise.all([errors, byPath, merchantTwo].map((f) => f.events.drain(400)));
    expect(later).toEqual([[], [], []]);
  });

  it('follows one namespace, or every one at the root; through a namespace, only that one', async () => {
    const own = await follow('/ns/live3/_sandbox/requests/stream?view=summary');
    const all = await follow('/_sandbox/requests/stream?view=summary&namespace=*');
    await call('/ns/live4/card-scheme-definitions'); // a namespace made after the streams opened
    await call('/ns/live3/card-scheme-definitions');
    expect((await own.events.next()).data).toMatchObject({ namespace: 'live3' });
    const seen = [await all.events.next(), await all.events.next()].map((e) => e.data.namespace).sort();
    expect(seen).toEqual(['live3', 'live4']);
    expect(await own.events.drain(300)).toEqual([]);

    const refused = await open('/ns/live3/_sandbox/requests/stream?namespace=*');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toBe('application/json');
    const bad = await open('/_sandbox/requests/stream?status=6xx');
    expect(bad.statusCode).toBe(400);
  });

  it('says reload when the journal is cleared, and goes on with new entries', async () => {
    const { events } = await follow('/ns/live5/_sandbox/requests/stream?view=summary');
    await call('/ns/live5/card-scheme-definitions');
    expect((await events.next()).event).toBe('request');
    expect((await fetch(`${sandbox.url}/ns/live5/_sandbox/requests`, { method: 'DELETE' })).status).toBe(204);
    expect(await events.next()).toEqual({
      event: 'reload',
      data: { namespace: 'live5', reason: 'cleared', message: 'The journal of namespace live5 was cleared or replaced: read it again.' },
    });
    await call('/ns/live5/card-scheme-definitions');
    expect((await events.next()).data).toMatchObject({ id: 2, namespace: 'live5' });
  });

  it('drops entries for a client that stopped reading, says how many, and the API keeps answering', async () => {
    const res = await open('/ns/live6/_sandbox/requests/stream');
    res.pause(); // a browser tab that stopped reading: Node stops reading the socket once its buffer is full
    const calls = 250; // each a 100-card page of about 60 kB: some 15 MB of events, far more than the socket buffers and the 1 MiB queue hold
    let answered = 0;
    for (let i = 0; i < calls; i++) if ((await call('/ns/live6/gift-cards?limit=100')).status === 200) answered++;
    expect(answered).toBe(calls);
    const events = new EventReader(res);
    res.resume();
    const got = await events.drain(1500);
    const requests = got.filter((e) => e.event === 'request').length;
    const dropped = got.filter((e) => e.event === 'dropped');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped[0].data.message).toMatch(/^\d+ requests? (was|were) not sent: .*GET \/_sandbox\/requests\.$/);
    expect(requests + dropped.reduce((n, e) => n + e.data.count, 0)).toBe(calls);
    expect(requests).toBeLessThan(calls);
  });

  it('costs the journal nothing while no stream is open: the feed stops watching when the last client leaves', async () => {
    const feed = sandbox.deps.journalFeed;
    const before = feed.watcherCount;
    const { res } = await follow('/ns/live7/_sandbox/requests/stream');
    expect(feed.watcherCount).toBe(before + 1);
    expect(feed.watching).toBe(true);
    res.destroy();
    const deadline = Date.now() + 5000;
    while (feed.watcherCount > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(feed.watcherCount).toBe(before);
  });
});

describe('closing a sandbox with a stream open', () => {
  it('ends the stream and closes', async () => {
    const sandbox = await startSandbox({ port: 0, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      httpRequest(`${sandbox.url}/_sandbox/requests/stream`, resolve).on('error', reject).end();
    });
    const events = new EventReader(res);
    expect((await events.next()).event).toBe('ready');
    await sandbox.close();
    expect(sandbox.deps.journalFeed.watching).toBe(false);
    await expect(events.next(2000)).rejects.toThrow('the stream ended');
  });
});

describe('a namespace followed live, at the cap', () => {
  let sandbox: RunningSandbox;
  let auth: Record<string, string>;
  const opened: IncomingMessage[] = [];

  beforeAll(async () => {
    // One namespace besides default, and any not in use may be evicted at once.
    sandbox = await startSandbox({
      port: 0,
      namespaceCap: 1,
      namespaceIdleSeconds: 0,
      validateResponses: true,
      logger: createLogger({ logLevel: 'silent', logFormat: 'json' }),
    });
    auth = { authorization: `Bearer ${await sandbox.token()}` };
  });
  afterAll(async () => {
    for (const res of opened) res.destroy();
    await sandbox.close();
  });

  async function follow(path: string): Promise<{ res: IncomingMessage; events: EventReader }> {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      httpRequest(`${sandbox.url}${path}`, resolve).on('error', reject).end();
    });
    opened.push(res);
    expect(res.statusCode).toBe(200);
    const events = new EventReader(res);
    expect((await events.next()).event).toBe('ready');
    return { res, events };
  }

  /** Closes the stream and waits until the sandbox has let it go. */
  async function leave(res: IncomingMessage): Promise<void> {
    const feed = sandbox.deps.journalFeed;
    const before = feed.watcherCount;
    res.destroy();
    const deadline = Date.now() + 5000;
    while (feed.watcherCount >= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(feed.watcherCount).toBe(before - 1);
  }

  const call = (path: string) => fetch(`${sandbox.url}${path}`, { headers: auth });
  const has = (name: string) => sandbox.deps.namespaces.has(name);

  async function expectRefused(name: string): Promise<void> {
    const res = await call(`/ns/${name}/card-scheme-definitions`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = await res.json();
    expect(body).toEqual({ type: 'error', code: 'service_unavailable', status: 503, message: expect.any(String), details: [] });
    expect(body.message).toContain(`Namespace '${name}' cannot be created: the sandbox keeps at most 1 namespaces besides default (--namespace-cap)`);
    expect(body.message).toContain('with no request in flight and no journal stream open');
    expect(has(name)).toBe(false);
  }

  it('keeps a namespace whose stream is open: a new one is refused 503 until the last stream on it closes, then it may go', async () => {
    const first = await follow('/ns/a/_sandbox/requests/stream?view=summary');
    await expectRefused('b');
    expect(has('a')).toBe(true);
    // Still followed, and what it records still arrives.
    expect((await call('/ns/a/card-scheme-definitions')).status).toBe(200);
    expect((await first.events.next()).data).toMatchObject({ namespace: 'a', path: '/card-scheme-definitions', status: 200 });
    // A second stream on it closing leaves the first one holding it; one at the root naming it holds it too.
    const second = await follow('/ns/a/_sandbox/requests/stream');
    await leave(second.res);
    await expectRefused('b');
    const root = await follow('/_sandbox/requests/stream?namespace=a');
    await leave(first.res);
    await expectRefused('b');
    await leave(root.res);
    // No stream left: idle (0 s here) and not in use, so it makes room.
    expect((await call('/ns/b/card-scheme-definitions')).status).toBe(200);
    expect(has('a')).toBe(false);
    expect(has('b')).toBe(true);
  });

  it('tells a stream its namespace was dropped anyway: deleted, or evicted under a stream of every namespace (which holds none)', async () => {
    const own = await follow('/ns/b/_sandbox/requests/stream?view=summary');
    const every = await follow('/_sandbox/requests/stream?namespace=*&view=summary');
    expect((await fetch(`${sandbox.url}/_sandbox/namespaces/b`, { method: 'DELETE' })).status).toBe(204);
    const dropped = (name: string) => ({
      event: 'reload',
      data: {
        namespace: name,
        reason: 'dropped',
        message: `Namespace ${name} was dropped (deleted, evicted, or handed to another node) with its journal: read it again; a namespace made again under that name is followed from its first request.`,
      },
    });
    expect(await own.events.next()).toEqual(dropped('b'));
    expect(await every.events.next()).toEqual(dropped('b'));
    // Made again under that name: followed from its first request.
    expect((await call('/ns/b/card-scheme-definitions')).status).toBe(200);
    expect((await own.events.next()).data).toMatchObject({ id: 1, namespace: 'b', path: '/card-scheme-definitions' });
    expect((await every.events.next()).data).toMatchObject({ id: 1, namespace: 'b' });
    await leave(own.res);
    // The stream of every namespace holds none: c pushes b out, and the stream hears it.
    expect((await call('/ns/c/card-scheme-definitions')).status).toBe(200);
    expect(has('b')).toBe(false);
    const seen = await every.events.drain(1000);
    expect(seen).toContainEqual(dropped('b'));
    expect(seen.filter((e) => e.event === 'request').map((e) => e.data.namespace)).toEqual(['c']);
  });
});
