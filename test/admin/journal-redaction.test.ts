// Credentials the client sent somewhere other than Authorization never reach a journal reader: a
// bearer credential or a JWT is redacted by its value wherever it appears in a recorded request
// (any header, Cookie pieces, any query parameter, JSON string fields at any depth, form and other
// raw bodies, the kept prefix of a long body), and header secrets are gone from memory as soon as
// the request is recorded. Plain values that merely look similar are kept.
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
