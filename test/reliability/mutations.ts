// fast-check arbitraries that break a valid request of an operation in one way: a body field
// missing, extra, of the wrong type, at a boundary length, full of control characters or nested
// deep; a body that is not JSON or not sent as JSON; a bad path id, query value or cursor; a
// duplicate, oversized or malformed header. Each is a named function of the valid request.
import fc from 'fast-check';
import { type BuiltRequest, fillPath, type OpSpec, resolve, validValue } from './support.js';

export interface Mutation {
  kind: string;
  apply(req: BuiltRequest): BuiltRequest;
}

/** Every (pointer, schema) of the body's object properties, nested ones included. */
export function bodyFields(schema: any, prefix: string[] = [], depth = 0): Array<{ path: string[]; schema: any; required: boolean }> {
  const s = resolve(schema);
  const obj = s?.oneOf ? resolve(s.oneOf.find((b: any) => resolve(b).type === 'object')) : s;
  if (!obj || depth > 3) return [];
  const out: Array<{ path: string[]; schema: any; required: boolean }> = [];
  for (const [key, sub] of Object.entries<any>(obj.properties ?? {})) {
    out.push({ path: [...prefix, key], schema: sub, required: (obj.required ?? []).includes(key) });
    out.push(...bodyFields(sub, [...prefix, key], depth + 1));
  }
  return out;
}

const MARK = '\u0000__replace__\u0000';
const PLACEHOLDER = JSON.stringify(MARK);

/** The valid body with the value at `path` replaced by raw JSON text (so huge or deep values need no recursion). */
function withRawValue(body: unknown, path: string[], rawJson: string | undefined): string {
  const copy = structuredClone(body) as any;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== 'object') node[key] = {};
    node = node[key];
  }
  const last = path[path.length - 1];
  if (rawJson === undefined) delete node[last];
  // defineProperty: a key named __proto__ becomes an own key, as JSON.parse makes it on the server.
  else Object.defineProperty(node, last, { value: MARK, enumerable: true, writable: true, configurable: true });
  const text = JSON.stringify(copy);
  return rawJson === undefined ? text : text.replace(PLACEHOLDER, () => rawJson);
}

const wrongTypeValue = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

const nastyChar = fc.constantFrom('a', 'é', '😀', '\u0000', '\n', '\r', '\t', '\u202e', '\ufeff', '\ud800', '"', '\\', '<', '%', '\u0085', '\u2028');

/** Strings at and around the reference's limits (0, 1, 200, 201, ...) and one huge. */
const boundaryString = fc
  .tuple(fc.constantFrom(0, 1, 2, 99, 100, 101, 199, 200, 201, 253, 254, 255, 256, 999, 1000, 1001, 200_000), nastyChar)
  .map(([length, ch]) => ch.repeat(length));

const unicodeString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.array(nastyChar, { maxLength: 30 }).map((a) => a.join('')),
);

const pollutionKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'toString', 'hasOwnProperty', 'valueOf'),
  fc.string({ maxLength: 12 }),
);
/** Raw JSON text: a literal {"__proto__": ...} must reach the server as written. */
const pollutionValue = fc.oneof(
  fc.constantFrom('{"polluted":true}', '{"prototype":{"polluted":true}}', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}'),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null'),
);

/** `[` x n then `]` x n, or objects: nested deeper than anything the API takes. */
const deepJson = fc
  .tuple(fc.constantFrom(10, 63, 64, 65, 100, 1_000, 50_000), fc.boolean())
  .map(([depth, arrays]) => (arrays ? '['.repeat(depth) + ']'.repeat(depth) : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

const wholeBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    '[]',
    '{}',
    '"text"',
    '1e999',
    '{"a":',
    '{"a":1,}',
    "{'a':1}",
    '{"a":1}{"b":2}',
    'NaN',
    '\ufeff{}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
  ),
);

const contentType = fc.constantFrom(
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/vnd.api+json',
  'APPLICATION/JSON',
  'application/json;;;',
  '*/*',
  'text/json',
);

/** What a bad id in a path looks like: not a uuid, almost a uuid, traversal, encoded junk, very long. */
const badId = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '..',
    '../..',
    '../../package.json',
    '%2e%2e',
    'null',
    'undefined',
    '0',
    '-1',
    '__proto__',
    'constructor',
    'B0000000-0000-4000-8000-000000000001',
    'b0000000000040008000000000000001',
    '{b0000000-0000-4000-8000-000000000001}',
    'b0000000-0000-4000-8000-00000000000',
    'b0000000-0000-4000-8000-0000000000011',
    '00000000-0000-0000-0000-000000000000',
    'x'.repeat(5_000),
    ' b0000000-0000-4000-8000-000000000001',
    'b0000000-0000-4000-8000-000000000001\n',
  ),
);

