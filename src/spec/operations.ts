// Indexes the operations of an OpenAPI document and compiles their validators, once, at boot.
import type { ValidateFunction } from 'ajv';
import type { OpenAPIV3_1 } from 'openapi-types';
import { ApiError, type ErrorDetail, type ErrorLocation } from '../errors/api-error.js';
import { SchemaCompiler, toErrorDetails } from './schema-compiler.js';
import { canonicalizeAt, type FieldPath, type RefResolver, uuidPaths } from './uuid-fields.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
type ParamLocation = 'path' | 'query' | 'header';

export interface Operation {
  id: string;
  method: string; // upper case
  path: string; // template, e.g. /buyers/{buyer_id}
  /** Every method its document serves on this path, upper case (the Allow header of a 405). */
  methodsOnPath: string[];
  segments: string[]; // path split on '/', '{name}' for parameters
  /** Alternative scopes: any one of them grants the operation. Empty with `requiresAuth` false: public. */
  scopes: string[];
  requiresAuth: boolean;
  successStatus: number;
  successHasBody: boolean;
  /**
   * The success answer's schema has a `private_key` (a generated key pair): the journal redacts such
   * answers before keeping them, and need not search any other answer's text for one.
   */
  answerMayHoldPrivateKey: boolean;
  declaredStatuses: number[];
  hasBody: boolean;
  bodyRequired: boolean;
  /** The body may also be sent as YAML (content type application/yaml): scenario definitions of the control API. */
  acceptsYaml: boolean;
  /** Lower-case names of the declared header parameters: all that header validation needs to see. */
  headerParams: string[];
  validators: Partial<Record<ParamLocation | 'body', ValidateFunction>>;
  /**
   * Where the request's parts declare uuids (format uuid: parameters, body fields, items of uuid
   * arrays), brought to lower case after validation; null when the operation takes none.
   */
  uuidFields: Partial<Record<ParamLocation | 'body', FieldPath[]>> | null;
  /** Validators of each declared response body, by status (used by --validate-responses), compiled on first use. */
  responseValidators: Pick<Map<number, ValidateFunction>, 'get'>;
}

export interface SpecIndex {
  doc: OpenAPIV3_1.Document;
  compiler: SchemaCompiler;
  operations: Operation[];
  byId: Map<string, Operation>;
  /** Looks up a $ref of this document, or of a document it refers to. */
  resolve: RefResolver;
}

/** `references`: other documents whose schemas this one points at (openapi.admin.json uses openapi.json's). */
/**
 * `lazy`: compile each operation's request validators when it is first called instead of at boot
 * (the control API: tests call a few of its routes, and its record schemas are many).
 */
export function indexSpec(doc: OpenAPIV3_1.Document, docId: string, references: SpecIndex[] = [], { lazy = false } = {}): SpecIndex {
  const compiler = new SchemaCompiler(
    docId,
    doc,
    references.map((r) => ({ id: r.compiler.docId, doc: r.doc })),
  );
  const documents = new Map<string, object>([[docId, doc], ...references.map((r) => [r.compiler.docId, r.doc] as [string, object])]);
  const resolve: RefResolver = (ref, base) => {
    const hash = ref.indexOf('#');
    const name = hash <= 0 ? base : ref.slice(0, hash);
    const target = documents.get(name);
    return { schema: target ? pointerTarget(target, ref.slice(Math.max(0, hash))) : undefined, base: name };
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const methodsOnPath = METHODS.filter((m) => (item as Record<string, unknown>)?.[m]).map((m) => m.toUpperCase());
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)?.[method] as OpenAPIV3_1.OperationObject | undefined;
      if (!op) continue;
      if (!op.operationId) throw new Error(`${docId}: ${method.toUpperCase()} ${path} has no operationId`);
      const params = [...((item as OpenAPIV3_1.PathItemObject).parameters ?? []), ...(op.parameters ?? [])].map((p) =>
        deref<OpenAPIV3_1.ParameterObject>(doc, p),
      );
      operations.push({ ...buildOperation(compiler, doc, method, path, op, params, lazy, resolve), methodsOnPath });
    }
  }
  return { doc, compiler, operations, byId: new Map(operations.map((o) => [o.id, o])), resolve };
}

