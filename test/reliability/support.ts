// Shared pieces of the reliability tests: the operations read from openapi.json (so a new operation
// is fuzzed without touching the tests), a valid request per operation built from its schemas, a raw
// HTTP client that can send what supertest cannot (bytes, duplicate headers, any content type), and
// the contract checks every answer must pass.
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { SandboxDeps } from '../../src/sandbox.js';
import { WELL_KNOWN } from '../support/sandbox.js';

export const ROOT = join(import.meta.dirname, '../..');
export const SPEC = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(SPEC, 'openapi.json');
const errorSchema = ajv.compile({ $ref: 'openapi.json#/components/schemas/Error' });
const validationSchema = ajv.compile({ $ref: 'openapi.json#/components/schemas/ValidationError' });

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: any;
}

export interface OpSpec {
  id: string;
  method: string;
  path: string;
  params: Param[];
  /** The request body schema, $refs resolved one level at a time by `resolve`. */
  body: any | null;
  bodyRequired: boolean;
  declared: number[];
  requiresAuth: boolean;
}

export function resolve(schema: any): any {
  let s = schema;
  while (s && typeof s.$ref === 'string')
    s = s.$ref
      .slice(2)
      .split('/')
      .reduce((n: any, k: string) => n[k], SPEC);
  return s;
}

/** Every operation of openapi.json. */
export function operations(): OpSpec[] {
  const ops: OpSpec[] = [];
  for (const [path, item] of Object.entries<any>(SPEC.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
      const security = op.security ?? SPEC.security ?? [];
      ops.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        params,
        body: op.requestBody ? resolve(resolve(op.requestBody).content['application/json'].schema) : null,
        bodyRequired: Boolean(op.requestBody && resolve(op.requestBody).required),
        declared: Object.keys(op.responses).map(Number),
        requiresAuth: security.length > 0,
      });
    }
  }
  return ops;
}

/** Ids of records that exist, by parameter name: requests built from them reach the handlers. */
const KNOWN_IDS: Record<string, string> = {
  buyer_id: WELL_KNOWN.buyers.default.id,
  payment_method_id: WELL_KNOWN.paymentMethods.card.id,
  network_token_id: WELL_KNOWN.networkTokens.active.id,
  payment_service_id: WELL_KNOWN.paymentServices.stripe.id,
  transaction_id: WELL_KNOWN.transactions.default.id,
  checkout_session_id: WELL_KNOWN.checkoutSessions.default.id,
  report_execution_id: '00000000-0000-4000-8000-000000000000',
  config_id: '00000000-0000-4000-8000-000000000000',
  role_ids: WELL_KNOWN.roles.readOnly.id,
};

/** A value that satisfies the schema (the first enum value, a uuid of a real record, ...). */
export function validValue(schema: any, name = ''): unknown {
  const s = resolve(schema) ?? {};
  if (s.oneOf) return validValue(s.oneOf.find((b: any) => resolve(b).type !== 'null') ?? s.oneOf[0], name);
  if (s.enum) return s.enum[0];
  if ('const' in s) return s.const;
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      if (s.format === 'uuid') return KNOWN_IDS[name] ?? '00000000-0000-4000-8000-000000000001';
      if (s.pattern === '^[A-Z]{2}$') return 'US';
      if (s.pattern === '^[A-Z]{3}$') return 'USD';
      if (name === 'origin_domain') return 'shop.example.com';
      if (name === 'schedule_timezone') return 'Europe/Amsterdam';
      return `valid ${name || 'text'}`.slice(0, s.maxLength ?? 100);
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [validValue(s.items ?? {}, name)];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries<any>(s.properties ?? {})) out[key] = validValue(sub, key);
      return out;
    }
    default:
      return 'value';
  }
}

export interface BuiltRequest {
  method: string;
  /** Path with the parameters filled in (percent-encoded) and the query string. */
  path: string;
  headers: OutgoingHttpHeaders;
  /** Raw body text, or null for none. */
  body: string | Buffer | null;
}

export function fillPath(op: OpSpec, values: Record<string, string>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name) =>
    encodeURIComponent(values[name] ?? String(validValue(op.params.find((p) => p.name === name)?.schema, name))),
  );
}

/** A request every part of which is valid (it may still be a 404 or a 422 by meaning). */
export function validRequest(op: OpSpec, auth: string): BuiltRequest {
  const query = new URLSearchParams();
  for (const p of op.params.filter((p) => p.in === 'query' && p.required)) query.set(p.name, String(validValue(p.schema, p.name)));
  const qs = query.toString();
  return {
    method: op.method,
    path: fillPath(op, {}) + (qs ? `?${qs}` : ''),
    headers: { authorization: auth, ...(op.body ? { 'content-type': 'application/json' } : {}) },
    body: op.body ? JSON.stringify(validValue(op.body)) : null,
  };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** Sends exactly what it is given (header arrays become repeated headers). */
export function send(base: string, req: BuiltRequest): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolvePromise, reject) => {
    const r = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: url.pathname.replace(/\/$/, '') + req.path,
        agent,
        headers: Object.fromEntries(Object.entries(req.headers).filter(([, v]) => v !== undefined)),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    r.on('error', reject);
    if (req.body !== null) r.end(req.body);
    else r.end();
  });
}

/** Listens on a free loopback port and returns the base URL. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Problems of an error answer against openapi.json's error schemas (empty: it keeps the contract). */
export function errorBodyProblems(res: RawResponse): string[] {
  const problems: string[] = [];
  if (!/^application\/json/.test(String(res.headers['content-type']))) problems.push(`content-type ${res.headers['content-type']}`);
  const validate = res.status === 422 ? validationSchema : errorSchema;
  if (!validate(res.json))
    problems.push(
      `body ${res.text.slice(0, 300)} breaks ${res.status === 422 ? 'ValidationError' : 'Error'}: ${JSON.stringify(validate.errors).slice(0, 300)}`,
    );
  if (res.status !== 422 && res.json?.status !== res.status) problems.push(`body status ${res.json?.status} != ${res.status}`);
  if (res.status !== 422 && !res.json?.message) problems.push('empty message');
  return problems;
}

/**
 * State of the default namespace as text, without what every authenticated request legitimately
 * moves (the key pair's last_used_at).
 */
export function stateOf(deps: SandboxDeps, namespace?: string): string {
  const data = deps.namespaces.get(namespace).store.data;
  return JSON.stringify(data, function hideKeyPairUse(this: any, key, value) {
    return key === 'last_used_at' && this?.type === 'api-key-pair' ? '(moves)' : value;
  });
}

/** True when nothing reachable from a fresh object was polluted by a request. */
export function prototypesClean(): boolean {
  const probe: any = {};
  const arr: any = [];
  return (
    probe.polluted === undefined &&
    probe.isAdmin === undefined &&
    arr.polluted === undefined &&
    (Object.prototype as any).polluted === undefined &&
    Object.keys(Object.prototype).length === 0 &&
    (Function.prototype as any).polluted === undefined &&
    typeof ({} as any).toString === 'function'
  );
}
