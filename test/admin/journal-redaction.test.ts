// Credentials the client sent somewhere other than Authorization never reach a journal reader: a
// bearer credential or a JWT is redacted by its value wherever it appears in a recorded request
// (any header, Cookie pieces, any query parameter's value or name, the path, JSON string fields
// and keys at any depth, form and other raw bodies, the kept prefix of a long body; percent-encoded
// or JSON-escaped too), and gone from memory as soon as the request is recorded: the stored entries
// (what GET /_sandbox/state exports and a shared sandbox sends to Redis) hold none. Plain values
// that merely look similar are kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOURNAL } from '../../src/journal/journal.js';
import { mayHoldToken, redactJwts, redactTokensInText } from '../../src/journal/tokens.js';
import { everyJournalView } from '../support/journal.js';
import { startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

let sb: TestSandbox;
/** A real JWT the sandbox accepts (ES512, the admin key), and one of another key in another place. */
let jwt: string;
let otherJwt: string;
/** A JWE in compact form: five parts, an empty encrypted key. */
const jwe = `${b64({ alg: 'dir', enc: 'A256GCM' })}..${'i'.repeat(16)}.${'c'.repeat(40)}.${'t'.repeat(22)}`;
/** Three base64url parts whose first does not decode to a JOSE header: not a JWT. */
const lookalike = `${b64({ kind: 'not a jose header' })}.${'p'.repeat(20)}.${'s'.repeat(20)}`;

beforeAll(async () => {
  sb = await startTestSandbox();
  jwt = sb.auth.slice('Bearer '.length);
  otherJwt = await tokenFor('read-only');
});
afterAll(() => sb.server.close());

async function lastEntry(ns: string) {
  const res = await sb.http.get('/_sandbox/requests?limit=1').set('x-sandbox-namespace', ns);
  expect(res.status).toBe(200);
  expect(res.body.items).toHaveLength(1);
  return res.body.items[0];
}

/** The entry as kept in memory (the journal's encoded bytes), before any reading redacts it. */
function keptBytes(ns: string): string {
  const journal = sb.deps.namespaces.get(ns).part(JOURNAL);
  const ring = (journal as unknown as { ring: { count: number; record(i: number): Buffer } }).ring;
  return ring.record(ring.count - 1).toString('utf8');
}

describe('bearer credentials and JWTs in headers', () => {
  it('redacts them in Cookie pieces, x-api-key and any other header, at record time, keeping plain values', async () => {
    const ns = 'redact-headers';
    await sb.http
      .get(`/ns/${ns}/card-scheme-definitions`)
      .set('authorization', sb.auth)
      .set('cookie', `session=plain-session-4010; jwt=${otherJwt}; auth=Bearer opaque-credential-123; theme=dark`)
      .set('x-api-key', otherJwt)
      .set('x-forwarded-authorization', 'Bearer zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme')
      .set('x-encrypted', jwe)
      .set('x-trace', `trace-id.${otherJwt}`)
      .set('x-plain', 'version.1.2 and payments.example.com')
      .set('x-lookalike', lookalike)
      .expect(200);
    const entry = await lastEntry(ns);
    expect(entry.headers).toMatchObject({
      authorization: '[redacted]',
      cookie: 'session=plain-session-4010; jwt=[redacted]; auth=[redacted]; theme=dark',
      'x-api-key': '[redacted]',
      'x-forwarded-authorization': '[redacted]',
      'x-encrypted': '[redacted]',
      'x-trace': 'trace-id.[redacted]',
      'x-plain': 'version.1.2 and payments.example.com',
      'x-lookalike': lookalike,
    });
    const kept = keptBytes(ns);
    for (const secret of [jwt, otherJwt, 'opaque-credential-123', 'zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme', jwe]) {
      expect(JSON.stringify(entry)).not.toContain(secret);
      expect(kept).not.toContain(secret); // gone from memory, not only from what is read
    }
    expect(kept).toContain('session=plain-session-4010');
  });
});

describe('bearer credentials and JWTs in the query', () => {
  it('redacts access_token and any other parameter holding one, keeping plain values', async () => {
    const ns = 'redact-query';
    const query = new URLSearchParams([
      ['access_token', otherJwt],
      ['q', 'plain value'],
      ['auth', 'Bearer abc123-opaque-token'],
      ['nested', `prefix ${jwe} suffix`],
      ['version', '1.2.3'],
      ['odd', lookalike],
      ['access_token', 'not-a-token'],
    ]);
    await sb.http.get(`/ns/${ns}/card-scheme-definitions?${query}`).set('authorization', sb.auth).expect(200);
    const entry = await lastEntry(ns);
    expect(entry.query).toEqual({
      access_token: ['[redacted]', 'not-a-token'],
      q: 'plain value',
      auth: '[redacted]',
      nested: 'prefix [redacted] suffix',
      version: '1.2.3',
      odd: lookalike,
    });
    expect(JSON.stringify(entry)).not.toContain(otherJwt);
    expect(JSON.stringify(entry)).not.toContain('abc123-opaque-token');
  });
});

describe('bearer credentials and JWTs in the body', () => {
  it('redacts JSON string fields at any depth, keeping the other fields and plain strings', async () => {
    const ns = 'redact-json';
    const body = {
      display_name: 'Plain Name',
      external_identifier: 'bearer of good news',
      account_number: '', // too short: refused (400), so nothing is stored and echoed back
      billing_details: { address: { line1: otherJwt, line2: 'Bearer opaque-token-987' } },
      extra: [{ deep: { deeper: ['kept', `token=${jwe}`, { last: jwt }] } }],
    };
    const res = await sb.http.put(`/ns/${ns}/buyers/${BUYER}`).set('authorization', sb.auth).send(body);
    const entry = await lastEntry(ns);
    expect(entry.body).toEqual({
      display_name: 'Plain Name',
      external_identifier: 'bearer of good news',
      account_number: '',
      billing_details: { address: { line1: '[redacted]', line2: '[redacted]' } },
      extra: [{ deep: { deeper: ['kept', 'token=[redacted]', { last: '[redacted]' }] } }],
    });
    expect(res.status).toBe(400);
    expect(entry.status).toBe(400);
    for (const secret of [otherJwt, jwt, jwe, 'opaque-token-987']) expect(JSON.stringify(entry)).not.toContain(secret);
  });

  it('redacts them in a form body and in a body that is not JSON', async () => {
    const ns = 'redact-form';
    const form = `grant=${otherJwt}&name=plain&auth=Bearer+abcdef123456&other=Bearer%20ghijkl789012`;
    await sb.http.put(`/ns/${ns}/buyers/${BUYER}`).set('authorization', sb.auth).set('content-type', 'application/x-www-form-urlencoded').send(form);
    expect((await lastEntry(ns)).body).toBe('grant=[redacted]&name=plain&auth=[redacted]&other=[redacted]');

    await sb.http.put(`/ns/${ns}/buyers/${BUYER}`).set('authorization', sb.auth).set('content-type', 'application/json').send(`{"broken": "${jwt}`);
    expect((await lastEntry(ns)).body).toBe('{"broken": "[redacted]');
  });

  it('redacts them in the kept prefix of a long body, a JWT cut by its end too', async () => {
    const ns = 'redact-long';
    const start = `{"first": "${otherJwt}", "pad": "`;
    const cutAt = 64 * 1024;
    // The cut falls 10 characters into the admin JWT's payload: its header and that much are kept.
    const kept = jwt.indexOf('.') + 1 + 10;
    const body = `${start}${'x'.repeat(cutAt - start.length - kept - 1)} ${jwt}", "more": "${'y'.repeat(1000)}"}`;
    await sb.http.put(`/ns/${ns}/buyers/${BUYER}`).set('authorization', sb.auth).set('content-type', 'application/json').send(body);
    const entry = await lastEntry(ns);
    expect(entry.body).toMatch(/^\{"first": "\[redacted\]", "pad": "x+ \[redacted\]\.\.\. \[truncated: \d+ characters\]$/);
    expect(entry.body).not.toContain(jwt.slice(0, 20));
    const shorter = otherJwt.length - '[redacted]'.length; // the first field's JWT, redacted
    expect(entry.body.length).toBe(cutAt - shorter - kept + '[redacted]'.length + `... [truncated: ${body.length} characters]`.length);
  });
});

describe('what the journal stores and exports', () => {
  it('holds no token in the query, URL, body or headers, GET /_sandbox/state included, and shows what it showed before', async () => {
    const ns = 'redact-stored';
    const query = `access_token=${otherJwt}&auth=Bearer%20opaque-query-777&limit=5`;
    await sb.http.get(`/ns/${ns}/card-scheme-definitions?${query}`).set('authorization', sb.auth).set('x-api-key', otherJwt).expect(200);
    const body = { display_name: 'Stored Name', external_identifier: jwe, billing_details: { address: { line1: 'Bearer opaque-body-555' } } };
    const put = await sb.http.put(`/ns/${ns}/buyers/${BUYER}`).set('authorization', sb.auth).send(body);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const form = `grant=${jwt}&name=plain`;
    await sb.http.put(`/ns/${ns}/buyers/${BUYER}`).set('authorization', sb.auth).set('content-type', 'application/x-www-form-urlencoded').send(form);
    // A long body: its kept prefix is cleaned as it is stored, a JWT cut by the prefix's end too.
    const long = `{"first": "${otherJwt}", "pad": "${'x'.repeat(64 * 1024)}"}`;
    await sb.http.put(`/ns/${ns}/buyers/${BUYER}`).set('authorization', sb.auth).set('content-type', 'application/json').send(long);
    const secrets = [jwt, otherJwt, jwe, 'opaque-query-777', 'opaque-body-555'];

    const state = await sb.http.get('/_sandbox/state').set('x-sandbox-namespace', ns).expect(200);
    const stored = state.body.parts.journal.entries;
    expect(stored).toHaveLength(4);
    // What the client sent, as stored: the answers keep what the sandbox answered (the PUT echoes the
    // buyer it stored, a token in its fields included), as they do when read.
    const sent = JSON.stringify(stored.map(({ responseText, ...request }: Record<string, unknown>) => request));
    for (const secret of secrets) expect(sent.includes(secret), secret).toBe(false);
    expect(stored[0].url).toMatch(/\/ns\/redact-stored\/card-scheme-definitions\?access_token=\[redacted\]&auth=\[redacted\]&limit=5$/);
    expect(stored[0].headerLines).toContain('x-api-key: [redacted]\n');
    expect(stored[0].headerLines).toContain('authorization: [redacted]\n');
    expect(JSON.parse(stored[1].requestText)).toEqual({ ...body, external_identifier: '[redacted]', billing_details: { address: { line1: '[redacted]' } } });
    expect(stored[2].requestText).toBe('grant=[redacted]&name=plain');
    expect(stored[3].requestText).toMatch(/^\{"first": "\[redacted\]", "pad": "x+$/);
    expect(stored[3].requestLength).toBe(long.length);
    // Every entry as kept in memory: the encoded bytes the state export and Redis are made from.
    const journal = sb.deps.namespaces.get(ns).part(JOURNAL);
    const kept = journal
      .recordsAfter(0)
      .map((record) => record.toString('utf8'))
      .join('\n');
    // The GET's token is in no answer: nowhere in what is kept.
    for (const secret of [otherJwt, 'opaque-query-777']) expect(kept.includes(secret), secret).toBe(false);

    // Reading shows what it showed when the journal cleaned only as it was read.
    const list = await sb.http.get('/_sandbox/requests').set('x-sandbox-namespace', ns).expect(200);
    const [longEntry, formEntry, jsonEntry, getEntry] = list.body.items;
    expect(getEntry.url).toBe(stored[0].url);
    expect(getEntry.query).toEqual({ access_token: '[redacted]', auth: '[redacted]', limit: '5' });
    expect(getEntry.headers['x-api-key']).toBe('[redacted]');
    expect(jsonEntry.body).toEqual({ ...body, external_identifier: '[redacted]', billing_details: { address: { line1: '[redacted]' } } });
    expect(formEntry.body).toBe('grant=[redacted]&name=plain');
    expect(longEntry.body).toMatch(new RegExp(`^\\{"first": "\\[redacted\\]", "pad": "x+\\.\\.\\. \\[truncated: ${long.length} characters\\]$`));
    const har = await sb.http.get('/_sandbox/requests?format=har').set('x-sandbox-namespace', ns).expect(200);
    const harEntries = JSON.parse(har.text).log.entries;
    expect(harEntries.map((e: { request: { url: string } }) => e.request.url)).toEqual([getEntry.url, jsonEntry.url, formEntry.url, longEntry.url]);
    expect(harEntries[0].request.queryString).toEqual([
      { name: 'access_token', value: '[redacted]' },
      { name: 'auth', value: '[redacted]' },
      { name: 'limit', value: '5' },
    ]);
    expect(JSON.parse(harEntries[1].request.postData.text)).toEqual(jsonEntry.body);
    expect(harEntries[2].request.postData.text).toBe('grant=[redacted]&name=plain');
    const shown =
      JSON.stringify(harEntries.map((e: { request: unknown }) => e.request)) +
      JSON.stringify(list.body.items.map(({ response_body, ...request }: Record<string, unknown>) => request));
    for (const secret of secrets) expect(shown.includes(secret), secret).toBe(false);
  });

  it('cleans an imported state whose entries hold tokens (exported before they were cleaned when stored)', async () => {
    const ns = 'redact-import';
    await sb.http.get(`/ns/${ns}/card-scheme-definitions`).set('authorization', sb.auth).expect(200);
    const state = (await sb.http.get('/_sandbox/state').set('x-sandbox-namespace', ns).expect(200)).body;
    const [entry] = state.parts.journal.entries;
    entry.url = `${entry.url}?access_token=${otherJwt}`;
    entry.requestText = JSON.stringify({ token: jwt, plain: 'kept' });
    entry.requestContentType = 'application/json';
    await sb.http.put('/_sandbox/state').set('x-sandbox-namespace', ns).send(state).expect(200);
    const again = (await sb.http.get('/_sandbox/state').set('x-sandbox-namespace', ns).expect(200)).body;
    const [kept] = again.parts.journal.entries;
    expect(kept.url).toMatch(/\?access_token=\[redacted\]$/);
    expect(JSON.parse(kept.requestText)).toEqual({ token: '[redacted]', plain: 'kept' });
    for (const secret of [jwt, otherJwt]) expect(JSON.stringify(again)).not.toContain(secret);
  });

  it('refuses an imported journal that is not one, keeping the entries it had', async () => {
    const ns = 'redact-import-bad';
    await sb.http.get(`/ns/${ns}/card-scheme-definitions?access_token=${otherJwt}`).set('authorization', sb.auth).expect(200);
    const state = (await sb.http.get('/_sandbox/state').set('x-sandbox-namespace', ns).expect(200)).body;
    const bad = structuredClone(state);
    bad.parts.journal.entries[0].url = 42;
    const res = await sb.http.put('/_sandbox/state').set('x-sandbox-namespace', ns).send(bad);
    expect(res.status).toBe(400);
    const after = (await sb.http.get('/_sandbox/state').set('x-sandbox-namespace', ns).expect(200)).body;
    expect(after.parts.journal).toEqual(state.parts.journal);
    expect(JSON.stringify(after)).not.toContain(otherJwt);
  });
});

/** Every form of the journal entry of one request `send` makes in a fresh namespace (test/support/journal.ts). */
const everyView = (ns: string, send: () => PromiseLike<unknown>) => everyJournalView(sb, ns, send);

/** No view holds any part of the token, whichever way it was written. */
function expectNoToken(views: Record<string, unknown>, token: string) {
  for (const [name, view] of Object.entries(views)) {
    const text = typeof view === 'string' ? view : JSON.stringify(view);
    for (const part of token.split('.')) expect(text.includes(part), `${name} holds ${part.slice(0, 12)}...`).toBe(false);
  }
}

describe('tokens in the path, in names, percent-encoded or JSON-escaped', () => {
  const pct = () => jwt.replaceAll('.', '%2E');
  const escaped = () => jwt.replaceAll('.', '\\u002e');
  beforeAll(async () => {
    await new Promise<void>((resolve) => sb.server.listen(0, '127.0.0.1', resolve));
  });

  it('redacts a JWT sent as a path segment (PUT /buyers/<JWT>, refused 400)', async () => {
    const views = await everyView('esc-path', () =>
      sb.http.put(`/ns/esc-path/buyers/${otherJwt}`).set('authorization', sb.auth).send({ display_name: 'x' }).expect(400),
    );
    expect(views.entry.path).toBe('/buyers/[redacted]');
    expect(views.entry.url).toMatch(/\/ns\/esc-path\/buyers\/\[redacted\]$/);
    expect(views.summary).toMatchObject({ path: '/buyers/[redacted]', url: views.entry.url, status: 400 });
    expect(views.har.request.url).toBe(views.entry.url);
    expect(views.state).toMatchObject({ path: '/buyers/[redacted]', url: views.entry.url });
    expect(views.stream).toMatchObject({ path: '/buyers/[redacted]', url: views.entry.url });
    expectNoToken(views, otherJwt);
  });

  it('redacts a JWT whose dots are %2E in a path segment (400)', async () => {
    const views = await everyView('esc-path-pct', () =>
      sb.http.get(`/ns/esc-path-pct/payment-methods/${pct()}/payment-service-tokens`).set('authorization', sb.auth).expect(400),
    );
    expect(views.entry.path).toBe('/payment-methods/[redacted]/payment-service-tokens');
    expect(views.entry.url).toMatch(/\/ns\/esc-path-pct\/payment-methods\/\[redacted\]\/payment-service-tokens$/);
    for (const view of [views.summary, views.state, views.stream]) expect(view).toMatchObject({ path: views.entry.path, url: views.entry.url });
    expect(views.har.request.url).toBe(views.entry.url);
    expectNoToken(views, jwt);
  });

  it("redacts a JWT sent as a query parameter's name, keeping the other parameters as sent", async () => {
    const views = await everyView('esc-query-key', () =>
      sb.http.get(`/ns/esc-query-key/gift-cards?${otherJwt}=1&limit=5&q=a%20b`).set('authorization', sb.auth).expect(200),
    );
    expect(views.entry.query).toEqual({ '[redacted]': '1', limit: '5', q: 'a b' });
    expect(views.entry.url).toMatch(/\/gift-cards\?\[redacted\]=1&limit=5&q=a\+b$/);
    expect(views.har.request.queryString).toEqual([
      { name: '[redacted]', value: '1' },
      { name: 'limit', value: '5' },
      { name: 'q', value: 'a b' },
    ]);
    for (const view of [views.summary, views.state, views.stream]) expect(view).toMatchObject({ url: views.entry.url });
    expectNoToken(views, otherJwt);
  });

  it('redacts a JWT sent as a JSON body key (200), keeping the other keys and their order', async () => {
    const views = await everyView('esc-body-key', () =>
      sb.http
        .put(`/ns/esc-body-key/buyers/${BUYER}`)
        .set('authorization', sb.auth)
        .set('content-type', 'application/json')
        .send(`{"display_name":"x","${otherJwt}":1,"[redacted]":2,"nested":{"${jwt}":{"__proto__":"kept"}}}`)
        .expect(200),
    );
    expect(Object.keys(views.entry.body)).toEqual(['display_name', '[redacted] 2', '[redacted]', 'nested']);
    expect(views.entry.body).toEqual({ display_name: 'x', '[redacted] 2': 1, '[redacted]': 2, nested: { '[redacted]': JSON.parse('{"__proto__":"kept"}') } });
    expect(JSON.parse(views.state.requestText)).toEqual(views.entry.body);
    expect(JSON.parse(views.har.request.postData.text)).toEqual(views.entry.body);
    expect(views.stream.body).toEqual(views.entry.body);
    expectNoToken(views, otherJwt);
    expectNoToken(views, jwt);
  });

  it('redacts a JWT whose dots are %2E in a form body, the rest of the form as sent (400)', async () => {
    const views = await everyView('esc-form', () =>
      sb.http
        .put(`/ns/esc-form/buyers/${BUYER}`)
        .set('authorization', sb.auth)
        .set('content-type', 'application/x-www-form-urlencoded')
        .send(`name=a%20b&token=${pct()}&file=report%2Etxt`)
        .expect(400),
    );
    expect(views.entry.body).toBe('name=a%20b&token=[redacted]&file=report.txt');
    expect(views.state.requestText).toBe(views.entry.body);
    expect(views.har.request.postData.text).toBe(views.entry.body);
    expect(views.stream.body).toBe(views.entry.body);
    expectNoToken(views, jwt);
  });

  it('redacts a JWT whose dots are %2E in a header value, keeping a plain escaped value', async () => {
    const views = await everyView('esc-header', () =>
      sb.http.get('/ns/esc-header/card-scheme-definitions').set('authorization', sb.auth).set('x-token', pct()).set('x-file', 'report%2Etxt').expect(200),
    );
    expect(views.entry.headers).toMatchObject({ 'x-token': '[redacted]', 'x-file': 'report%2Etxt' });
    expect(views.state.headerLines).toContain('x-token: [redacted]\n');
    expect(views.har.request.headers).toContainEqual({ name: 'x-token', value: '[redacted]' });
    expect(views.stream.headers).toEqual(views.entry.headers);
    expectNoToken(views, jwt);
  });

  it('redacts a JWT whose dots are \\u002e in JSON sent as text/plain, and in JSON sent as JSON (both 400)', async () => {
    const views = await everyView('esc-json-text', () =>
      sb.http
        .put(`/ns/esc-json-text/buyers/${BUYER}`)
        .set('authorization', sb.auth)
        .set('content-type', 'text/plain')
        .send(`{"display_name":"${escaped()}","path":"C:\\\\u002e\\\\x"}`)
        .expect(400),
    );
    // Where a token was found through escapes, the text is shown with them undone (issue 36: two levels too).
    expect(views.entry.body).toBe('{"display_name":"[redacted]","path":"C:.\\x"}');
    expect(views.state.requestText).toBe(views.entry.body);
    expect(views.har.request.postData.text).toBe(views.entry.body);
    expect(views.stream.body).toBe(views.entry.body);
    expectNoToken(views, jwt);

    const json = await everyView(
      'esc-json',
      () =>
        sb.http
          .put(`/ns/esc-json/buyers/${BUYER}`)
          .set('authorization', sb.auth)
          .set('content-type', 'application/json')
          .send(`{"display_name":"Plain","external_identifier":"${escaped()}"}`)
          .expect(400), // too long for an external identifier: recorded all the same
    );
    expect(json.entry.body).toEqual({ display_name: 'Plain', external_identifier: '[redacted]' });
    expect(JSON.parse(json.state.requestText)).toEqual(json.entry.body);
    expect(JSON.parse(json.har.request.postData.text)).toEqual(json.entry.body);
    expect(json.stream.body).toEqual(json.entry.body);
    expectNoToken(json, jwt);
  });
  it('redacts a JWT with \\u002e dots and another character escaped, or after a JSON \\n, in JSON sent as text/plain: no stored form holds any of it', async () => {
    // The last character before the signature's dot escaped as well: redacting the text as written
    // first took the token up to that character and left the rest readable in GET /_sandbox/state.
    const dot = jwt.lastIndexOf('.');
    const mixed = `${jwt.slice(0, dot - 1).replaceAll('.', '\\u002e')}\\u00${jwt.charCodeAt(dot - 1).toString(16)}\\u002e${jwt.slice(dot + 1)}`;
    const views = await everyView('esc-mixed', () =>
      sb.http
        .put(`/ns/esc-mixed/buyers/${BUYER}`)
        .set('authorization', sb.auth)
        .set('content-type', 'text/plain')
        .send(`{"display_name":"Bearer ${mixed}","notes":"x\\n${jwt}"}`)
        .expect(400),
    );
    expect(views.entry.body).toBe('{"display_name":"[redacted]","notes":"x\\n[redacted]"}');
    expect(views.state.requestText).toBe(views.entry.body);
    expect(views.har.request.postData.text).toBe(views.entry.body);
    expect(views.stream.body).toBe(views.entry.body);
    expectNoToken(views, jwt);
  });
});

describe('token detection', () => {
  it('sees a JWT written with escapes (%2E, \\u002e, any character escaped) and a bearer scheme with an escaped letter', () => {
    const [header, payload, signature] = jwt.split('.');
    expect(mayHoldToken(`${header}%2E${payload}%2e${signature}`)).toBe(true);
    expect(mayHoldToken(`${header}\\u002e${payload}\\u002E${signature}`)).toBe(true);
    expect(mayHoldToken(`${header}%2E%65${payload}%2E${signature}`)).toBe(true);
    expect(redactTokensInText(`a=%42earer%20abcdefgh12345&b=1`)).toBe('a=[redacted]&b=1');
    // An escaped backslash before u002e is a dot escaped twice (JSON in JSON): a token all the same (issue 36).
    expect(mayHoldToken(`${header}\\\\u002e${payload}\\\\u002e${signature}`)).toBe(true);
    expect(mayHoldToken(`${header}%252E${payload}%25252E${signature}`)).toBe(true);
    // Escapes that are not dots or base64url characters: nothing.
    expect(mayHoldToken(`${header}%2F${payload}%2F${signature}`)).toBe(false);
    expect(mayHoldToken('report%2Etxt and C:\\\\x and %zz and \\u00')).toBe(false);
    // Where only one pass of escapes finds it, the other escapes are kept.
    expect(redactTokensInText(`x=a%20b&t=${header}%2E${payload}%2E${signature}`)).toBe('x=a%20b&t=[redacted]');
  });

  it('finds a JWT after a longer base64url prefix, and leaves long runs alone quickly', () => {
    expect(redactJwts(`longprefix.${jwt}`)).toBe('longprefix.[redacted]');
    expect(redactJwts(`${jwt}.${otherJwt}`)).toBe('[redacted].[redacted]');
    expect(redactJwts(`${jwe}.${jwt}`)).toBe('[redacted].[redacted]');
    // Linear in a run with no dot (1 MB of base64url characters): quadratic would outlast the test's timeout by hours.
    const run = 'a'.repeat(1024 * 1024);
    expect(redactTokensInText(`${run}.b`, true)).toBe(`${run}.b`);
    expect(redactJwts(`${run}.b.c`)).toBe(`${run}.b.c`);
  });
});
