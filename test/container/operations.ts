// A table of requests covering the 19 operations (a success and error paths of each), sent in order
// to two sandboxes, and a comparison of their answers: the image must answer as the process does.
// Values a sandbox generates at random (new ids, private keys, cryptograms) may differ between the
// two, but only in their characters: a new id maps to one new id everywhere (ids.ts below).
import { expect } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { http } from './support.js';

export interface TableRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  /** false: no Authorization header; a string: that header. Default: the admin token. */
  auth?: false | string;
  merchant?: string;
  /** The operation it exercises (to check the table covers all 19). */
  operation: string;
}

const W = WELL_KNOWN;
const PM = W.paymentMethods.card.id;
const NT = W.networkTokens.active.id;
const MISSING = '00000000-0000-4000-8000-00000000dead';
const REPORT_SPEC = { model: 'transactions', params: { filters: { ingested_at: { start: '2026-11-01T00:00:00Z', end: '2026-11-22T00:00:00Z' } } } };

export const REQUESTS: TableRequest[] = [
  { operation: 'listCardSchemeDefinitions', method: 'GET', path: '/card-scheme-definitions' },
  { operation: 'listCardSchemeDefinitions', method: 'GET', path: '/card-scheme-definitions', auth: false },
  { operation: 'listCardSchemeDefinitions', method: 'GET', path: '/card-scheme-definitions', auth: 'Bearer not-a-jwt' },
  { operation: 'listConnections', method: 'GET', path: '/connections' },
  { operation: 'listConnections', method: 'GET', path: '/connections', merchant: 'merchant-two' },
  { operation: 'listFlowRules', method: 'GET', path: '/flows/checkout' },
  { operation: 'listFlowRules', method: 'GET', path: '/flows/card-transaction' },
  { operation: 'listFlowRules', method: 'GET', path: '/flows/no-such-flow' },
  { operation: 'listBuyerPaymentMethods', method: 'GET', path: '/buyers/payment-methods?sort_by=last_used_at&order_by=asc' },
  { operation: 'listBuyerPaymentMethods', method: 'GET', path: `/buyers/payment-methods?buyer_id=${W.buyers.default.id}` },
  { operation: 'listBuyerPaymentMethods', method: 'GET', path: '/buyers/payment-methods?buyer_id=not-a-uuid' },
  { operation: 'listGiftCards', method: 'GET', path: '/gift-cards?limit=7' },
  { operation: 'listGiftCards', method: 'GET', path: '/gift-cards?limit=0' },
  { operation: 'listPaymentServiceTokens', method: 'GET', path: `/payment-methods/${PM}/payment-service-tokens` },
  { operation: 'listPaymentServiceTokens', method: 'GET', path: `/payment-methods/${MISSING}/payment-service-tokens` },
  { operation: 'listVaultForwardAuthentications', method: 'GET', path: `/vault-forward/configs/${W.vaultForwardConfigs.default.id}/authentications` },
  { operation: 'listVaultForwardAuthentications', method: 'GET', path: `/vault-forward/configs/${MISSING}/authentications` },
  { operation: 'getReportExecution', method: 'GET', path: `/report-executions/${W.reportExecutions.pending.id}` },
  { operation: 'getReportExecution', method: 'GET', path: `/report-executions/${MISSING}` },
  { operation: 'createReport', method: 'POST', path: '/reports', body: { name: 'Daily sales', schedule: 'daily', schedule_enabled: true, spec: REPORT_SPEC } },
  { operation: 'createReport', method: 'POST', path: '/reports', body: { name: 'No spec', schedule: 'daily' } },
  { operation: 'createApiKeyPair', method: 'POST', path: '/api-key-pairs', body: { display_name: 'CI key', role_ids: [W.roles.readOnly.id] } },
  { operation: 'createApiKeyPair', method: 'POST', path: '/api-key-pairs', body: { display_name: 'CI key', role_ids: [MISSING] } },
  { operation: 'createApiKeyPair', method: 'POST', path: '/api-key-pairs', body: { display_name: 7 } },
  { operation: 'updateBuyer', method: 'PUT', path: `/buyers/${W.buyers.default.id}`, body: { display_name: 'Janet Doe', account_number: null } },
  { operation: 'updateBuyer', method: 'PUT', path: `/buyers/${W.buyers.default.id}`, body: { display_name: 12 } },
  { operation: 'updateBuyer', method: 'PUT', path: `/buyers/${MISSING}`, body: { display_name: 'Nobody' } },
  { operation: 'listBuyerPaymentMethods', method: 'GET', path: `/buyers/payment-methods?buyer_id=${W.buyers.default.id}` },
  {
    operation: 'createNetworkTokenCryptogram',
    method: 'POST',
    path: `/payment-methods/${PM}/network-tokens/${NT}/cryptogram`,
    body: { merchant_initiated: false },
  },
  {
    operation: 'createNetworkTokenCryptogram',
    method: 'POST',
    path: `/payment-methods/${PM}/network-tokens/${MISSING}/cryptogram`,
    body: { merchant_initiated: false },
  },
  { operation: 'createGooglePaySession', method: 'POST', path: '/digital-wallets/google/session', body: { origin_domain: 'shop.example.com' } },
  { operation: 'createGooglePaySession', method: 'POST', path: '/digital-wallets/google/session', body: {} },
  {
    operation: 'createClickToPaySession',
    method: 'POST',
    path: '/digital-wallets/click-to-pay/session',
    body: { checkout_session_id: W.checkoutSessions.default.id },
    auth: false,
  },
  { operation: 'createClickToPaySession', method: 'POST', path: '/digital-wallets/click-to-pay/session', body: { checkout_session_id: MISSING }, auth: false },
  { operation: 'updateTransactionSession', method: 'POST', path: `/transactions/${W.transactions.default.id}/session` },
  {
    operation: 'updateTransactionSession',
    method: 'POST',
    path: `/transactions/${W.transactions.default.id}/session?token=${W.transactions.default.sessionToken}`,
    body: {},
  },
  { operation: 'updateTransactionSession', method: 'POST', path: `/transactions/${MISSING}/session` },
  { operation: 'deleteCheckoutSession', method: 'DELETE', path: `/checkout/sessions/${W.checkoutSessions.default.id}` },
  { operation: 'deleteCheckoutSession', method: 'DELETE', path: `/checkout/sessions/${W.checkoutSessions.default.id}` },
  { operation: 'deleteAntiFraudService', method: 'DELETE', path: `/anti-fraud-services/${W.antiFraudServices.default.id}` },
  { operation: 'deleteAntiFraudService', method: 'DELETE', path: `/anti-fraud-services/${MISSING}` },
  { operation: 'deleteApplePayCertificate', method: 'DELETE', path: `/apple-pay-certificates/${W.applePayCertificates.default.id}` },
  { operation: 'deleteApplePayCertificate', method: 'DELETE', path: '/apple-pay-certificates/not-a-uuid' },
  { operation: 'deleteWebhookSubscription', method: 'DELETE', path: `/webhook-subscriptions/${W.webhookSubscriptions.default.id}` },
  { operation: 'deleteWebhookSubscription', method: 'DELETE', path: `/webhook-subscriptions/${W.webhookSubscriptions.default.id}` },
  { operation: 'listConnections', method: 'GET', path: '/connections' },
  { operation: 'listCardSchemeDefinitions', method: 'POST', path: '/card-scheme-definitions', body: {} },
];

export interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

export async function send(baseUrl: string, request: TableRequest, token: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (request.auth !== false) headers.authorization = request.auth ?? `Bearer ${token}`;
  if (request.merchant) headers['x-service-merchant-account-id'] = request.merchant;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const res = await http(`${baseUrl}${request.path}`, {
    method: request.method,
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  const contentType = (res.headers['content-type'] as string | undefined) ?? null;
  return { status: res.status, contentType, body: contentType?.includes('json') ? JSON.parse(res.text) : res.text };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Expects `actual` to be `expected` but for generated values: a UUID may stand for another one
 * (the same one each time it appears, in every answer: `ids` carries the mapping across answers);
 * another differing string must have the same length and the same punctuation (a key, a cryptogram).
 */
export function expectSameAnswer(actual: unknown, expected: unknown, where: string, ids: Map<string, string>): void {
  if (typeof actual === 'string' && typeof expected === 'string' && actual !== expected) {
    if (UUID.test(actual) && UUID.test(expected)) {
      const mapped = ids.get(actual);
      expect(mapped ?? expected, `${where}: id ${actual} stands for ${mapped} already`).toBe(expected);
      expect([...ids.values()].includes(expected) && !mapped, `${where}: id ${expected} is already another id's`).toBe(false);
      ids.set(actual, expected);
      return;
    }
    // Letters, digits and the base64/base64url symbols are the value; other punctuation is its shape.
    const shape = (s: string) => s.replace(/[A-Za-z0-9+/_-]/g, 'x');
    expect(shape(actual), `${where}: generated value ${actual.slice(0, 40)} vs ${expected.slice(0, 40)}`).toBe(shape(expected));
    return;
  }
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), `${where}: an array`).toBe(true);
    expect((actual as unknown[]).length, `${where}: length`).toBe(expected.length);
    for (const [i, item] of expected.entries()) expectSameAnswer((actual as unknown[])[i], item, `${where}[${i}]`, ids);
    return;
  }
  if (expected && typeof expected === 'object') {
    expect(actual && typeof actual === 'object' && !Array.isArray(actual), `${where}: an object`).toBe(true);
    expect(Object.keys(actual as object), `${where}: keys`).toEqual(Object.keys(expected));
    for (const [key, value] of Object.entries(expected)) expectSameAnswer((actual as Record<string, unknown>)[key], value, `${where}.${key}`, ids);
    return;
  }
  expect(actual, where).toEqual(expected);
}
