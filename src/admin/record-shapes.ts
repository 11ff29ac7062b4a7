// What the records API knows about each collection: the schema of its stored shape (in
// openapi.admin.json), the serializer that gives the API shape where the API returns that kind,
// the defaults a created record gets, and which fields must name existing records.

import type { ValidateFunction } from 'ajv';
import { keyAlgorithmOf, parsePublicKey, thumbprintOf } from '../auth/key-material.js';
import { ApiError, type ErrorDetail } from '../errors/api-error.js';
import { apiShapeOf } from '../resources/api-shapes.js';
import { reconciliationIdOf } from '../resources/buyers/reconciliation-id.js';
import { connectionSourceOf, defaultConnectionDefinition } from '../resources/connections.js';
import { approvalUrl, redirectUrlProblem, STORED_ORIGIN } from '../resources/payment-methods/approval.js';
import type { SpecIndex } from '../spec/operations.js';
import type { SchemaCompiler } from '../spec/schema-compiler.js';
import { toErrorDetails } from '../spec/schema-compiler.js';
import { canonicalizeAt, type FieldPath, uuidPaths } from '../spec/uuid-fields.js';
import type { CollectionName } from '../store/records.js';
import type { CollectionMap } from '../store/store.js';
import { generateSecret, refusedTarget, urlProblem } from '../webhooks/signing.js';
import type { TargetPolicy } from '../webhooks/targets.js';

type AnyRecord = Record<string, any> & { id: string };

export interface RecordShape {
  /** The `type` constant of the kind. */
  type: string;
  /** Component of openapi.admin.json describing the stored shape. */
  schema: string;
  /**
   * Shown as stored even in the API shape: the control API shows what the API hides (a webhook
   * subscription's secret, which the records API is the one place to read).
   */
  shownAsStored?: true;
  /** Made by the sandbox only (webhook deliveries): the records API lists, reads and deletes them, never creates or changes them. */
  readOnly?: string;
  /** Has a `merchant_account_id` (defaults to `default` on create; filterable). */
  merchantScoped: boolean;
  /** Has created_at and updated_at, stamped on create and update (all kinds but card scheme definitions). */
  timestamps?: false;
  /** Values for fields left out of a created record. */
  defaults?: () => Record<string, unknown>;
  /** Fields that must name an existing record (array fields: every item). */
  references?: Array<[field: string, collection: CollectionName]>;
  /** Derives computed fields (a key pair's thumbprint and algorithm) before validation. */
  derive?: (record: AnyRecord) => Promise<void>;
  /** What the schema cannot say about a record that matches it (a URL the sandbox could not send to), as 400 details. */
  problems?: (record: AnyRecord, targets: TargetPolicy | null) => ErrorDetail[];
}

const nulls = (...fields: string[]) => Object.fromEntries(fields.map((f) => [f, null]));
const owned = (schema: string, type: string, extra: Partial<RecordShape> = {}): RecordShape => ({ schema, type, merchantScoped: true, ...extra });

