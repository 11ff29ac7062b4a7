// Turns an error step (or Prefer: code=NNN) into the reference's error: its code, a message naming
// the scenario, Retry-After on 429, Allow on 405 (as the sandbox's own 405 has), and on 409 a
// resource_id taken from a real record of the store.
import { ApiError, ERROR_CODES } from '../errors/api-error.js';
import type { Operation } from '../spec/operations.js';
import type { CollectionName } from '../store/records.js';
import type { CollectionMap } from '../store/store.js';
import type { ResourceIdSource, RespondSpec } from './types.js';

const MEANINGS: Record<number, string> = {
  400: 'the request is invalid',
  401: 'no valid authentication',
  403: 'no permission on the resource',
  404: 'the resource was not found',
  405: 'the method is not allowed',
  409: 'a duplicate record exists',
  422: 'the request could not be processed',
  425: 'the request came too early; retry it later',
  429: 'too many requests; retry after the Retry-After delay',
  500: 'the server failed',
  501: 'the server does not support this',
  502: 'bad gateway: an upstream service failed',
  503: 'service unavailable; retry after the Retry-After delay',
  504: 'gateway timeout: an upstream service did not answer in time',
};

/** For a 409 without a resource_id source: the collection the operation works on. */
const OPERATION_COLLECTIONS: Record<string, CollectionName> = {
  createApiKeyPair: 'api_key_pairs',
  updateBuyer: 'buyers',
  listBuyerPaymentMethods: 'payment_methods',
  listGiftCards: 'gift_cards',
  listPaymentServiceTokens: 'payment_service_tokens',
  createClickToPaySession: 'checkout_sessions',
  updateTransactionSession: 'transactions',
  createReport: 'reports',
  getReportExecution: 'report_executions',
  deleteWebhookSubscription: 'webhook_subscriptions',
};

export interface AnswerContext {
  /** Who answers: a scenario name or "Prefer: code=NNN". */
  source: string;
  operation: Operation;
  db: CollectionMap;
  merchantAccountId: string;
  /** The status is not one the operation declares (429 or 5xx as infrastructure answers them): the self-check checks the body only. */
  outsideContract?: boolean;
}

/**
 * `stepHeaders`: the headers the step adds itself; a Retry-After among them (or in spec.headers) is
 * the tester's, and a 429 gets no default of 1 beside it (compile-scenario.ts refuses two of them).
 */
export function scenarioError(spec: RespondSpec, ctx: AnswerContext, stepHeaders?: Record<string, string>): ApiError {
  const status = spec.status;
  const message = spec.message ?? `${MEANINGS[status] ?? `error ${status}`} (answered by ${ctx.source}).`.replace(/^./, (c) => c.toUpperCase());
  const headers: Record<string, string> = { ...(spec.headers ?? {}) };
  const retryAfterGiven = hasRetryAfter(spec.headers) || hasRetryAfter(stepHeaders);
  const retryAfter = spec.retry_after ?? (status === 429 && !retryAfterGiven ? 1 : undefined);
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  // RFC 9110 requires Allow on a 405: the methods served on the path, as the operation router's 405 says.
  if (status === 405 && !Object.keys(headers).some((name) => name.toLowerCase() === 'allow')) headers.allow = ctx.operation.methodsOnPath.join(', ');
  const extra: ApiError['extra'] = { headers };
  if (ctx.outsideContract) extra.outsideContract = true;
  if (status === 409) {
    const id = resourceId(spec.resource_id ?? { collection: OPERATION_COLLECTIONS[ctx.operation.id] ?? 'api_key_pairs', merchant_account: true }, ctx);
    if (id) extra.resource_id = id;
  } else if (typeof spec.resource_id === 'string') {
    extra.resource_id = spec.resource_id;
  }
  if (status === 422) extra.validation = [{ loc: ['body'], msg: message, type: 'value_error', input: null, ctx: { scenario: ctx.source } }];
  return new ApiError(status, spec.code ?? ERROR_CODES[status] ?? 'server_error', message, spec.details ?? [], extra);
}

/** The names of Retry-After among the headers, as written (any case). */
export function retryAfterNames(headers: Record<string, string> | undefined): string[] {
  return headers ? Object.keys(headers).filter((name) => name.toLowerCase() === 'retry-after') : [];
}

const hasRetryAfter = (headers: Record<string, string> | undefined) => retryAfterNames(headers).length > 0;

/** A fixed id, or the first record of the collection (of the request's merchant account when asked). */
function resourceId(source: ResourceIdSource, ctx: AnswerContext): string | undefined {
  if (typeof source === 'string') return source;
  const rows = ctx.db[source.collection].all() as ReadonlyArray<{ id: string; merchant_account_id?: string; merchant_account_ids?: string[] }>;
  const mine = source.merchant_account
    ? rows.filter(
        (r) =>
          r.merchant_account_id === ctx.merchantAccountId ||
          (r.merchant_account_ids && (r.merchant_account_ids.length === 0 || r.merchant_account_ids.includes(ctx.merchantAccountId))),
      )
    : rows;
  return (mine[0] ?? rows[0] ?? ctx.db.api_key_pairs.all()[0])?.id;
}
