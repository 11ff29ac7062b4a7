// The TypeScript official client (@gr4vy/sdk, pinned in package.json) against the built sandbox,
// started as a user starts it for the official clients (test/clients/support.ts). Everything goes
// through the client's own calls and helpers; only setup (subscriptions, scenarios, reading the
// journal) uses the control API by plain HTTP. Each describe block has a namespace of its own.
//
// The 19 operations and the client's method for each (@gr4vy/sdk 1.10.18 has 11 of them):
//   PUT /buyers/{id}                                       buyers.update
//   GET /buyers/payment-methods                            buyers.paymentMethods.list
//   GET /gift-cards                                        giftCards.list (a page iterator)
//   GET /payment-methods/{id}/payment-service-tokens       paymentMethods.paymentServiceTokens.list
//   POST /payment-methods/{id}/network-tokens/{id}/cryptogram  paymentMethods.networkTokens.cryptogram.create
//   POST /digital-wallets/google/session                   digitalWallets.sessions.googlePay
//   POST /digital-wallets/click-to-pay/session             digitalWallets.sessions.clickToPay
//   DELETE /checkout/sessions/{id}                         checkoutSessions.delete
//   GET /card-scheme-definitions                           cardSchemeDefinitions.list
//   POST /reports                                          reports.create
//   GET /report-executions/{id}                            reports.executions.get
// Missing from the client (no method, so not covered here; the other clients' suites cover them):
//   POST /api-key-pairs (the zero-byte key below is registered by plain HTTP, with the client's token),
//   POST /transactions/{id}/session, DELETE /anti-fraud-services/{id}, DELETE /apple-pay-certificates/{id},
//   GET /connections, GET /flows/{flow}, GET /vault-forward/configs/{id}/authentications,
//   DELETE /webhook-subscriptions/{id}.
import { readFileSync } from 'node:fs';
import { type Gr4vy, getToken, withToken } from '@gr4vy/sdk';
import * as errors from '@gr4vy/sdk/models/errors/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import type { RunningCli } from '../cli/support/cli.js';
import { Receiver } from '../webhooks/receiver.js';
import { startClientSandbox } from './support.js';
import {
  ADMIN_ROLE,
  CALLS,
  CARD,
  CHECKOUT_SESSION,
  DECLARED,
  ERROR_CLASS,
  EVERY,
  INFRASTRUCTURE,
  JANE,
  keyWithZeroLeadingCoordinate,
  NETWORK_TOKEN,
  SUCCEEDED_EXECUTION,
} from './typescript/calls.js';
import { sandboxClient, verifyDelivery } from './typescript/sandbox-client.js';
import { recordingHttpClient, unexpectedlyDropped } from './typescript/strict.js';

let sandbox: RunningCli;
beforeAll(async () => {
  sandbox = await startClientSandbox(['--validate-responses']);
}, 120_000);
afterAll(() => sandbox?.stop());

const nsUrl = (name: string) => `${sandbox.url}/ns/ts-${name}`;