/** Percent sequences that do not decode, put into the path as they are. */
const rawPathJunk = fc.constantFrom('%', '%E0%A4%A', '%zz', '%00', '%2F', '%5C..%5C', '%C0%AF', ';a=b', '%20');

const badQueryValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('', '0', '-1', '101', '1.5', '1e3', '9999999999999999999', 'NaN', 'true', '[]', '{}', 'x'.repeat(1001)),
  fc.integer().map(String),
);

const badCursor = fc.oneof(
  fc.base64String({ maxLength: 60 }),
  fc.string({ maxLength: 40 }),
  fc.tuple(fc.base64String({ maxLength: 40 }), fc.base64String({ maxLength: 30 })).map(([a, b]) => `${a}.${b}`),
  fc.constantFrom(
    '.',
    'a.',
    '.b',
    'a.b.c',
    'WyJuIl0.xxxxxxxxxxxxxxxxxxxxxx',
    `${Buffer.from('["n","x","y","default"]').toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`,
    'x'.repeat(1000),
  ),
);

/** Header values Node's client can send: visible latin-1, spaces and tabs. */
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\t\x20-\x7e]/g, '').trim()),
  fc.constantFrom('', ' ', 'default', 'merchant-two', 'unknown', 'x'.repeat(300), '\u00e9\u00ff', '../../etc/passwd'),
);

function setQuery(path: string, name: string, values: string[]): string {
  const [base, qs = ''] = path.split('?');
  const query = new URLSearchParams(qs);
  query.delete(name);
  for (const v of values) query.append(name, v);
  const text = query.toString();
  return text ? `${base}?${text}` : base;
}

const mutation = (kind: string, apply: (req: BuiltRequest) => BuiltRequest): Mutation => ({ kind, apply });