export const RECORD_SHAPES: Record<CollectionName, RecordShape> = {
  merchant_accounts: { schema: 'MerchantAccountRecord', type: 'merchant-account', merchantScoped: false },
  roles: { schema: 'RoleRecord', type: 'role', merchantScoped: false },
  api_key_pairs: {
    schema: 'ApiKeyPairRecord',
    type: 'api-key-pair',
    merchantScoped: false,
    defaults: () => ({ active: true, last_used_at: null, creator: null, merchant_account_ids: [], role_ids: [] }),
    references: [
      ['role_ids', 'roles'],
      ['merchant_account_ids', 'merchant_accounts'],
    ],
    derive: deriveKeyPairFields,
  },
  buyers: owned('BuyerRecord', 'buyer', {
    defaults: () => nulls('display_name', 'external_identifier', 'account_number', 'billing_details'),
    // Derived from the id as the real service derives it, unless the record names its own.
    derive: async (record) => {
      if (record.reconciliation_id === undefined && typeof record.id === 'string') record.reconciliation_id = reconciliationIdOf(record.id);
    },
  }),
  payment_methods: owned('PaymentMethodRecord', 'payment-method', {
    defaults: () => ({
      method: 'card',
      cit_usage_count: 0,
      usage_count: 0,
      has_replacement: false,
      ...nulls(
        'buyer_id',
        'scheme_transaction_id',
        'scheme_transaction_id_scheme',
        'approval_url',
        'country',
        'currency',
        'details',
        'expiration_date',
        'fingerprint',
        'label',
        'last_replaced_at',
        'mode',
        'scheme',
        'additional_schemes',
        'cit_last_used_at',
        'last_used_at',
        'transaction_link_id',
      ),
    }),
    references: [['buyer_id', 'buyers']],
  }),
  payment_services: owned('PaymentServiceRecord', 'payment-service', configuredService('payment_services')),
  payment_service_tokens: owned('PaymentServiceTokenRecord', 'payment-service-token', {
    defaults: () => ({ status: 'succeeded', approval_url: null }),
    references: [
      ['payment_method_id', 'payment_methods'],
      ['payment_service_id', 'payment_services'],
    ],
    // A token made waiting for the buyer gets the sandbox's approval page, as the seeded one has, and no outcome.
    derive: async (record) => {
      if (record.status !== 'buyer_approval_required') return;
      if (record.approval_url == null && typeof record.id === 'string') record.approval_url = approvalUrl(STORED_ORIGIN, record.id);
      // Waiting (again): no decision yet.
      if (record.approval_outcome != null) record.approval_outcome = null;
    },
    // The approval page sends the buyer there: a javascript: or data: URL would run in the sandbox's page.
    problems: (record) => {
      const problem = typeof record.redirect_url === 'string' ? redirectUrlProblem(record.redirect_url) : null;
      return problem ? [{ location: 'body', pointer: '/redirect_url', type: 'url_scheme', message: `Body field 'redirect_url' ${problem}.` }] : [];
    },
  }),
  network_tokens: owned('NetworkTokenRecord', 'network-token', {
    defaults: () => ({ status: 'active' }),
    references: [['payment_method_id', 'payment_methods']],
  }),
  gift_card_services: owned('GiftCardServiceRecord', 'gift-card-service', configuredService('gift_card_services')),
  gift_cards: owned('GiftCardRecord', 'gift-card', {
    defaults: () => ({ usage_count: 0, cit_usage_count: 0 }),
    references: [
      ['buyer_id', 'buyers'],
      ['gift_card_service_id', 'gift_card_services'],
    ],
  }),
  transactions: owned('TransactionRecord', 'transaction'),
  checkout_sessions: owned('CheckoutSessionRecord', 'checkout-session'),
  anti_fraud_services: owned('AntiFraudServiceRecord', 'anti-fraud-service', configuredService('anti_fraud_services')),
  anti_fraud_service_credentials: owned('AntiFraudServiceCredentialRecord', 'anti-fraud-service-credential', {
    references: [['anti_fraud_service_id', 'anti_fraud_services']],
  }),
  apple_pay_certificates: owned('ApplePayCertificateRecord', 'apple-pay-certificate'),
  webhook_subscriptions: owned('WebhookSubscriptionRecord', 'webhook-subscription', {
    shownAsStored: true,
    defaults: () => ({ active: true, secret: generateSecret() }),
    // The schema's uri format lets `http://`, port 0 or 99999 and user:password@ through: every delivery to them would
    // fail or drop the credentials. It refuses a non-ASCII host with a bare "must be a valid uri": this says why.
    // And a URL the target rules refuse (url_refused): the sandbox itself, link-local addresses, or one --webhook-target leaves out.
    problems: (record, targets) => {
      if (typeof record.url !== 'string') return [];
      const problem = urlProblem(record.url);
      if (problem) return [{ location: 'body', pointer: '/url', type: 'url_parsing', message: `Body field 'url': ${problem}.` }];
      const refused = targets === null ? null : refusedTarget(record.url, targets);
      return refused ? [{ location: 'body', pointer: '/url', type: 'url_refused', message: `Body field 'url': ${refused}.` }] : [];
    },
  }),
  digital_wallets: owned('DigitalWalletRecord', 'digital-wallet', configuredService('digital_wallets')),
  flow_rules: owned('FlowRuleRecord', 'rule', { defaults: () => ({ error_code: null }) }),
  vault_forward_configs: owned('VaultForwardConfigRecord', 'vault-forward-config', { defaults: () => ({ authentication_ids: [] }) }),
  vault_forward_authentications: owned('VaultForwardAuthenticationRecord', 'vault-forward-config-authentication', {
    references: [['config_id', 'vault_forward_configs']],
  }),
  card_scheme_definitions: { schema: 'CardSchemeDefinitionRecord', type: 'card-scheme-definition', merchantScoped: false, timestamps: false },
  reports: owned('ReportRecord', 'report', {
    defaults: () => ({ schedule_enabled: true, ...nulls('description', 'creator_id', 'creator_display_name', 'creator_type', 'next_execution_at') }),
  }),
  report_executions: owned('ReportExecutionRecord', 'report-execution', { references: [['report_id', 'reports']] }),
  // No reference to its subscription on purpose: deleting a subscription must not wait for its deliveries.
  webhook_deliveries: owned('WebhookDeliveryRecord', 'webhook-delivery', {
    readOnly:
      'webhook deliveries are made by events (POST /_sandbox/events, or any change a subscription hears) and kept by the sandbox; retry one with POST /_sandbox/webhooks/deliveries/{id}/retry',
  }),
};

/**
 * A configured service, shown by GET /connections: active and not silent unless told, and its
 * connection definition made from its definition id and display name when not given.
 */
