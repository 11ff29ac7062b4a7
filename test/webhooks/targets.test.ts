// Where deliveries may go (issue 27, part 3): never to the sandbox itself, nor to link-local and
// cloud metadata addresses; with --webhook-target only to the hosts and ranges given. Checked on
// a real listening sandbox when a subscription is written (create, PATCH, snapshot and state
// imports, --forward-webhooks-to), and again by the transport when it connects, against every
// address a name resolves to (a resolver of the test's own stands for DNS).
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { TargetPolicy } from '../../src/webhooks/targets.js';
import { type AttemptResult, WebhookTransport } from '../../src/webhooks/transport.js';
import { freePort } from '../cluster/support.js';
import { expectErrorBody, WELL_KNOWN } from '../support/sandbox.js';
import { RawReceiver, sized } from './raw-receiver.js';
import { Receiver } from './receiver.js';

const json = { 'content-type': 'application/json' };
const BUYER = WELL_KNOWN.buyers.default.id;

async function call(sandbox: RunningSandbox, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}${path}`, { method, headers: json, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Expects the 400 of a refused target at `pointer`, its message naming why. */
function expectRefused(answer: { status: number; body: any }, pointer: string, why: RegExp) {
  expect(answer.status).toBe(400);
  expectErrorBody(answer.body, 400, 'bad_request');
  expect(answer.body.details).toEqual([{ location: 'body', pointer, type: 'url_refused', message: expect.stringMatching(why) }]);
  expect(answer.body.message).toMatch(why);
}

describe('webhook targets on a listening sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ logLevel: 'silent' });
  });
  afterAll(() => sandbox.close());
  afterEach(() => sandbox.reset());

  const subscribe = (url: string) => call(sandbox, 'POST', '/_sandbox/records/webhook_subscriptions', { url });
  const itself = /is the sandbox itself \(it listens on 127\.0\.0\.1:\d+\): deliveries never go to the sandbox; point the subscription at your receiver/;

  it("refuses a subscription to the sandbox's own address, however it is written", async () => {
    const port = sandbox.port;
    for (const url of [
      `http://127.0.0.1:${port}/_sandbox/reset?all=true`,
      `http://localhost:${port}/_sandbox/reset?all=true`,
      `http://api.localhost:${port}/hooks`,
      `http://[::ffff:127.0.0.1]:${port}/hooks`,
      `http://0.0.0.0:${port}/hooks`,
      `http://2130706433:${port}/hooks`, // 127.0.0.1 as one number
    ]) {
      expectRefused(await subscribe(url), '/url', itself);
    }
    expect((await call(sandbox, 'GET', '/_sandbox/records/webhook_subscriptions?limit=100')).body.items.every((s: { active: boolean }) => !s.active)).toBe(
      true,
    );
  });

  it('refuses link-local and cloud metadata targets', async () => {
    expectRefused(await subscribe('http://169.254.169.254/latest/meta-data/'), '/url', /169\.254\.169\.254 is a link-local or cloud metadata address/);
    expectRefused(await subscribe('http://[fe80::1]:8080/hooks'), '/url', /fe80::1 is a link-local or cloud metadata address/);
    expectRefused(await subscribe('http://metadata.google.internal/computeMetadata/v1/'), '/url', /metadata\.google\.internal is a cloud metadata service/);
  });

  it('accepts an ordinary local receiver, and delivers to it', async () => {
    const receiver = await Receiver.start();
    try {
      const created = await subscribe(receiver.url);
      expect(created.status).toBe(201);
      receiver.trust(created.body.secret);
      expect((await subscribe(`http://127.0.0.1:${sandbox.port + 1}/hooks`)).status).toBe(201); // another port of the same address
      const token = await sandbox.token();
      const put = await fetch(`${sandbox.url}/buyers/${BUYER}`, {
        method: 'PUT',
        headers: { ...json, authorization: `Bearer ${token}` },
        body: JSON.stringify({ display_name: 'Local Receiver' }),
      });
      expect(put.status).toBe(200);
      const [notification] = await receiver.waitFor(1, 'buyer.updated');
      expect(notification.event.target.display_name).toBe('Local Receiver');
    } finally {
      await receiver.close();
    }
  });

  it('refuses a PATCH and a snapshot or state import that point at the sandbox', async () => {
    const created = await subscribe('http://127.0.0.1:3000/hooks');
    expect(created.status).toBe(201);
    const own = `http://127.0.0.1:${sandbox.port}/_sandbox/reset?all=true`;
    expectRefused(await call(sandbox, 'PATCH', `/_sandbox/records/webhook_subscriptions/${created.body.id}`, { url: own }), '/url', itself);
    expect((await call(sandbox, 'GET', `/_sandbox/records/webhook_subscriptions/${created.body.id}`)).body.url).toBe('http://127.0.0.1:3000/hooks');

    const snapshot = (await call(sandbox, 'GET', '/_sandbox/snapshot')).body;
    const subscriptions = snapshot.collections.webhook_subscriptions;
    const at = subscriptions.findIndex((s: { id: string }) => s.id === created.body.id);
    subscriptions[at] = { ...subscriptions[at], url: own };
    expectRefused(await call(sandbox, 'PUT', '/_sandbox/snapshot', snapshot), `/collections/webhook_subscriptions/${at}/url`, itself);
    const state = (await call(sandbox, 'GET', '/_sandbox/state')).body;
    state.records.collections.webhook_subscriptions[at].url = own;
    expectRefused(await call(sandbox, 'PUT', '/_sandbox/state', state), `/records/collections/webhook_subscriptions/${at}/url`, itself);
    expect((await call(sandbox, 'GET', `/_sandbox/records/webhook_subscriptions/${created.body.id}`)).body.url).toBe('http://127.0.0.1:3000/hooks');
  });
});