/** One way to break a valid request of `op`. */
export function mutationOf(op: OpSpec, scenarioNames: string[] = []): fc.Arbitrary<Mutation> {
  const options: Array<fc.Arbitrary<Mutation>> = [];
  const validBody = op.body ? validValue(op.body) : undefined;
  const fields = op.body ? bodyFields(op.body) : [];
  const withBody = (req: BuiltRequest, body: string | Buffer): BuiltRequest => ({ ...req, body });

  if (op.body) {
    const required = fields.filter((f) => f.required);
    if (required.length)
      options.push(
        fc.constantFrom(...required).map((f) => mutation(`missing ${f.path.join('.')}`, (r) => withBody(r, withRawValue(validBody, f.path, undefined)))),
      );
    if (fields.length) {
      const field = fc.constantFrom(...fields);
      options.push(
        fc
          .tuple(field, wrongTypeValue)
          .map(([f, v]) => mutation(`wrong type ${f.path.join('.')}`, (r) => withBody(r, withRawValue(validBody, f.path, JSON.stringify(v))))),
      );
      options.push(
        fc
          .tuple(field, boundaryString)
          .map(([f, v]) => mutation(`boundary ${f.path.join('.')} (${v.length})`, (r) => withBody(r, withRawValue(validBody, f.path, JSON.stringify(v))))),
      );
      options.push(
        fc
          .tuple(field, unicodeString)
          .map(([f, v]) => mutation(`unicode ${f.path.join('.')}`, (r) => withBody(r, withRawValue(validBody, f.path, JSON.stringify(v))))),
      );
      options.push(fc.tuple(field, deepJson).map(([f, v]) => mutation(`deep ${f.path.join('.')}`, (r) => withBody(r, withRawValue(validBody, f.path, v)))));
    }
    options.push(
      fc
        .tuple(fc.option(fc.constantFrom(...fields.map((f) => f.path.slice(0, -1))), { nil: undefined }), pollutionKey, pollutionValue)
        .map(([at, key, value]) =>
          mutation(`extra ${[...(at ?? []), key].join('.')}`, (r) => withBody(r, withRawValue(validBody, [...(at ?? []), key], value))),
        ),
    );
    options.push(wholeBody.map((text) => mutation(`body ${JSON.stringify(text.slice(0, 40))}`, (r) => withBody(r, text))));
    options.push(
      fc.constant(mutation('invalid utf-8 body', (r) => withBody(r, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d])))),
    );
    options.push(fc.constant(mutation('truncated body', (r) => withBody(r, String(r.body).slice(0, Math.max(1, String(r.body).length - 2))))));
    options.push(contentType.map((ct) => mutation(`content-type ${ct}`, (r) => ({ ...r, headers: { ...r.headers, 'content-type': ct } }))));
    options.push(fc.constant(mutation('no content-type', (r) => ({ ...r, headers: { ...r.headers, 'content-type': undefined } }))));
  }

  const pathParams = op.params.filter((p) => p.in === 'path');
  if (pathParams.length) {
    options.push(
      fc
        .tuple(fc.constantFrom(...pathParams), badId)
        .map(([p, id]) =>
          mutation(`path ${p.name}=${JSON.stringify(id.slice(0, 40))}`, (r) => ({ ...r, path: fillPath(op, { [p.name]: id }) + queryPart(r.path) })),
        ),
    );
    options.push(
      fc.tuple(fc.constantFrom(...pathParams), rawPathJunk).map(([p, junk]) =>
        mutation(`raw path ${p.name}=${junk}`, (r) => ({
          ...r,
          path:
            op.path.replace(/\{([^}]+)\}/g, (_, n) =>
              n === p.name ? junk : encodeURIComponent(String(validValue(op.params.find((q) => q.name === n)?.schema, n))),
            ) + queryPart(r.path),
        })),
      ),
    );
  }
  const queryParams = op.params.filter((p) => p.in === 'query');
  if (queryParams.length) {
    options.push(
      fc
        .tuple(fc.constantFrom(...queryParams), fc.array(badQueryValue, { minLength: 1, maxLength: 3 }))
        .map(([p, values]) => mutation(`query ${p.name}=${JSON.stringify(values).slice(0, 60)}`, (r) => ({ ...r, path: setQuery(r.path, p.name, values) }))),
    );
  }
  if (queryParams.some((p) => p.name === 'cursor')) {
    options.push(badCursor.map((cursor) => mutation(`cursor ${cursor.slice(0, 40)}`, (r) => ({ ...r, path: setQuery(r.path, 'cursor', [cursor]) }))));
  }

  // Headers every operation takes.
  options.push(
    fc.tuple(headerValue, fc.boolean()).map(([v, twice]) =>
      mutation(`merchant header ${JSON.stringify(v.slice(0, 30))}${twice ? ' twice' : ''}`, (r) => ({
        ...r,
        headers: { ...r.headers, 'x-service-merchant-account-id': twice ? [v, 'merchant-two'] : v },
      })),
    ),
  );
  const scenarioHeader = scenarioNames.length
    ? fc.oneof(
        headerValue,
        fc.constantFrom(...scenarioNames),
        fc.constantFrom(...scenarioNames).map((n) => `${n}, nope`),
      )
    : headerValue;
  options.push(
    scenarioHeader.map((v) =>
      mutation(`scenario header ${JSON.stringify(v.slice(0, 30))}`, (r) => ({ ...r, headers: { ...r.headers, 'x-sandbox-scenario': v } })),
    ),
  );
  options.push(
    fc
      .oneof(headerValue, fc.constantFrom('../x', '..', 'a/b', '%2e%2e', '-x', 'x'.repeat(65)))
      .map((v) => mutation(`namespace header ${JSON.stringify(v.slice(0, 30))}`, (r) => ({ ...r, headers: { ...r.headers, 'x-sandbox-namespace': v } }))),
  );
  options.push(
    fc
      .constantFrom(
        'code=999',
        'code=abc',
        'code=',
        'code=200',
        'code=302',
        'code=418',
        'code=429',
        'code=404',
        'code=4294967296',
        'return=minimal',
        'code=429, code=abc',
      )
      .map((v) => mutation(`prefer ${v}`, (r) => ({ ...r, headers: { ...r.headers, prefer: v } }))),
  );
  options.push(
    headerValue.map((v) => mutation(`request id ${JSON.stringify(v.slice(0, 30))}`, (r) => ({ ...r, headers: { ...r.headers, 'x-request-id': v } }))),
  );
  options.push(
    fc.constant(
      mutation('authorization twice', (r) => ({
        ...r,
        headers: { ...r.headers, authorization: [String(r.headers.authorization), 'Bearer x.y.z'] as unknown as string },
      })),
    ),
  ); // sent as two header lines
  options.push(fc.constant(mutation('content-type twice', (r) => ({ ...r, headers: { ...r.headers, 'content-type': ['application/json', 'text/plain'] } }))));
  options.push(
    fc
      .constantFrom(8_000, 15_000, 17_000, 64_000)
      .map((size) => mutation(`header of ${size} bytes`, (r) => ({ ...r, headers: { ...r.headers, 'x-padding': 'p'.repeat(size) } }))),
  );
  options.push(
    fc
      .constantFrom('', 'Bearer', 'Bearer ', 'Basic abc', 'bearer x.y.z', 'Bearer a b', 'x'.repeat(5000))
      .map((v) => mutation(`authorization ${JSON.stringify(v.slice(0, 20))}`, (r) => ({ ...r, headers: { ...r.headers, authorization: v } }))),
  );
  return fc.oneof(...options);
}

function queryPart(path: string): string {
  const at = path.indexOf('?');
  return at < 0 ? '' : path.slice(at);
}
