// openapi.json is the single source of truth: a valid OpenAPI document with the 19 operations of
// the reference, their scopes and success statuses; boot refuses a handler map that disagrees.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { apiHandlers } from '../../src/resources/index.js';
import { serveSpec } from '../../src/sandbox.js';
import { loadSpec } from '../../src/spec/load-spec.js';
import { indexSpec } from '../../src/spec/operations.js';

/** operationId -> [method, path, scopes (alternatives), success status], from the reference and decisions. */
const REFERENCE: Record<string, [string, string, string[], number]> = {
  createApiKeyPair: ['POST', '/api-key-pairs', ['api-key-pairs.write'], 201],
  updateBuyer: ['PUT', '/buyers/{buyer_id}', ['buyers.write'], 200],
  listBuyerPaymentMethods: ['GET', '/buyers/payment-methods', ['payment-methods.read', 'embed'], 200],
  listGiftCards: ['GET', '/gift-cards', ['gift-cards.read'], 200],
  listPaymentServiceTokens: ['GET', '/payment-methods/{payment_method_id}/payment-service-tokens', ['payment-methods.read'], 200],
  createNetworkTokenCryptogram: ['POST', '/payment-methods/{payment_method_id}/network-tokens/{network_token_id}/cryptogram', ['payment-methods.write'], 201],
  createGooglePaySession: ['POST', '/digital-wallets/google/session', ['digital-wallets.write', 'embed'], 200],
  createClickToPaySession: ['POST', '/digital-wallets/click-to-pay/session', [], 200],
  updateTransactionSession: ['POST', '/transactions/{transaction_id}/session', ['transactions.write', 'embed'], 200],
  deleteCheckoutSession: ['DELETE', '/checkout/sessions/{checkout_session_id}', ['checkout-sessions.write'], 204],
  deleteAntiFraudService: ['DELETE', '/anti-fraud-services/{anti_fraud_service_id}', ['anti-fraud-services.write'], 204],
  deleteApplePayCertificate: ['DELETE', '/apple-pay-certificates/{apple_pay_certificate_id}', ['apple-pay-certificates.write'], 204],
  listConnections: ['GET', '/connections', ['connections.read'], 200],
  listFlowRules: ['GET', '/flows/{flow}', ['flows.read'], 200],
  listVaultForwardAuthentications: ['GET', '/vault-forward/configs/{config_id}/authentications', ['vault-forward-authentications.read'], 200],
  listCardSchemeDefinitions: ['GET', '/card-scheme-definitions', ['card-scheme-definitions.read'], 200],
  createReport: ['POST', '/reports', ['reports.write'], 201],
  getReportExecution: ['GET', '/report-executions/{report_execution_id}', ['reports.read'], 200],
  deleteWebhookSubscription: ['DELETE', '/webhook-subscriptions/{subscription_id}', ['webhook-subscriptions.write'], 204],
};

describe('openapi.json', () => {
  const doc = loadSpec();
  const spec = indexSpec(doc, 'openapi.json');

  it('is a valid OpenAPI document', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.info.version).toBe('1.0.0');
  });

  it('has the 19 operations of the reference, each with a unique operationId, scopes and success status', () => {
    expect(spec.operations).toHaveLength(19);
    expect(spec.operations.map((o) => o.id).sort()).toEqual(Object.keys(REFERENCE).sort());
    for (const op of spec.operations) {
      const [method, path, scopes, status] = REFERENCE[op.id];
      expect([op.id, op.method, op.path, [...op.scopes].sort(), op.successStatus]).toEqual([op.id, method, path, [...scopes].sort(), status]);
      expect(op.successHasBody).toBe(status !== 204);
    }
  });

  it('compiles every request validator (the sandbox compiles them on first use, so a broken schema must fail here)', () => {
    const lazy = indexSpec(doc, 'openapi.json', [], { lazy: true });
    const compiled = lazy.operations.flatMap((op) => Object.entries(op.validators).map(([location, validate]) => [op.id, location, typeof validate]));
    expect(compiled.length).toBeGreaterThan(19);
    for (const [id, location, type] of compiled) expect(type, `${id} ${location}`).toBe('function');
  });

  it('marks only the key pair creation as answering with a private key (the journal searches those answers alone)', () => {
    const marked = spec.operations.filter((o) => o.answerMayHoldPrivateKey).map((o) => o.id);
    expect(marked).toEqual(['createApiKeyPair']);
  });

  it('gives every operation a security requirement with scopes, except Click to Pay with security: []', () => {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item as Record<string, any>)) {
        if (!op?.operationId) continue;
        if (op.operationId === 'createClickToPaySession') {
          expect(op.security).toEqual([]);
          continue;
        }
        expect(Array.isArray(op.security) && op.security.length > 0, `${method} ${path}`).toBe(true);
        for (const requirement of op.security) {
          expect(Object.keys(requirement)).toEqual(['bearerAuth']);
          expect(requirement.bearerAuth.length).toBeGreaterThan(0);
        }
      }
    }
    expect((doc.components?.securitySchemes as any)?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('describes every error response with the reference error bodies', () => {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const op of Object.values(item as Record<string, any>)) {
        if (!op?.operationId) continue;
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          if (Number(status) < 400) continue;
          const expected = status === '422' ? '#/components/schemas/ValidationError' : '#/components/schemas/Error';
          expect(response.content['application/json'].schema.$ref, `${op.operationId} ${status} (${path})`).toBe(expected);
        }
        expect(Object.keys(op.responses), op.operationId).toContain('401');
      }
    }
  });

  it('documents the records the reference lists no fields for', () => {
    const schemas = doc.components?.schemas ?? {};
    for (const name of [
      'NetworkToken',
      'CheckoutSession',
      'AntiFraudService',
      'AntiFraudServiceCredential',
      'ApplePayCertificate',
      'WebhookSubscription',
      'Transaction',
      'VaultForwardConfig',
      'PaymentService',
      'GiftCardService',
      'MerchantAccount',
      'RoleRecord',
    ]) {
      expect(schemas[name], name).toBeDefined();
      expect((schemas[name] as any).properties).toHaveProperty('id');
      expect((schemas[name] as any).properties).toHaveProperty('type');
    }
    expect((schemas.PaymentServiceToken as any).properties.status.enum).toEqual(['processing', 'buyer_approval_required', 'succeeded', 'failed', 'paused']);
  });
});

describe('boot pairs operations with handlers', () => {
  const spec = indexSpec(loadSpec(), 'openapi.json');

  it('serves the real handler map', () => {
    expect(serveSpec(spec, apiHandlers('secret'), 'openapi.json').router).toBeDefined();
  });

  it('fails naming the operation when a handler is missing', () => {
    const { listGiftCards: _gone, ...handlers } = apiHandlers('secret');
    expect(() => serveSpec(spec, handlers, 'openapi.json')).toThrow(/openapi\.json: no handler for operation listGiftCards \(GET \/gift-cards\)/);
  });

  it('fails naming the handler when it has no operation', () => {
    const handlers = { ...apiHandlers('secret'), listPayouts: () => ({ body: {} }) };
    expect(() => serveSpec(spec, handlers, 'openapi.json')).toThrow(/openapi\.json: handler listPayouts has no operation in the document/);
  });
});
