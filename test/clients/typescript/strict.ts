// Response strictness for @gr4vy/sdk: its zod models always check required fields, types, literals
// and date-time formats (a failure is an SDKValidationError / ResponseValidationError), but they
// drop keys they do not know, and the client has no switch to refuse them. So every response body is
// kept (an HTTPClient hook) and compared with what the client parsed: a key the client dropped fails
// the suite unless it is listed here with the reason the sandbox serves it.
import { HTTPClient } from '@gr4vy/sdk/lib/http.js';

/** Keys @gr4vy/sdk 1.10.18 does not model, per operation (JSON paths, `[]` for any item), and why they are served. */
export const NOT_MODELLED: Record<string, Record<string, string>> = {
  listGiftCards: {
    '/items[]/usage_count': 'in the reference; Python 2.3 and Java 2.18 require it',
    '/items[]/cit_usage_count': 'in the reference; Python 2.3 and Java 2.18 require it',
    '/items[]/last_used_at': 'in the reference',
    '/items[]/cit_last_used_at': 'in the reference',
    '/items[]/buyer/reconciliation_id': 'in the reference (buyer objects nested in gift cards)',
  },
  listBuyerPaymentMethods: {
    '/items[]/scheme_transaction_id': 'in the reference; newer clients require the key even when null',
    '/items[]/scheme_transaction_id_scheme': 'in the reference; newer clients require the key even when null',
    '/items[]/transaction_link_id': 'in the reference',
  },
  updateBuyer: {
    '/reconciliation_id': 'in the reference (buyer); Python 2.3 and Java 2.18 require it',
  },
};

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Paths of `raw` (the JSON body) that the parsed model does not carry. */
export function droppedKeys(raw: unknown, parsed: unknown, path = ''): string[] {
  if (Array.isArray(raw)) return raw.flatMap((item, i) => droppedKeys(item, Array.isArray(parsed) ? parsed[i] : undefined, `${path}[]`));
  if (raw === null || typeof raw !== 'object') return [];
  const model = parsed !== null && typeof parsed === 'object' && !(parsed instanceof Date) ? (parsed as Record<string, unknown>) : {};
  return Object.entries(raw).flatMap(([key, value]) => {
    const name = camel(key) in model ? camel(key) : key in model ? key : undefined;
    return name === undefined ? [`${path}/${key}`] : droppedKeys(value, model[name], `${path}/${key}`);
  });
}

/** An HTTP client that keeps the last JSON body, for `expectAllModelled`. */
export function recordingHttpClient(): { httpClient: HTTPClient; lastBody: () => unknown } {
  let last: unknown;
  const httpClient = new HTTPClient();
  httpClient.addHook('response', async (res) => {
    const text = await res.clone().text();
    last = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
  });
  return { httpClient, lastBody: () => last };
}

/** The keys of `raw` the client dropped, less those NOT_MODELLED lists for `operationId`, deduplicated. */
export function unexpectedlyDropped(operationId: string, raw: unknown, parsed: unknown): string[] {
  const known = NOT_MODELLED[operationId] ?? {};
  return [...new Set(droppedKeys(raw, parsed))].filter((path) => !(path in known));
}
