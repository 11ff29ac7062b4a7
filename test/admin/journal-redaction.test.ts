// Credentials the client sent somewhere other than Authorization never reach a journal reader: a
// bearer credential or a JWT is redacted by its value wherever it appears in a recorded request
// (any header, Cookie pieces, any query parameter, JSON string fields at any depth, form and other
// raw bodies, the kept prefix of a long body), and gone from memory as soon as the request is
// recorded: the stored entries (what GET /_sandbox/state exports and a shared sandbox sends to
// Redis) hold none. Plain values that merely look similar are kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOURNAL } from '../../src/journal/journal.js';
import { redactJwts, redactTokensInText } from '../../src/journal/tokens.js';
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

describe('token detection', () => {
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
