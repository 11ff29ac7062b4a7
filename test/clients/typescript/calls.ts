// What the TypeScript suite (test/clients/typescript.test.ts) calls: well-known ids, each covered
// operation as a call that succeeds, the statuses each declares, the client's error classes.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Gr4vy } from '@gr4vy/sdk';
import * as errors from '@gr4vy/sdk/models/errors/index.js';
import { WELL_KNOWN } from '../../../fixtures/well-known.js';

export const JANE = 'b0000000-0000-4000-8000-000000000001';
export const CARD = 'c0000000-0000-4000-8000-000000000001';
export const NETWORK_TOKEN = 'c3000000-0000-4000-8000-000000000001';
export const CHECKOUT_SESSION = 'd1000000-0000-4000-8000-000000000001';
export const SUCCEEDED_EXECUTION = 'f6000000-0000-4000-8000-000000000004';
export const ADMIN_ROLE = WELL_KNOWN.roles.admin.id;

/** Each covered operation, called so that it succeeds; a `headers` option steers the sandbox. */
export const CALLS: Record<string, (c: Gr4vy, headers: Record<string, string>) => Promise<unknown>> = {
  updateBuyer: (c, headers) => c.buyers.update({ displayName: 'x' }, JANE, undefined, { headers }),
  listBuyerPaymentMethods: (c, headers) => c.buyers.paymentMethods.list({ buyerId: JANE }, { headers }),
  listGiftCards: async (c, headers) => (await c.giftCards.list({ limit: 1 }, { headers })).result,
  listPaymentServiceTokens: (c, headers) => c.paymentMethods.paymentServiceTokens.list(CARD, undefined, undefined, { headers }),
  createNetworkTokenCryptogram: (c, headers) =>
    c.paymentMethods.networkTokens.cryptogram.create({ merchantInitiated: true }, CARD, NETWORK_TOKEN, undefined, { headers }),
  createGooglePaySession: (c, headers) => c.digitalWallets.sessions.googlePay({ originDomain: 'shop.example.com' }, undefined, { headers }),
  createClickToPaySession: (c, headers) => c.digitalWallets.sessions.clickToPay({ checkoutSessionId: CHECKOUT_SESSION }, { headers }),
  deleteCheckoutSession: (c, headers) => c.checkoutSessions.delete(CHECKOUT_SESSION, undefined, { headers }),
  listCardSchemeDefinitions: (c, headers) => c.cardSchemeDefinitions.list(undefined, { headers }),
  createReport: (c, headers) =>
    c.reports.create({ name: 'r', schedule: 'once', scheduleEnabled: false, spec: { model: 'transactions', params: {} } }, undefined, { headers }),
  getReportExecution: (c, headers) => c.reports.executions.get(SUCCEEDED_EXECUTION, undefined, { headers }),
};

/** The statuses openapi.json declares per covered operation (the reference's lists), plus 429 and 5xx, which any operation may meet. */
export const DECLARED: Record<string, number[]> = {
  createNetworkTokenCryptogram: [400, 401, 403, 404],
  createGooglePaySession: [400, 401, 403, 404],
  deleteCheckoutSession: [400, 401, 403, 404],
  listCardSchemeDefinitions: [400, 401, 403],
};
export const EVERY = [400, 401, 403, 404, 405, 409, 422, 425, 429, 500, 502, 504];
export const INFRASTRUCTURE = [429, 500, 502, 503, 504];

/** The client's error class for a status (Gr4vyError for a status it has no class for). */
export const ERROR_CLASS: Record<number, new (...args: never[]) => Error> = {
  400: errors.Error400,
  401: errors.Error401,
  403: errors.Error403,
  404: errors.Error404,
  405: errors.Error405,
  409: errors.Error409,
  422: errors.HTTPValidationError,
  425: errors.Error425,
  429: errors.Error429,
  500: errors.Error500,
  502: errors.Error502,
  504: errors.Error504,
};

/** P-521 keys until one whose x or y coordinate starts with a zero byte (three keys in four). */
export function keyWithZeroLeadingCoordinate(): { privateKey: KeyObject; publicKey: KeyObject } {
  for (;;) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-521' });
    const jwk = pair.publicKey.export({ format: 'jwk' });
    const x = Buffer.from(jwk.x as string, 'base64url');
    const y = Buffer.from(jwk.y as string, 'base64url');
    if (x.length === 66 && y.length === 66 && (x[0] === 0 || y[0] === 0)) return pair;
  }
}