function buildOperation(
  compiler: SchemaCompiler,
  doc: OpenAPIV3_1.Document,
  method: string,
  path: string,
  op: OpenAPIV3_1.OperationObject,
  params: OpenAPIV3_1.ParameterObject[],
  lazy: boolean,
  resolve: RefResolver,
): Omit<Operation, 'methodsOnPath'> {
  const security = op.security ?? doc.security ?? [];
  const scopes = [...new Set(security.flatMap((req) => Object.values(req).flat()))];
  const statuses = Object.keys(op.responses ?? {})
    .map(Number)
    .filter(Number.isInteger);
  const successStatus = statuses.filter((s) => s >= 200 && s < 300).sort()[0] ?? 200;
  const success = deref<OpenAPIV3_1.ResponseObject>(doc, op.responses?.[String(successStatus)]);
  const body = op.requestBody ? deref<OpenAPIV3_1.RequestBodyObject>(doc, op.requestBody) : undefined;

  const validators: Operation['validators'] = {};
  const define = (location: ParamLocation | 'body', make: () => ValidateFunction) => {
    if (!lazy) validators[location] = make();
    else {
      let compiled: ValidateFunction | undefined;
      Object.defineProperty(validators, location, { enumerable: true, get: () => (compiled ??= make()) });
    }
  };
  const uuidFields: NonNullable<Operation['uuidFields']> = {};
  for (const location of ['path', 'query', 'header'] as const) {
    const inLocation = params.filter((p) => p.in === location);
    if (!inLocation.length) continue;
    const schema = {
      type: 'object',
      properties: Object.fromEntries(inLocation.map((p) => [paramKey(p), p.schema ?? {}])),
      required: inLocation.filter((p) => p.required).map(paramKey),
    };
    define(location, () => compiler.compile(schema, { coerce: true }));
    const uuids = uuidPaths(schema, compiler.docId, resolve);
    if (uuids.length) uuidFields[location] = uuids;
  }
  const bodySchema = body?.content?.['application/json']?.schema;
  if (bodySchema) {
    define('body', () => compiler.compile(bodySchema));
    const uuids = uuidPaths(bodySchema, compiler.docId, resolve).filter((path) => path.length > 0);
    if (uuids.length) uuidFields.body = uuids;
  }

  // Response validators serve only the self-check mode: compiled when first needed, so a plain
  // start does not pay for them.
  const compiledResponses = new Map<number, ValidateFunction | undefined>();
  const responseValidators = {
    get(status: number): ValidateFunction | undefined {
      if (!compiledResponses.has(status)) {
        const schema = deref<OpenAPIV3_1.ResponseObject>(doc, op.responses?.[String(status)])?.content?.['application/json']?.schema;
        compiledResponses.set(status, schema ? compiler.compile(schema) : undefined);
      }
      return compiledResponses.get(status);
    },
  };

  return {
    id: op.operationId as string,
    method: method.toUpperCase(),
    path,
    segments: path.split('/').slice(1),
    scopes,
    requiresAuth: security.length > 0,
    successStatus,
    successHasBody: Boolean(success?.content),
    answerMayHoldPrivateKey: hasProperty(doc, success?.content?.['application/json']?.schema, 'private_key'),
    declaredStatuses: statuses.sort((a, b) => a - b),
    hasBody: Boolean(bodySchema),
    bodyRequired: Boolean(body?.required),
    acceptsYaml: Boolean(body?.content?.['application/yaml']),
    headerParams: params.filter((p) => p.in === 'header').map(paramKey),
    validators,
    uuidFields: Object.keys(uuidFields).length ? uuidFields : null,
    responseValidators,
  };
}

/** A parameter's name as requests are read: header names are case-insensitive and arrive lower-cased. */
function paramKey(p: OpenAPIV3_1.ParameterObject): string {
  return p.in === 'header' ? p.name.toLowerCase() : p.name;
}

/** Follows a local `$ref` (components/parameters, responses, requestBodies), and the refs it lands on. */
function deref<T>(doc: object, value: unknown): T {
  let current = value as { $ref?: string } | undefined;
  for (let i = 0; current && typeof current.$ref === 'string' && i < 10; i++) current = pointerTarget(doc, current.$ref);
  return current as T;
}

/** What a local JSON pointer (`#/components/schemas/X`) points at in `doc`, without following a $ref found there. */
function pointerTarget(doc: object, pointer: string): any {
  return pointer
    .slice(2)
    .split('/')
    .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Whether `name` is a property anywhere in the schema, following local $refs (each once). */
function hasProperty(doc: object, schema: unknown, name: string): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [schema];
  while (pending.length) {
    let node = pending.pop() as Record<string, unknown> | null;
    if (node && typeof node.$ref === 'string') node = deref(doc, node);
    if (!node || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const properties = node.properties as Record<string, unknown> | undefined;
    if (properties && Object.hasOwn(properties, name)) return true;
    for (const child of Object.values(node)) if (child && typeof child === 'object') pending.push(child);
  }
  return false;
}

export interface RequestParts {
  path: Record<string, string>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body: unknown;
}

/**
 * Validates every part of a request against the operation, collecting one detail per problem across
 * all parts before failing, so a caller fixes everything in one round trip. Coerces and fills
 * defaults in place, and brings declared uuids to lower case (uuid-fields.ts).
 */
export function validateRequest(op: Operation, parts: RequestParts): void {
  const details: ErrorDetail[] = [];
  for (const location of ['path', 'query', 'header'] as const) {
    const validate = op.validators[location];
    if (validate && !validate(parts[location])) details.push(...toErrorDetails(location, validate.errors));
  }
  if (op.validators.body && parts.body !== undefined) {
    if (!op.validators.body(parts.body)) details.push(...toErrorDetails('body', op.validators.body.errors));
  }
  if (details.length) throw ApiError.badRequest(summarize(details), details);
  const uuids = op.uuidFields;
  if (uuids === null) return;
  if (uuids.path) canonicalizeAt(parts.path, uuids.path);
  if (uuids.query) canonicalizeAt(parts.query, uuids.query);
  if (uuids.header) canonicalizeAt(parts.header, uuids.header);
  if (uuids.body) canonicalizeAt(parts.body, uuids.body);
}

export function summarize(details: ErrorDetail[]): string {
  const first = details[0].message;
  return details.length === 1 ? `Request is invalid: ${first}` : `Request is invalid (${details.length} problems): ${first} ...`;
}

export type { ErrorLocation };