async function control(name: string, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${nsUrl(name)}/_sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} /_sandbox${path}: ${res.status} ${await res.text()}`);
  return res;
}

/** A client whose every answer is compared with the body it parsed (strict.ts). */
function strictClient(ns: string, options: Parameters<typeof sandboxClient>[1] = {}) {
  const { httpClient, lastBody } = recordingHttpClient();
  const gr4vy = sandboxClient(nsUrl(ns), { httpClient, ...options });
  return {
    gr4vy,
    /** Runs one call and fails on any key of its answer the client dropped without a reason listed. */
    async call<T>(operationId: string, run: (client: Gr4vy) => Promise<T>): Promise<T> {
      const result = await run(gr4vy);
      expect(unexpectedlyDropped(operationId, lastBody(), result), `${operationId}: keys the client dropped`).toEqual([]);
      return result;
    },
  };
}

describe('every operation the client has, parsed strictly', () => {
  let client: ReturnType<typeof strictClient>;
  beforeAll(() => {
    client = strictClient('operations');
  });
  const call = <T>(operationId: string, run: (c: Gr4vy) => Promise<T>) => client.call(operationId, run);

  it('buyers.update changes the buyer and answers it in full', async () => {
    const buyer = await call('updateBuyer', (c) => c.buyers.update({ displayName: 'Jane from TS', accountNumber: null }, JANE));
    expect(buyer).toMatchObject({ type: 'buyer', id: JANE, merchantAccountId: 'default', displayName: 'Jane from TS', externalIdentifier: 'buyer-ext-0001' });
    expect(buyer.accountNumber ?? null).toBeNull();
    expect(buyer.billingDetails?.firstName).toBe('Jane');
    expect(buyer.updatedAt.getTime()).toBeGreaterThan(buyer.createdAt.getTime());
    const stored = await (await control('operations', 'GET', `/records/buyers/${JANE}`)).json();
    expect(stored.display_name).toBe('Jane from TS');
  });

  it('buyers.paymentMethods.list filters by buyer and country', async () => {
    const all = await call('listBuyerPaymentMethods', (c) => c.buyers.paymentMethods.list({ buyerId: JANE }));
    expect(all.items).toHaveLength(6);
    for (const method of all.items) expect(method).toMatchObject({ type: 'payment-method', merchantAccountId: 'default' });
    const us = await call('listBuyerPaymentMethods', (c) => c.buyers.paymentMethods.list({ buyerId: JANE, country: 'US' }));
    expect(us.items.map((m) => m.country)).toEqual(['US', 'US']);
  });

  it('giftCards.list pages through every gift card with a small limit, each page parsed strictly', async () => {
    const { httpClient, lastBody } = recordingHttpClient();
    const client = sandboxClient(nsUrl('operations'), { httpClient });
    const seen: string[] = [];
    const limits: number[] = [];
    for await (const page of await client.giftCards.list({ limit: 40 })) {
      expect(unexpectedlyDropped('listGiftCards', lastBody(), page.result)).toEqual([]);
      limits.push(page.result.items.length);
      expect(page.result.limit).toBe(40);
      for (const card of page.result.items) expect(card).toMatchObject({ type: 'gift-card', merchantAccountId: 'default' });
      seen.push(...page.result.items.map((card) => card.id));
    }
    expect(limits).toEqual([40, 40, 40, 37]); // 157 cards
    expect(new Set(seen).size).toBe(157);
  });

  it('paymentMethods.paymentServiceTokens.list lists the card tokens', async () => {
    const tokens = await call('listPaymentServiceTokens', (c) => c.paymentMethods.paymentServiceTokens.list(CARD));
    expect(tokens.items).toHaveLength(3);
    for (const token of tokens.items) expect(token).toMatchObject({ type: 'payment-service-token', paymentMethodId: CARD });
  });

  it('paymentMethods.networkTokens.cryptogram.create gives a cryptogram', async () => {
    const result = await call('createNetworkTokenCryptogram', (c) =>
      c.paymentMethods.networkTokens.cryptogram.create({ merchantInitiated: false }, CARD, NETWORK_TOKEN),
    );
    expect(result.cryptogram).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it('digitalWallets.sessions.googlePay and clickToPay open sessions', async () => {
    const google = await call('createGooglePaySession', (c) => c.digitalWallets.sessions.googlePay({ originDomain: 'shop.example.com' }));
    expect(google.gatewayMerchantId).toBe('default');
    expect(google.token.split('.')).toHaveLength(3);
    const clickToPay = await call('createClickToPaySession', (c) => c.digitalWallets.sessions.clickToPay({ checkoutSessionId: CHECKOUT_SESSION }));
    expect(clickToPay).toEqual({ digitalPaymentApplicationId: 'sandbox-dpa-default', digitalPaymentApplicationName: 'Default' });
  });

  it('cardSchemeDefinitions.list lists the schemes', async () => {
    const schemes = await call('listCardSchemeDefinitions', (c) => c.cardSchemeDefinitions.list());
    expect(schemes.items.map((s) => s.id)).toContain('visa');
    for (const scheme of schemes.items) expect(scheme.iconUrl).toMatch(/^https:\/\//);
  });

  it('reports.create makes a report and reports.executions.get reads an execution', async () => {
    const report = await call('createReport', (c) =>
      c.reports.create({ name: 'TS suite', schedule: 'once', scheduleEnabled: false, spec: { model: 'transactions', params: {} } }),
    );
    expect(report).toMatchObject({
      type: 'report',
      name: 'TS suite',
      schedule: 'once',
      scheduleEnabled: false,
      scheduleTimezone: 'Etc/UTC',
      creatorType: 'private_key',
    });
    const stored = await (await control('operations', 'GET', `/records/reports/${report.id}`)).json();
    expect(stored.name).toBe('TS suite');
    const execution = await call('getReportExecution', (c) => c.reports.executions.get(SUCCEEDED_EXECUTION));
    expect(execution).toMatchObject({ type: 'report-execution', id: SUCCEEDED_EXECUTION, status: 'succeeded' });
  });

  it('checkoutSessions.delete removes the session (a second delete is a typed 404)', async () => {
    await expect(client.gr4vy.checkoutSessions.delete(CHECKOUT_SESSION)).resolves.toBeUndefined();
    await expect(client.gr4vy.checkoutSessions.delete(CHECKOUT_SESSION)).rejects.toBeInstanceOf(errors.Error404);
    const left = await fetch(`${nsUrl('operations')}/_sandbox/records/checkout_sessions/${CHECKOUT_SESSION}`);
    expect(left.status).toBe(404);
  });
});

describe('typed errors for every status each operation declares, driven by Prefer: code=', () => {
  let gr4vy: Gr4vy;
  beforeAll(() => {
    gr4vy = sandboxClient(nsUrl('errors'), { retryConfig: { strategy: 'none' } });
  });
  for (const [operationId, run] of Object.entries(CALLS)) {
    const statuses = [...new Set([...(DECLARED[operationId] ?? EVERY), ...INFRASTRUCTURE])];
    it(`${operationId}: ${statuses.join(', ')}`, { timeout: 60_000 }, async () => {
      for (const status of statuses) {
        const error = await run(gr4vy, { prefer: `code=${status}` }).then(
          () => null,
          (e: unknown) => e,
        );
        const expected = ERROR_CLASS[status] ?? errors.Gr4vyError;
        expect(error, `${operationId} ${status}`).toBeInstanceOf(expected);
        const e = error as errors.Gr4vyError;
        expect(e.statusCode).toBe(status);
        expect(e.headers.get('x-sandbox-scenario')).toMatch(new RegExp(`^prefer:code=${status}`));
        const body = JSON.parse(e.body);
        if (status === 422) {
          expect((error as errors.HTTPValidationError).detail?.[0]).toMatchObject({
            loc: expect.any(Array),
            msg: expect.any(String),
            type: expect.any(String),
          });
        } else {
          expect(body).toMatchObject({ type: 'error', status, message: expect.any(String) });
          if (expected !== errors.Gr4vyError) expect(e).toMatchObject({ status, code: body.code, message: body.message });
        }
        if (status === 409) expect(body.resource_id).toMatch(/^[0-9a-f-]{36}$/);
        if (status === 429) expect(e.headers.get('retry-after')).toBe('1');
      }
    });
  }
});

describe('a scenario activated for the namespace (for code that cannot add headers)', () => {
  it('rate-limited for merchant-two: two typed 429s with Retry-After, then answers; default untouched', async () => {
    await control('activated', 'PUT', '/scenarios/active', { scenarios: ['rate-limited'], merchant_account_id: 'merchant-two' });
    const two = sandboxClient(nsUrl('activated'), { merchantAccountId: 'merchant-two', retryConfig: { strategy: 'none' } });
    for (let i = 0; i < 2; i++) {
      const error = await two.giftCards.list({ limit: 1 }).catch((e: unknown) => e); // a list that declares 429
      expect(error).toBeInstanceOf(errors.Error429);
      expect((error as errors.Error429).headers.get('retry-after')).toBe('1');
      expect((error as errors.Error429).headers.get('x-sandbox-scenario')).toBe('rate-limited');
      expect(error).toMatchObject({ code: 'too_many_requests', status: 429 });
    }
    expect((await two.giftCards.list({ limit: 1 })).result.items[0].merchantAccountId).toBe('merchant-two');
    const untouched = sandboxClient(nsUrl('activated'), { retryConfig: { strategy: 'none' } });
    expect((await untouched.giftCards.list({ limit: 1 })).result.items[0].merchantAccountId).toBe('default');
  });
});

const LOST_REPORT = {
  name: 'lost-report',
  description: 'The first report is made, its answer lost.',
  operations: ['createReport'],
  times: 1,
  lose_answer: { status: 504 },
};

describe('retries and timeouts', () => {
  it('a GET that fails once with a 5xx is retried and succeeds', async () => {
    await control('retry', 'POST', '/scenarios', {
      name: 'first-schemes-call-fails',
      description: 'The first card scheme list answers 502.',
      operations: ['listCardSchemeDefinitions'],
      calls: [1],
      respond: { status: 502 },
    });
    const gr4vy = sandboxClient(nsUrl('retry'));
    const schemes = await gr4vy.cardSchemeDefinitions.list(undefined, { headers: { 'x-sandbox-scenario': 'first-schemes-call-fails' } });
    expect(schemes.items.length).toBeGreaterThan(0);
    const journal = await (await control('retry', 'GET', '/requests?operation_id=listCardSchemeDefinitions&view=summary')).json();
    expect(journal.items.map((r: { status: number }) => r.status)).toEqual([200, 502]); // newest first
  });

  it('a write is not retried by default: a lost answer is a typed 504 and one report; a client retryConfig retries writes too', async () => {
    await control('lost', 'POST', '/scenarios', LOST_REPORT);
    const report = { name: 'lost once', schedule: 'once' as const, scheduleEnabled: false, spec: { model: 'transactions' as const, params: {} } };
    const headers = { 'x-sandbox-scenario': 'lost-report' };
    const reportsNamed = async (name: string) =>
      ((await (await control('lost', 'GET', '/records/reports?limit=1000')).json()).items as Array<{ id: string; name: string }>).filter(
        (r) => r.name === name,
      );

    await expect(sandboxClient(nsUrl('lost')).reports.create(report, undefined, { headers })).rejects.toBeInstanceOf(errors.Error504);
    expect(await reportsNamed('lost once')).toHaveLength(1); // made, its answer lost, not sent again

    await control('lost', 'POST', '/scenarios', { ...LOST_REPORT, name: 'lost-report-again' }); // counters of its own
    const retrying = sandboxClient(nsUrl('lost'), {
      retryConfig: { strategy: 'backoff', backoff: { initialInterval: 50, maxInterval: 50, exponent: 1, maxElapsedTime: 2_000 } },
    });
    const made = await retrying.reports.create({ ...report, name: 'lost then retried' }, undefined, { headers: { 'x-sandbox-scenario': 'lost-report-again' } });
    const both = await reportsNamed('lost then retried');
    expect(both).toHaveLength(2); // the lost one and the retry's: the trap a lost answer sets for a retried write
    expect(both.map((r) => r.id)).toContain(made.id);
  });

  it('a call slower than the client timeout fails with RequestTimeoutError', async () => {
    const gr4vy = sandboxClient(nsUrl('timeout'), { timeoutMs: 300, retryConfig: { strategy: 'none' } });
    const started = Date.now();
    await expect(gr4vy.cardSchemeDefinitions.list(undefined, { headers: { 'x-sandbox-scenario': 'slow' } })).rejects.toBeInstanceOf(errors.RequestTimeoutError);
    expect(Date.now() - started).toBeLessThan(1_500); // the sandbox answers after 1.5 s
    await expect(gr4vy.cardSchemeDefinitions.list()).resolves.toMatchObject({ items: expect.any(Array) });
  });
});

describe('the merchant account option', () => {
  it('chooses merchant-two, on the client and per call', async () => {
    const two = sandboxClient(nsUrl('merchant'), { merchantAccountId: 'merchant-two' });
    const page = await two.giftCards.list({ limit: 100 });
    expect(page.result.items).toHaveLength(12);
    expect(new Set(page.result.items.map((card) => card.merchantAccountId))).toEqual(new Set(['merchant-two']));
    const defaults = sandboxClient(nsUrl('merchant'));
    await expect(defaults.buyers.update({ displayName: 'x' }, WELL_KNOWN.buyers.merchantTwo.id)).rejects.toBeInstanceOf(errors.Error404);
    const theirs = await defaults.buyers.update({ displayName: 'Two' }, WELL_KNOWN.buyers.merchantTwo.id, 'merchant-two');
    expect(theirs.merchantAccountId).toBe('merchant-two');
  });

  it('an account that does not exist is a typed 403 naming it and the header', async () => {
    const nowhere = sandboxClient(nsUrl('merchant'), { merchantAccountId: 'nowhere' });
    const error = await nowhere.cardSchemeDefinitions.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.Error403);
    expect((error as errors.Error403).message).toMatch(/nowhere.*x-gr4vy-merchant-account-id|x-gr4vy-merchant-account-id.*nowhere/);
  });
});

describe("tokens minted by the client's helper", () => {
  it('withToken and getToken sign with the fixtures key; the sandbox accepts them and refuses the inactive key', async () => {
    const token = await getToken({ privateKey: readFileSync('fixtures/keys/admin.pem', 'utf8') });
    const [header, claims] = token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    const adminPair = await (await control('tokens', 'GET', `/records/api_key_pairs/${WELL_KNOWN.keyPairs.admin.id}`)).json();
    expect(header).toMatchObject({ alg: 'ES512', kid: adminPair.thumbprint });
    expect(claims.exp - claims.iat).toBe(30);
    const inactive = sandboxClient(nsUrl('tokens'), {
      bearerAuth: withToken({ privateKey: readFileSync('fixtures/keys/inactive.pem', 'utf8') }),
    });
    const error = await inactive.cardSchemeDefinitions.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.Error401);
    expect((error as errors.Error401).headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('the read-only key: reads answer, a write is a typed 403 naming the missing scope', async () => {
    const readOnly = sandboxClient(nsUrl('tokens'), { bearerAuth: withToken({ privateKey: readFileSync('fixtures/keys/read-only.pem', 'utf8') }) });
    await expect(readOnly.cardSchemeDefinitions.list()).resolves.toMatchObject({ items: expect.any(Array) });
    const error = await readOnly.buyers.update({ displayName: 'x' }, JANE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.Error403);
    expect(error).toMatchObject({ status: 403, code: 'forbidden' });
    expect((error as errors.Error403).message).toContain('buyers.write');
    const stored = await (await control('tokens', 'GET', `/records/buyers/${JANE}`)).json();
    expect(stored.display_name).not.toBe('x');
  });

  it('a key whose coordinate starts with a zero byte: registered, then its withToken tokens are accepted', async () => {
    const { privateKey, publicKey } = keyWithZeroLeadingCoordinate();
    const privatePem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    // The client has no POST /api-key-pairs: registered by plain HTTP with the client's own token.
    // Scopes cover every scope of the role it grants (embed included), as the sandbox requires.
    const admin = await getToken({ privateKey: readFileSync('fixtures/keys/admin.pem', 'utf8'), scopes: ['*.read', '*.write', 'embed'] });
    const registered = await fetch(`${nsUrl('tokens')}/api-key-pairs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'zero byte key', role_ids: [ADMIN_ROLE], public_key: publicKey.export({ format: 'pem', type: 'spki' }).toString() }),
    });
    expect(registered.status).toBe(201);
    const pair = await registered.json();
    const kid = JSON.parse(Buffer.from((await getToken({ privateKey: privatePem })).split('.')[0], 'base64url').toString()).kid;
    expect(kid).toBe(pair.thumbprint);
    const client = sandboxClient(nsUrl('tokens'), { bearerAuth: withToken({ privateKey: privatePem }) });
    const schemes = await client.cardSchemeDefinitions.list();
    expect(schemes.items.length).toBeGreaterThan(0);
    const used = await (await control('tokens', 'GET', `/records/api_key_pairs/${pair.id}`)).json();
    expect(used.last_used_at).not.toBeNull();
  });
});

