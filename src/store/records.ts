// The stored shapes of every kind of record. Where the API returns a record as stored, the stored
// shape is the API shape; where it expands references (a gift card's buyer, a key pair's roles), the
// stored shape keeps ids and `resources/<area>/serialize.ts` expands them. The JSON schemas of these
// shapes live in openapi.json (components) and openapi.admin.json (records).

export type Timestamp = string; // RFC 3339 with Z, e.g. 2026-11-22T10:00:00.000Z

export interface BaseRecord {
  type: string;
  id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MerchantAccountRecord extends BaseRecord {
  type: 'merchant-account';
  display_name: string;
}

export interface RoleRecord extends BaseRecord {
  type: 'role';
  name: string;
  scopes: string[];
}

export interface CreatorRef {
  type: 'user' | 'api-key-pair';
  id: string;
  display_name: string | null;
}

export interface ApiKeyPairRecord extends BaseRecord {
  type: 'api-key-pair';
  thumbprint: string;
  display_name: string;
  algorithm: 'ECDSA' | 'RSA';
  active: boolean;
  /** SPKI PEM of the public key; the private key is never stored. */
  public_key: string;
  last_used_at: Timestamp | null;
  creator: CreatorRef | null;
  /** Empty: every merchant account. */
  merchant_account_ids: string[];
  role_ids: string[];
}

export interface Address {
  city: string | null;
  country: string | null;
  postal_code: string | null;
  state: string | null;
  state_code: string | null;
  house_number_or_name: string | null;
  line1: string | null;
  line2: string | null;
  organization: string | null;
}

export interface TaxId {
  value: string;
  kind: string;
}

export interface BillingDetails {
  first_name: string | null;
  last_name: string | null;
  email_address: string | null;
  phone_number: string | null;
  address: Address | null;
  tax_id: TaxId | null;
}

export interface BuyerRecord extends BaseRecord {
  type: 'buyer';
  merchant_account_id: string;
  display_name: string | null;
  external_identifier: string | null;
  account_number: string | null;
  billing_details: BillingDetails | null;
  /** Shown only where a buyer is nested in a gift card. */
  reconciliation_id: string;
}

export interface PaymentMethodRecord extends BaseRecord {
  type: 'payment-method';
  merchant_account_id: string;
  /** The buyer the method is stored for; null for a method stored without a buyer. */
  buyer_id: string | null;
  method: string;
  cit_usage_count: number;
  usage_count: number;
  has_replacement: boolean;
  scheme_transaction_id: string | null;
  scheme_transaction_id_scheme: string | null;
  approval_url: string | null;
  country: string | null;
  currency: string | null;
  details: { bin: string | null; card_type: string | null; card_issuer_name: string | null } | null;
  expiration_date: string | null; // MM/YY
  fingerprint: string | null;
  label: string | null;
  last_replaced_at: Timestamp | null;
  mode: string | null;
  scheme: string | null;
  additional_schemes: string[] | null;
  cit_last_used_at: Timestamp | null;
  last_used_at: Timestamp | null;
  transaction_link_id: string | null;
}

/**
 * What a configured service's connection shows of its definition. The rest of the connection's
 * definition comes from elsewhere: its id is the service's `*_definition_id`, its group the
 * service's collection, its count how many services of the merchant account share the definition.
 */
export interface ConnectionDefinitionFields {
  name: string;
  category: string;
  icon_url: string;
  provider: string;
}

/**
 * A configured service (payment, anti-fraud or gift card service, digital wallet): GET /connections
 * shows each one as a connection with the service's id, display name and active flag.
 */
export interface ConfiguredService extends BaseRecord {
  merchant_account_id: string;
  display_name: string;
  active: boolean;
  /** Shown as the connection's `silent`. */
  silent: boolean;
  definition: ConnectionDefinitionFields;
}

export interface PaymentServiceRecord extends ConfiguredService {
  type: 'payment-service';
  payment_service_definition_id: string;
}

export type PaymentServiceTokenStatus = 'processing' | 'buyer_approval_required' | 'succeeded' | 'failed' | 'paused';

export interface PaymentServiceTokenRecord extends BaseRecord {
  type: 'payment-service-token';
  merchant_account_id: string;
  payment_method_id: string;
  payment_service_id: string;
  status: PaymentServiceTokenStatus;
  approval_url: string | null;
  token: string;
  /** Where the sandbox's approval page sends the buyer after a decision (http or https); not shown by the API. */
  redirect_url?: string | null;
  /** What the buyer decided on the approval page (or through the control API); not shown by the API. */
  approval_outcome?: 'approved' | 'declined' | 'cancelled' | null;
  /** A decision that comes by itself on the namespace clock (POST /_sandbox/payment-service-tokens/{id}/approval with after). */
  approval_plan?: { decision: 'approve' | 'decline' | 'cancel'; due_at: Timestamp } | null;
}

export interface NetworkTokenRecord extends BaseRecord {
  type: 'network-token';
  merchant_account_id: string;
  payment_method_id: string;
  status: 'active' | 'inactive' | 'suspended' | 'deleted';
}

export interface GiftCardServiceRecord extends ConfiguredService {
  type: 'gift-card-service';
  gift_card_service_definition_id: string;
}

export interface GiftCardRecord extends BaseRecord {
  type: 'gift-card';
  merchant_account_id: string;
  gift_card_service_id: string;
  buyer_id: string;
  bin: string;
  sub_bin: string;
  last4: string;
  usage_count: number;
  cit_usage_count: number;
  expiration_date: Timestamp;
  last_used_at: Timestamp;
  cit_last_used_at: Timestamp;
}

export interface TransactionSessionData {
  session_data: Record<string, unknown>;
  default_completion_url: string;
  integration_client: 'redirect' | 'web' | 'android' | 'ios' | null;
}

export interface TransactionRecord extends BaseRecord {
  type: 'transaction';
  merchant_account_id: string;
  status: 'processing' | 'authorization_succeeded' | 'capture_succeeded' | 'authorization_declined' | 'authorization_failed' | 'buyer_approval_pending';
  amount: number;
  currency: string;
  /** The client session token that the `token` query parameter must match. */
  session_token: string;
  session: TransactionSessionData;
}

export interface CheckoutSessionRecord extends BaseRecord {
  type: 'checkout-session';
  merchant_account_id: string;
  expires_at: Timestamp;
}

export interface AntiFraudServiceRecord extends ConfiguredService {
  type: 'anti-fraud-service';
  anti_fraud_service_definition_id: string;
}

export interface AntiFraudServiceCredentialRecord extends BaseRecord {
  type: 'anti-fraud-service-credential';
  merchant_account_id: string;
  anti_fraud_service_id: string;
  key: string;
  value: string;
}

export interface ApplePayCertificateRecord extends BaseRecord {
  type: 'apple-pay-certificate';
  merchant_account_id: string;
  display_name: string;
  expires_at: Timestamp;
}

export interface WebhookSubscriptionRecord extends BaseRecord {
  type: 'webhook-subscription';
  merchant_account_id: string;
  /** Where notifications are POSTed (http or https). */
  url: string;
  /** Inactive subscriptions receive nothing (the seeded ones are inactive: their URLs lead nowhere). */
  active: boolean;
  /**
   * Key of the notifications' HMAC signature. Shown by the control API only, never by the API nor in
   * a log line; generated when absent (src/webhooks/secrets.ts).
   */
  secret?: string;
  /** The secret before the last rotation: notifications carry its signature too until it expires. */
  previous_secret?: string | null;
  /** When the previous secret stops signing (namespace clock). */
  previous_secret_expires_at?: Timestamp | null;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** One try at delivering a notification. */
export interface WebhookAttempt {
  /** 1 for the first attempt. */
  number: number;
  /** When it started, on the namespace clock. */
  at: Timestamp;
  /** When it started on the wall clock (its x-service-timestamp). */
  wall_clock_at: Timestamp;
  url: string;
  /** The receiver's status code; null when none came (refused, timed out, unreachable). */
  status_code: number | null;
  duration_ms: number;
  /** Why it failed; null for a 2xx. */
  error: string | null;
  /** The first KiB of the receiver's answer. */
  response_excerpt: string | null;
  /** Asked for through POST /_sandbox/webhooks/deliveries/{id}/retry. */
  manual: boolean;
}

/** A notification of one event to one subscription, with every attempt made (src/webhooks/). */
export interface WebhookDeliveryRecord extends BaseRecord {
  type: 'webhook-delivery';
  merchant_account_id: string;
  subscription_id: string;
  event_id: string;
  event_name: string;
  /** The notification's body, byte for byte the same on every attempt. */
  body: string;
  status: WebhookDeliveryStatus;
  attempts: WebhookAttempt[];
  /** When the next attempt is due (namespace clock); null once finished. */
  next_attempt_at: Timestamp | null;
  /** Why the last attempt failed, or why the delivery ended without one (cancelled, queue_full, self-check); null after a success. */
  error: string | null;
  /** The scenario whose `webhooks` field steered it (absent when none did). */
  scenario?: string;
  /** Steered to go out newest first, one at a time, with the others of its scenario that fall due together. */
  reorder?: true;
}

/** A digital wallet configured for a merchant account (Apple Pay, Google Pay): the Google Pay session needs one. */
export interface DigitalWalletRecord extends ConfiguredService {
  type: 'digital-wallet';
  /** e.g. apple-pay, google-pay. */
  digital_wallet_definition_id: string;
}

export type FlowName = 'checkout' | 'card-transaction' | 'non-card-transaction' | 'redirect-transaction';

export interface FlowRuleRecord extends BaseRecord {
  type: 'rule';
  merchant_account_id: string;
  description: string;
  flow: FlowName;
  action: string;
  conditions: { name: string; operator: string; value: Record<string, unknown> }[];
  outcome: {
    type: string;
    result: { payment_service_id: string; instrument: string; transformations: { name: string }[] }[];
    version: number;
  };
  position: number;
  error_code: string | null;
}

export interface VaultForwardConfigRecord extends BaseRecord {
  type: 'vault-forward-config';
  merchant_account_id: string;
  display_name: string;
  authentication_ids: string[];
}

export interface VaultForwardAuthenticationRecord extends BaseRecord {
  type: 'vault-forward-config-authentication';
  merchant_account_id: string;
  config_id: string;
  kind: string;
  label: string;
  display_name: string;
  fields: { key: string; value: string }[];
  creator: { id: string; name: string; email_address: string };
}

export interface CardSchemeDefinitionRecord {
  type: 'card-scheme-definition';
  id: string; // a scheme name, e.g. visa
  icon_url: string;
  display_name: string;
}

export type ReportSchedule = 'daily' | 'monthly' | 'once' | 'weekly';
export type ReportModel = 'transactions' | 'transaction_retries' | 'detailed_settlement' | 'accounts_receivables';

export interface ReportRecord extends BaseRecord {
  type: 'report';
  merchant_account_id: string;
  name: string;
  description: string | null;
  schedule: ReportSchedule;
  schedule_enabled: boolean;
  schedule_timezone: string;
  spec: { model: ReportModel; params: Record<string, unknown> };
  creator_id: string | null;
  creator_display_name: string | null;
  creator_type: 'user' | 'private_key' | null;
  next_execution_at: Timestamp | null;
}

export type ReportExecutionStatus = 'dispatched' | 'failed' | 'pending' | 'processing' | 'succeeded';

export interface ReportExecutionRecord extends BaseRecord {
  type: 'report-execution';
  merchant_account_id: string;
  report_id: string;
  status: ReportExecutionStatus;
  context: { reference_timestamp: Timestamp; reference_timezone: string };
  /**
   * How the status moves with the sandbox clock (resources/reports/lifecycle.ts): the states in
   * order and how long each but the last lasts. Absent or null: the status stays as stored.
   */
  lifecycle?: StoredLifecycle | null;
}

export interface StoredLifecycle {
  path: ReportExecutionStatus[];
  durations_ms: number[];
  /** When the first state of the path began; absent: the execution's created_at. */
  started_at?: Timestamp;
  /**
   * `namespace_start` (seeded executions): the first state lasts durations_ms[0] counted from when
   * the namespace started or was last reset, or from started_at when that is later. Made a plain
   * duration from started_at when the first state ends, so the rest of the path stays put.
   */
  first_duration_from?: 'namespace_start';
}

/** Every collection of the store, by name, with its record type. */
export interface Collections {
  merchant_accounts: MerchantAccountRecord;
  roles: RoleRecord;
  api_key_pairs: ApiKeyPairRecord;
  buyers: BuyerRecord;
  payment_methods: PaymentMethodRecord;
  payment_services: PaymentServiceRecord;
  payment_service_tokens: PaymentServiceTokenRecord;
  network_tokens: NetworkTokenRecord;
  gift_card_services: GiftCardServiceRecord;
  gift_cards: GiftCardRecord;
  transactions: TransactionRecord;
  checkout_sessions: CheckoutSessionRecord;
  anti_fraud_services: AntiFraudServiceRecord;
  anti_fraud_service_credentials: AntiFraudServiceCredentialRecord;
  apple_pay_certificates: ApplePayCertificateRecord;
  webhook_subscriptions: WebhookSubscriptionRecord;
  digital_wallets: DigitalWalletRecord;
  flow_rules: FlowRuleRecord;
  vault_forward_configs: VaultForwardConfigRecord;
  vault_forward_authentications: VaultForwardAuthenticationRecord;
  card_scheme_definitions: CardSchemeDefinitionRecord;
  reports: ReportRecord;
  report_executions: ReportExecutionRecord;
  webhook_deliveries: WebhookDeliveryRecord;
}

export type CollectionName = keyof Collections;

export const COLLECTION_NAMES: readonly CollectionName[] = [
  'merchant_accounts',
  'roles',
  'api_key_pairs',
  'buyers',
  'payment_methods',
  'payment_services',
  'payment_service_tokens',
  'network_tokens',
  'gift_card_services',
  'gift_cards',
  'transactions',
  'checkout_sessions',
  'anti_fraud_services',
  'anti_fraud_service_credentials',
  'apple_pay_certificates',
  'webhook_subscriptions',
  'digital_wallets',
  'flow_rules',
  'vault_forward_configs',
  'vault_forward_authentications',
  'card_scheme_definitions',
  'reports',
  'report_executions',
  'webhook_deliveries',
] as const;

/** The whole state of one namespace, as persisted and as exported by the snapshot route. */
export interface StoreData {
  schema_version: 1;
  seed: number;
  collections: { [K in CollectionName]: Collections[K][] };
}