function configuredService(collection: CollectionName): Partial<RecordShape> {
  const source = connectionSourceOf(collection)!;
  return {
    defaults: () => ({ active: true, silent: false }),
    async derive(record) {
      const definitionId = record[source.definitionIdField];
      if (record.definition !== undefined || typeof definitionId !== 'string' || typeof record.display_name !== 'string') return; // else the schema says what is missing
      record.definition = defaultConnectionDefinition(source.group, definitionId, record.display_name);
    },
  };
}

/** The record as the API returns it, or as stored for kinds the API returns as stored (and those shownAsStored). */
export function toApiShape(db: CollectionMap, collection: CollectionName, record: object, base?: string): unknown {
  return RECORD_SHAPES[collection].shownAsStored ? record : apiShapeOf(db, collection, record, base);
}

const validators = new WeakMap<SchemaCompiler, Map<CollectionName, ValidateFunction>>();
const uuidFields = new WeakMap<SpecIndex, Map<CollectionName, FieldPath[]>>();

/**
 * Brings the uuids a record's schema declares (its id, reference fields) to lower case, as the API
 * does with its input: stored uuids are lower case whatever case they were given in. The record must
 * have passed recordProblems.
 */
export function canonicalizeRecordUuids(spec: SpecIndex, collection: CollectionName, record: AnyRecord): void {
  let byCollection = uuidFields.get(spec);
  if (!byCollection) uuidFields.set(spec, (byCollection = new Map()));
  let paths = byCollection.get(collection);
  if (!paths) {
    paths = uuidPaths({ $ref: `#/components/schemas/${RECORD_SHAPES[collection].schema}` }, spec.compiler.docId, spec.resolve).filter((p) => p.length > 0);
    byCollection.set(collection, paths);
  }
  canonicalizeAt(record, paths);
}

/**
 * Problems of a stored record against its schema, then (when it matches) what the schema cannot say
 * (RecordShape.problems; `schemaOnly` leaves those out), as `details` items under `pointerPrefix`.
 */
export function recordProblems(
  compiler: SchemaCompiler,
  collection: CollectionName,
  record: unknown,
  pointerPrefix = '',
  schemaOnly = false,
  /** Where webhook deliveries may go (a subscription's url); null: not checked. */
  targets: TargetPolicy | null = null,
): ErrorDetail[] {
  let byCollection = validators.get(compiler);
  if (!byCollection) validators.set(compiler, (byCollection = new Map()));
  let validate = byCollection.get(collection);
  if (!validate) {
    validate = compiler.compile({ $ref: `#/components/schemas/${RECORD_SHAPES[collection].schema}` });
    byCollection.set(collection, validate);
  }
  const beyondSchema = RECORD_SHAPES[collection].problems;
  let details: ErrorDetail[];
  if (validate(record)) {
    if (schemaOnly || !beyondSchema) return [];
    details = beyondSchema(record as AnyRecord, targets);
  } else {
    // unevaluatedProperties (the $ref-based record schemas) means the same as additionalProperties.
    const errors = (validate.errors ?? []).map((e) =>
      e.keyword === 'unevaluatedProperties' ? { ...e, keyword: 'additionalProperties', params: { additionalProperty: e.params.unevaluatedProperty } } : e,
    );
    details = toErrorDetails('body', errors);
    // A format the shape explains better than the schema's "must be a valid uri" (a non-ASCII host): its message replaces it.
    if (beyondSchema && details.some((d) => d.type === 'url_parsing') && record !== null && typeof record === 'object' && !Array.isArray(record)) {
      const explained = beyondSchema(record as AnyRecord, targets);
      details = details.map((d) => (d.type === 'url_parsing' ? (explained.find((e) => e.pointer === d.pointer) ?? d) : d));
    }
  }
  return details.map((d) => ({
    ...d,
    pointer: `${pointerPrefix}${d.pointer}`,
    message: pointerPrefix ? `${d.message.replace(/\.$/, '')} (at ${pointerPrefix}${d.pointer}).` : d.message,
  }));
}

/** A key pair is given by its public key: thumbprint and algorithm are computed from it. */
async function deriveKeyPairFields(record: AnyRecord): Promise<void> {
  if (typeof record.public_key !== 'string') return; // the schema reports it missing
  let algorithm: 'ECDSA' | 'RSA' | null = null;
  try {
    algorithm = keyAlgorithmOf(parsePublicKey(record.public_key));
  } catch {
    algorithm = null;
  }
  if (!algorithm) {
    throw ApiError.unprocessable([
      {
        loc: ['body', 'public_key'],
        msg: 'public_key must be a PEM-encoded ECDSA P-521 or RSA public key.',
        type: 'value_error',
        input: record.public_key.slice(0, 100),
        ctx: {},
      },
    ]);
  }
  record.algorithm = algorithm;
  record.thumbprint = await thumbprintOf(record.public_key);
}