describe('--webhook-target', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ logLevel: 'silent', webhookTargets: ['10.0.0.0/8', 'hooks.internal', '*.receivers.internal'] });
  });
  afterAll(() => sandbox.close());

  it('accepts the listed hosts and ranges and refuses other addresses, naming the option', async () => {
    const subscribe = (url: string) => call(sandbox, 'POST', '/_sandbox/records/webhook_subscriptions', { url });
    for (const url of ['http://10.1.2.3:8080/hooks', 'https://hooks.internal/in', 'http://a.receivers.internal/in']) {
      expect((await subscribe(url)).status).toBe(201);
    }
    expectRefused(
      await subscribe('http://127.0.0.1:3000/hooks'),
      '/url',
      /127\.0\.0\.1 is not among the webhook targets this sandbox allows \(--webhook-target 10\.0\.0\.0\/8, hooks\.internal, \*\.receivers\.internal\)/,
    );
    expectRefused(await subscribe('http://[::1]:3000/hooks'), '/url', /::1 is not among the webhook targets/);
    // A name that is not listed may still resolve into a listed range: it is checked when connecting.
    expect((await subscribe('http://other.internal/hooks')).status).toBe(201);
    // The sandbox itself and link-local addresses stay refused whatever is listed.
    expectRefused(await subscribe('http://169.254.169.254/'), '/url', /link-local/);
  });

  it('refuses a bad entry at start, naming it', async () => {
    await expect(startSandbox({ logLevel: 'silent', webhookTargets: ['10.0.0.0/33'] })).rejects.toThrow(
      "--webhook-target '10.0.0.0/33': the prefix length after / must be 0 to 32",
    );
  });
});

describe('--forward-webhooks-to', () => {
  it("stops the start when it points at the sandbox's own port", async () => {
    const port = await freePort();
    await expect(startSandbox({ logLevel: 'silent', port, forwardWebhooksTo: `http://localhost:${port}/_sandbox/reset` })).rejects.toThrow(
      new RegExp(
        `^--forward-webhooks-to: 'http://localhost:${port}/_sandbox/reset' is refused: localhost \\(127\\.0\\.0\\.1\\) port ${port} is the sandbox itself`,
      ),
    );
    // The port is free again: nothing kept listening.
    const again = await startSandbox({ logLevel: 'silent', port });
    await again.close();
  });
});