describe("the client's webhook check", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(() => receiver?.close());

  it('accepts a real delivery and refuses a tampered body, signature or secret', async () => {
    const subscription = await (await control('webhooks', 'POST', '/records/webhook_subscriptions', { url: receiver.url })).json();
    receiver.trust(subscription.secret);
    await sandboxClient(nsUrl('webhooks')).buyers.update({ displayName: 'Hooked' }, JANE);
    const [delivery] = await receiver.waitFor(1, 'buyer.updated');
    const headers = new Headers(delivery.headers as Record<string, string>);
    expect(delivery.event.target).toMatchObject({ id: JANE, display_name: 'Hooked' });

    expect(() => verifyDelivery(delivery.body, headers, subscription.secret)).not.toThrow();
    expect(() => verifyDelivery(delivery.body.replace('Hooked', 'Hacked'), headers, subscription.secret)).toThrow('No matching signature found');
    expect(() => verifyDelivery(delivery.body, headers, `${subscription.secret}x`)).toThrow('No matching signature found');
    const forged = new Headers(headers);
    forged.set('x-service-timestamp', String(Number(headers.get('x-service-timestamp')) + 1));
    expect(() => verifyDelivery(delivery.body, forged, subscription.secret)).toThrow('No matching signature found');
    const stale = new Headers(headers);
    stale.set('x-service-timestamp', '1000000000');
    expect(() => verifyDelivery(delivery.body, stale, subscription.secret)).toThrow();
  });
});
