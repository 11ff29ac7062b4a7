// One seed, one data set: two sandboxes built with the same seed answer every list operation with
// byte-identical bodies; another seed changes the generated data but not the well-known records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const PM = WELL_KNOWN.paymentMethods.card.id;
const LISTS = [
  '/buyers/payment-methods',
  '/buyers/payment-methods?sort_by=last_used_at&order_by=asc',
  `/buyers/payment-methods?buyer_id=${WELL_KNOWN.buyers.default.id}`,
  '/gift-cards?limit=100',
  '/gift-cards?limit=7',
  `/payment-methods/${PM}/payment-service-tokens`,
  '/connections',
  '/flows/checkout',
  '/flows/card-transaction',
  '/flows/non-card-transaction',
  '/flows/redirect-transaction',
  `/vault-forward/configs/${WELL_KNOWN.vaultForwardConfigs.default.id}/authentications`,
  '/card-scheme-definitions',
  `/report-executions/${WELL_KNOWN.reportExecutions.succeeded.id}`,
];

/** The body with the address the request reached written as http://sandbox: links to hosted pages name it (supertest listens anew per request). */
const withoutOrigin = (res: { text: string; request: { url: string } }) => res.text.replaceAll(new URL(res.request.url).origin, 'http://sandbox');

describe('deterministic data', () => {
  let a: TestSandbox;
  let b: TestSandbox;
  let other: TestSandbox;
  beforeAll(async () => {
    [a, b, other] = await Promise.all([startTestSandbox({ seed: 1234 }), startTestSandbox({ seed: 1234 }), startTestSandbox({ seed: 98765 })]);
  });
  afterAll(() => {
    for (const sb of [a, b, other]) sb?.server.close();
  });
  const text = async (sb: TestSandbox, path: string, merchant = 'default') => {
    const res = await sb.http.get(path).set('authorization', sb.auth).set('x-service-merchant-account-id', merchant);
    expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
    return withoutOrigin(res);
  };

  it('gives byte-identical bodies for every list operation with the same seed, in both merchant accounts', async () => {
    for (const merchant of ['default', 'merchant-two']) {
      for (const path of LISTS) {
        if (
          merchant === 'merchant-two' &&
          (path.includes('/payment-methods/') || path.includes('vault-forward') || path.includes('report-executions') || path.includes('buyer_id'))
        )
          continue;
        expect(await text(a, path, merchant), `${merchant} ${path}`).toBe(await text(b, path, merchant));
      }
    }
  });

  it('walks identical gift card pages, cursors included, with the same seed', async () => {
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const path: string = `/gift-cards?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const left: string = await text(a, path);
      const right: string = await text(b, path);
      expect(left).toBe(right);
      cursor = JSON.parse(left).next_cursor;
      pages++;
    }
    expect(pages).toBe(Math.ceil(a.deps.namespaces.get().store.collections.gift_cards.where((c) => c.merchant_account_id === 'default').length / 20));
    expect(pages).toBeGreaterThan(2);
  });

  it('gives a fresh namespace the same bytes as the default one', async () => {
    for (const path of LISTS) {
      const res = await a.http.get(`/ns/determinism-check${path}`).set('authorization', a.auth);
      // The same bytes, but for the namespace's prefix in the links to hosted pages (approval_url).
      const shown = withoutOrigin(res).replaceAll('http://sandbox/ns/determinism-check/_sandbox/hosted/', 'http://sandbox/_sandbox/hosted/');
      expect(shown, path).toBe(await text(a, path));
    }
  });

  it('generates different data with a different seed, keeping the well-known records', async () => {
    const ids = async (sb: TestSandbox, path: string) => JSON.parse(await text(sb, path)).items.map((x: any) => x.id);
    expect(await ids(other, '/gift-cards?limit=100')).not.toEqual(await ids(a, '/gift-cards?limit=100'));
    expect(await ids(other, '/buyers/payment-methods')).not.toEqual(await ids(a, '/buyers/payment-methods'));
    expect(await text(other, '/gift-cards?limit=7')).not.toBe(await text(a, '/gift-cards?limit=7'));
    // Well-known records are built from fixed data whatever the seed.
    for (const path of [
      `/payment-methods/${PM}/payment-service-tokens`,
      `/buyers/payment-methods?buyer_id=${WELL_KNOWN.buyers.default.id}`,
      `/vault-forward/configs/${WELL_KNOWN.vaultForwardConfigs.default.id}/authentications`,
      '/card-scheme-definitions',
    ]) {
      expect(await text(other, path), path).toBe(await text(a, path));
    }
    const janeCard = async (sb: TestSandbox) =>
      JSON.parse(await text(sb, `/gift-cards?buyer_id=${WELL_KNOWN.buyers.default.id}&limit=100`)).items.find(
        (c: any) => c.id === WELL_KNOWN.giftCards.default.id,
      );
    expect(await janeCard(other)).toEqual(await janeCard(a));
    expect(other.deps.namespaces.get().store.seed).toBe(98765);
  });
});
