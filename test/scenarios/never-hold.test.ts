// Definitions whose parts could never act, or would act in two ways at once, are refused with a
// pointer and a message naming what to change: two Retry-After values, path patterns holding a
// query or a percent-escape, a header named twice, query/header conditions equal to no text, keys
// that are not JSON pointers or header names. What works keeps working.
import { describe, expect, it } from 'vitest';
import { expectErrorBody, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { activate, define } from './helpers.js';

const BUYER = WELL_KNOWN.buyers.default.id;

describe('scenario definitions that could never act as written', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started), { resetBeforeEach: true });
  const putBuyer = (query = '', headers: Record<string, string> = {}) => {
    const req = sb.http.put(`/buyers/${BUYER}${query}`).set('authorization', sb.auth);
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send({ display_name: 'x' });
  };
  /** POSTs the definition, expects 400 with exactly these problems, and that nothing was defined. */
  const refused = async (definition: Record<string, unknown>, problems: Array<[pointer: string, message: string]>) => {
    const res = await sb.http.post('/_sandbox/scenarios').send({ name: 'refused', description: 'x', ...definition });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.details).toEqual(problems.map(([pointer, message]) => ({ location: 'body', pointer, type: 'scenario_invalid', message })));
    expect(res.body.message).toBe(`The scenario cannot be defined: ${problems.map(([p, m]) => `${p || '/'}: ${m}`).join('; ')}.`);
    expect((await sb.http.get('/_sandbox/scenarios/refused')).status).toBe(404);
  };

  it('refuses two Retry-After values in one step (retry_after, respond.headers, headers, any case)', async () => {
    await refused({ operations: ['updateBuyer'], respond: { status: 503, retry_after: 3, headers: { 'Retry-After': '9' } } }, [
      ['', 'the answer would carry 2 Retry-After values (respond.retry_after, respond.headers.Retry-After): give one of them (retry_after takes seconds)'],
    ]);
    await refused({ operations: ['updateBuyer'], steps: [{ pass: true }, { respond: { status: 429, retry_after: 2 }, headers: { 'RETRY-AFTER': '7' } }] }, [
      ['/steps/1', 'the answer would carry 2 Retry-After values (respond.retry_after, headers.RETRY-AFTER): give one of them (retry_after takes seconds)'],
    ]);
    await refused({ operations: ['updateBuyer'], respond: { status: 429, headers: { 'retry-after': '5' } }, headers: { 'Retry-After': '6' } }, [
      ['', 'the answer would carry 2 Retry-After values (respond.headers.retry-after, headers.Retry-After): give one of them (retry_after takes seconds)'],
    ]);
  });

  it("sends a step's own Retry-After as it is: a 429 gets no default of 1 beside it", async () => {
    await define(sb, { name: 'own-retry', description: 'x', operations: ['updateBuyer'], respond: { status: 429 }, headers: { 'retry-after': '7' } });
    await define(sb, { name: 'own-retry-cased', description: 'x', operations: ['updateBuyer'], respond: { status: 429, headers: { 'Retry-After': '8' } } });
    await define(sb, { name: 'default-retry', description: 'x', operations: ['updateBuyer'], respond: { status: 429 } });
    await define(sb, { name: 'seconds', description: 'x', operations: ['updateBuyer'], respond: { status: 503, retry_after: 3 } });
    for (const [scenario, expected] of [
      ['own-retry', '7'],
      ['own-retry-cased', '8'],
      ['default-retry', '1'],
      ['seconds', '3'],
    ]) {
      const res = await putBuyer('', { 'x-sandbox-scenario': scenario });
      expect(res.status, scenario).toBe(scenario === 'seconds' ? 503 : 429);
      expect(res.headers['retry-after'], scenario).toBe(expected);
      expect(res.headers['x-sandbox-scenario']).toMatch(new RegExp(`^${scenario}(;|$)`));
    }
  });

  it('refuses a path pattern with a query string or a percent-escape; the decoded pattern matches', async () => {
    await refused({ operations: ['updateBuyer'], match: { path: '/buyers/*?x=1' }, respond: { status: 500 } }, [
      ['/match/path', "'/buyers/*?x=1' holds a '?': the path is tested without its query string, so it would never match; put query conditions in match.query"],
    ]);
    await refused({ operations: ['updateBuyer'], match: { path: '/buyers/b%30*' }, respond: { status: 500 } }, [
      [
        '/match/path',
        "'/buyers/b%30*' holds the percent-escape %30: request paths are tested decoded, so it would never match; write the character itself ('/buyers/b0*')",
      ],
    ]);
    await define(sb, { name: 'decoded', description: 'x', operations: ['updateBuyer'], match: { path: '/buyers/b0*' }, respond: { status: 500 } });
    await activate(sb, ['decoded']);
    const res = await putBuyer('?x=1');
    expect(res.status).toBe(500);
    expect(res.headers['x-sandbox-scenario']).toBe('decoded');
  });

  it('refuses a header named twice in different case, and query or header conditions equal to no text', async () => {
    await refused({ operations: ['updateBuyer'], match: { headers: { 'X-Foo': 'a', 'x-foo': 'b' } }, respond: { status: 500 } }, [
      ['/match/headers/x-foo', "'x-foo' names the same header as 'X-Foo' (header names are case-insensitive): give one condition for it"],
    ]);
    await refused(
      {
        operations: ['updateBuyer'],
        match: { headers: { 'x-a': { equals: { a: 1 } }, 'x-b': null }, query: { c: { equals: [1] }, d: { equals: null } } },
        respond: { status: 500 },
      },
      [
        ['/match/query/c', 'a query parameter value is text, so an array equals no value: give a string, number or boolean (or {matches: ...})'],
        ['/match/query/d', 'a query parameter value is text, so null equals no value: give a string or number, or {present: false} for one that is absent'],
        ['/match/headers/x-a', 'a header value is text, so an object equals no value: give a string, number or boolean (or {matches: ...})'],
        ['/match/headers/x-b', 'a header value is text, so null equals no value: give a string or number, or {present: false} for one that is absent'],
      ],
    );
    // Scalars, {equals: scalar}, {present}, {matches} still work; a body condition may equal null or an object.
    await define(sb, {
      name: 'texts',
      description: 'x',
      operations: ['updateBuyer'],
      match: {
        headers: { 'X-Foo': { equals: 5 }, 'x-bar': { present: false } },
        query: { q: true, r: { matches: '^a' } },
        body: { '/display_name': { equals: 'x' }, '/missing': { present: false } },
      },
      respond: { status: 500 },
    });
    await activate(sb, ['texts']);
    expect((await putBuyer('?q=true&r=abc', { 'x-foo': '5' })).status).toBe(500);
    expect((await putBuyer('?q=true&r=abc', { 'x-foo': '5', 'x-bar': '1' })).status).toBe(200);
    expect((await putBuyer('?q=false&r=abc', { 'x-foo': '5' })).status).toBe(200);
  });

  it('names the key that is not a JSON pointer or a header name', async () => {
    const res = await sb.http.post('/_sandbox/scenarios').send({
      name: 'refused',
      description: 'x',
      operations: ['updateBuyer'],
      match: { body: { a: 1, '/b': 2 }, headers: { 'X Foo': 'x' } },
      respond: { status: 500 },
    });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.details).toEqual([
      {
        location: 'body',
        pointer: '/match/headers/X Foo',
        type: 'invalid_key',
        message:
          "Body field 'match/headers': the key 'X Foo' is not a header name: give 1 to 100 letters, digits or !#$%&'*+.^_`|~- (no spaces, colons or other characters).",
      },
      {
        location: 'body',
        pointer: '/match/body/a',
        type: 'invalid_key',
        message: "Body field 'match/body': the key 'a' is not a JSON pointer: start it with / (e.g. '/a' for the field a).",
      },
    ]);
  });
});