describe('the transport checks every resolved address when it connects', () => {
  const receivers: RawReceiver[] = [];
  let transport: WebhookTransport | null = null;
  afterEach(async () => {
    await transport?.close();
    for (const receiver of receivers.splice(0)) await receiver.close();
  });
  /** DNS as the test says: the names in `names` resolve to the addresses given. */
  const resolver =
    (names: Record<string, string>): LookupFunction =>
    (hostname, options, callback) =>
      dnsLookup(names[hostname] ?? hostname, options, callback);
  const send = (url: string): Promise<AttemptResult> => new Promise((resolve) => transport?.send(url, {}, '{}', resolve));

  it('fails, never connected, an attempt whose name resolves to the sandbox itself; the same name elsewhere is delivered', async () => {
    const self = await RawReceiver.start((_request, socket) => socket.write(sized(200, 'the sandbox answered')));
    const receiver = await RawReceiver.start((_request, socket) => socket.write(sized(200, 'ok')));
    receivers.push(self, receiver);
    const policy = new TargetPolicy([], resolver({ 'rebound.internal': '127.0.0.1' }));
    policy.listeningOn('127.0.0.1', self.port); // `self` stands for the sandbox
    transport = new WebhookTransport({ timeoutMs: 5_000, pipelining: 16, targets: policy });
    const refused = await send(`http://rebound.internal:${self.port}/_sandbox/reset?all=true`);
    expect(refused).toMatchObject({
      statusCode: null,
      excerpt: null,
      error: `rebound.internal (127.0.0.1) port ${self.port} is the sandbox itself (it listens on 127.0.0.1:${self.port}): deliveries never go to the sandbox; point the subscription at your receiver`,
    });
    expect(self.connections).toBe(0);
    expect(await send(`http://rebound.internal:${receiver.port}/hooks`)).toMatchObject({ statusCode: 200, error: null, excerpt: 'ok' });
    // An address written in the URL is refused before any connection too.
    expect((await send(`http://127.0.0.1:${self.port}/_sandbox/reset`)).error).toMatch(/is the sandbox itself/);
    expect(self.connections).toBe(0);
  });

  it('fails an attempt whose name resolves to a link-local address, or outside --webhook-target', async () => {
    const receiver = await RawReceiver.start((_request, socket) => socket.write(sized(200, 'ok')));
    receivers.push(receiver);
    const names = resolver({ 'metadata.internal': '169.254.169.254', 'receiver.internal': '127.0.0.1' });
    transport = new WebhookTransport({ timeoutMs: 5_000, pipelining: 16, targets: new TargetPolicy([], names) });
    expect((await send('http://metadata.internal/latest/meta-data/')).error).toBe(
      'metadata.internal (169.254.169.254) is a link-local or cloud metadata address: deliveries never go there; point the subscription at your receiver',
    );
    await transport.close();
    transport = new WebhookTransport({ timeoutMs: 5_000, pipelining: 16, targets: new TargetPolicy(['10.0.0.0/8'], names) });
    expect((await send(`http://receiver.internal:${receiver.port}/hooks`)).error).toMatch(
      /^receiver\.internal \(127\.0\.0\.1\) is not among the webhook targets this sandbox allows \(--webhook-target 10\.0\.0\.0\/8\)/,
    );
    expect(receiver.connections).toBe(0);
    await transport.close();
    // A name with several addresses is refused when any of them is: a public one first hides nothing.
    const both: LookupFunction = (hostname, options, callback) => {
      const all = hostname === 'mixed.internal' ? ['127.0.0.1', '169.254.169.254'] : [hostname];
      if (options.all)
        callback(
          null,
          all.map((address) => ({ address, family: 4 })),
        );
      else callback(null, all[0], 4);
    };
    transport = new WebhookTransport({ timeoutMs: 5_000, pipelining: 16, targets: new TargetPolicy([], both) });
    expect((await send(`http://mixed.internal:${receiver.port}/hooks`)).error).toBe(
      'mixed.internal (169.254.169.254) is a link-local or cloud metadata address: deliveries never go there; point the subscription at your receiver',
    );
    expect(receiver.connections).toBe(0);
    await transport.close();
    transport = new WebhookTransport({ timeoutMs: 5_000, pipelining: 16, targets: new TargetPolicy(['127.0.0.0/8'], names) });
    expect(await send(`http://receiver.internal:${receiver.port}/hooks`)).toMatchObject({ statusCode: 200, error: null });
    await transport.close();
    transport = new WebhookTransport({ timeoutMs: 5_000, pipelining: 16, targets: new TargetPolicy(['receiver.internal'], names) });
    expect(await send(`http://receiver.internal:${receiver.port}/hooks`)).toMatchObject({ statusCode: 200, error: null });
  });
});

describe('a sandbox listening on every address', () => {
  it('refuses any local address on its port', async () => {
    const sandbox = await startSandbox({ logLevel: 'silent', host: '0.0.0.0', adminToken: 'a-long-enough-admin-token-for-tests' });
    try {
      const answer = await fetch(`http://127.0.0.1:${sandbox.port}/_sandbox/records/webhook_subscriptions`, {
        method: 'POST',
        headers: { ...json, 'x-sandbox-admin-token': 'a-long-enough-admin-token-for-tests' },
        body: JSON.stringify({ url: `http://127.0.0.2:${sandbox.port}/hooks` }),
      });
      expectRefused(
        { status: answer.status, body: await answer.json() },
        '/url',
        /127\.0\.0\.2 port \d+ is the sandbox itself \(it listens on 0\.0\.0\.0:\d+\)/,
      );
    } finally {
      await sandbox.close();
    }
  });
});
