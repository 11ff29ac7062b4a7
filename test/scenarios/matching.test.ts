// What testers ask for, defined at run time: which requests a scenario takes (operations, method and
// path pattern, merchant account, query, header, values of the JSON body) and which of them it
// answers (the Nth call, after N, every call, a seeded share), through HTTP.
import { describe, expect, it } from 'vitest';
import { expectErrorBody, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { activate, define, REPORT_BODY, tally } from './helpers.js';

describe('matching requests', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started), { resetBeforeEach: true });
  const report = (body: object, merchant = 'default') =>
    sb.http
      .post('/reports')
      .set('authorization', sb.auth)
      .set('x-service-merchant-account-id', merchant)
      .send({ ...REPORT_BODY, schedule_enabled: false, ...body });
  const reports = () => sb.deps.namespaces.get('default').store.collections.reports.all();

  it('a value of the JSON body: "a report named fail-me fails", the others are created', async () => {
    await define(sb, {
      name: 'fail-me',
      description: 'A report named fail-me fails.',
      operations: ['createReport'],
      match: { body: { '/name': 'fail-me' } },
      respond: { status: 500, message: 'Reports named fail-me fail on purpose.' },
    });
    await activate(sb, ['fail-me']);
    const before = reports().length;
    const failed = await report({ name: 'fail-me' });
    expect(failed.status).toBe(500);
    expect(failed.headers['x-sandbox-scenario']).toBe('fail-me');
    expect(failed.body).toEqual({ type: 'error', code: 'server_error', status: 500, message: 'Reports named fail-me fail on purpose.', details: [] });
    expect(reports().length).toBe(before);
    const created = await report({ name: 'fine' });
    expect(created.status).toBe(201);
    expect(created.headers['x-sandbox-scenario']).toBeUndefined();
    expect(reports().length).toBe(before + 1);
    // A body that is not JSON matches no body condition: validation answers for it.
    const garbled = await sb.http.post('/reports').set('authorization', sb.auth).set('content-type', 'application/json').send('{"name": "fail-me"');
    expect(garbled.status).toBe(400);
    expect(garbled.body.details[0].type).toBe('json_invalid');
    const counters = (await sb.http.get('/_sandbox/scenarios/fail-me')).body.counters;
    expect(counters).toEqual({ matched: 1, answered: 1, merchant_accounts: [{ merchant_account_id: 'default', step: 0, matched: 1, answered: 1 }] });
    // The journal still has the body that was read for the match.
    const journal = await sb.http.get('/_sandbox/requests?scenario=fail-me');
    expect(journal.body.items[0].body).toMatchObject({ name: 'fail-me' });
  });

  it('regular expressions, present/absent and equality of values deeper in the body', async () => {
    await define(sb, {
      name: 'conditions',
      description: 'Names starting with x- and a spec model of transactions, with no description.',
      operations: ['createReport'],
      match: { body: { '/name': { matches: '^x-' }, '/spec/model': { equals: 'transactions' }, '/description': { present: false } } },
      respond: { status: 502 },
    });
    const withHeader = (body: object) => report(body).set('x-sandbox-scenario', 'conditions');
    expect((await withHeader({ name: 'x-one' })).status).toBe(502);
    expect((await withHeader({ name: 'y-one' })).status).toBe(201);
    expect((await withHeader({ name: 'x-two', description: 'has one' })).status).toBe(201);
    // An expression sees a value's first 1024 characters only.
    await define(sb, {
      name: 'tail',
      description: 'x',
      operations: ['listConnections'],
      match: { headers: { 'x-case': { matches: 'z$' } } },
      respond: { status: 502 },
    });
    const connections = (value: string) => sb.http.get('/connections').set('authorization', sb.auth).set('x-case', value).set('x-sandbox-scenario', 'tail');
    expect((await connections(`${'y'.repeat(1000)}z`)).status).toBe(502);
    expect((await connections(`${'y'.repeat(1100)}z`)).status).toBe(200);
  });

  it('a query parameter and a header, compared as text', async () => {
    await define(sb, {
      name: 'by-request',
      description: 'Lists of 3 with x-qa-case: slow-list answer 504.',
      operations: ['listGiftCards'],
      match: { query: { limit: 3 }, headers: { 'x-qa-case': { matches: '^slow-' } } },
      respond: { status: 504 },
    });
    await activate(sb, ['by-request']);
    const list = (query: string, qaCase?: string) => {
      const req = sb.http.get(`/gift-cards${query}`).set('authorization', sb.auth);
      return qaCase ? req.set('x-qa-case', qaCase) : req;
    };
    expect((await list('?limit=3', 'slow-list')).status).toBe(504);
    expect((await list('?limit=4', 'slow-list')).status).toBe(200);
    expect((await list('?limit=3', 'fast-list')).status).toBe(200);
    expect((await list('?limit=3')).status).toBe(200);
  });

  it('a header named in any case: header names are case-insensitive', async () => {
    const defined = await define(sb, {
      name: 'by-case',
      description: 'Requests with X-Case: fail answer 502.',
      operations: ['listConnections'],
      match: { headers: { 'X-Case': 'fail' } },
      respond: { status: 502 },
    });
    expect(defined.match).toEqual({ headers: { 'X-Case': 'fail' } }); // shown as written
    await activate(sb, ['by-case']);
    const connections = (name: string, value: string) => sb.http.get('/connections').set('authorization', sb.auth).set(name, value);
    const failed = await connections('x-case', 'fail');
    expect(failed.status).toBe(502);
    expect(failed.headers['x-sandbox-scenario']).toBe('by-case; outside-contract');
    expect((await connections('X-CASE', 'fail')).status).toBe(502);
    expect((await connections('x-case', 'FAIL')).status).toBe(200); // values are compared as text, case and all
    expect((await sb.http.get('/connections').set('authorization', sb.auth)).status).toBe(200);
    // A name that is not an HTTP token is still refused, with its pointer.
    const badName = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 'bad-header', description: 'x', operations: ['listConnections'], match: { headers: { 'X Case': 'a' } }, drop: true });
    expect(badName.status).toBe(400);
    expect(badName.body.details).toEqual([
      {
        location: 'body',
        pointer: '/match/headers/X Case',
        type: 'invalid_key',
        message:
          "Body field 'match/headers': the key 'X Case' is not a header name: give 1 to 100 letters, digits or !#$%&'*+.^_`|~- (no spaces, colons or other characters).",
      },
    ]);
  });

  it('refuses conditions that can never hold: a body condition on an operation taking no body, a JSON pointer with a bad escape', async () => {
    const noBody = await sb.http.post('/_sandbox/scenarios').send({
      name: 'never-body',
      description: 'x',
      operations: ['createReport', 'listConnections'],
      match: { body: { '/a': 1 } },
      respond: { status: 500 },
    });
    expect(noBody.status).toBe(400);
    expectErrorBody(noBody.body, 400, 'bad_request');
    expect(noBody.body.details).toEqual([
      {
        location: 'body',
        pointer: '/match/body',
        type: 'scenario_invalid',
        message: 'operation listConnections (GET /connections) takes no request body: a condition on the body never tests anything there',
      },
    ]);
    expect((await sb.http.get('/_sandbox/scenarios/never-body')).status).toBe(404);
    // "*" with a body condition: the operations that take a body, as method and path narrow it.
    const everyWithBody = await define(sb, { name: 'any-body', description: 'x', operations: '*', match: { body: { '/a': 1 } }, drop: true });
    const takingBody = sb.deps.api.spec.operations.filter((op) => op.hasBody).map((op) => op.id);
    expect(everyWithBody.operations).toEqual([...takingBody].sort());
    expect(everyWithBody.operations).not.toContain('listConnections');
    const none = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 'none', description: 'x', operations: '*', match: { method: 'GET', body: { '/a': 1 } }, drop: true });
    expect(none.status).toBe(400);
    expect(none.body.details).toEqual([
      {
        location: 'body',
        pointer: '/match',
        type: 'scenario_invalid',
        message: '"*" matches no operation: none matches, takes a request body and can answer every status and body the steps give',
      },
    ]);

    const badEscape = await sb.http.post('/_sandbox/scenarios').send({
      name: 'bad-escape',
      description: 'x',
      operations: ['createReport'],
      match: { body: { '/a~2b': 1, '/a~1b/~0c': 2, '/d~': 3 } },
      respond: { status: 500 },
    });
    expect(badEscape.status).toBe(400);
    expect(badEscape.body.details).toEqual([
      {
        location: 'body',
        pointer: '/match/body/~1a~02b',
        type: 'scenario_invalid',
        message: "'/a~2b' is not a JSON pointer: ~ is an escape, ~0 for ~ and ~1 for /, so it would never find a value",
      },
      {
        location: 'body',
        pointer: '/match/body/~1d~0',
        type: 'scenario_invalid',
        message: "'/d~' is not a JSON pointer: ~ is an escape, ~0 for ~ and ~1 for /, so it would never find a value",
      },
    ]);
    // Escapes done right find their value: {"a/b": {"~c": 2}}.
    await define(sb, {
      name: 'escaped',
      description: 'x',
      operations: ['createReport'],
      match: { body: { '/spec/params/a~1b/~0c': 2 } },
      respond: { status: 500 },
    });
    const escaped = await report({ spec: { model: 'transactions', params: { 'a/b': { '~c': 2 } } } }).set('x-sandbox-scenario', 'escaped');
    expect(escaped.status).toBe(500);
    expect(escaped.headers['x-sandbox-scenario']).toBe('escaped');
  });

  it('a method and path pattern: narrows the operations, then each request path', async () => {
    const defined = await define(sb, {
      name: 'one-buyer',
      description: 'Changes of the well-known buyer fail.',
      match: { method: 'PUT', path: `/buyers/*${WELL_KNOWN.buyers.default.id.slice(-12)}` },
      respond: { status: 503, retry_after: 30 },
    });
    expect(defined.operations).toEqual(['updateBuyer']);
    await activate(sb, ['one-buyer'], null);
    const put = (id: string, merchant = 'default') =>
      sb.http.put(`/buyers/${id}`).set('authorization', sb.auth).set('x-service-merchant-account-id', merchant).send({ display_name: 'Changed' });
    const refused = await put(WELL_KNOWN.buyers.default.id);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['x-sandbox-scenario']).toBe('one-buyer; outside-contract');
    expect((await put(WELL_KNOWN.buyers.merchantTwo.id, 'merchant-two')).status).toBe(200);
    expect((await sb.http.get('/buyers/payment-methods').set('authorization', sb.auth)).status).toBe(200);
    const never = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 'never', description: 'x', operations: ['listConnections'], match: { path: '/buyers/*' }, respond: { status: 500 } });
    expect(never.status).toBe(400);
    expect(never.body.details[0]).toMatchObject({
      pointer: '/match/path',
      message: 'operation listConnections (GET /connections) never matches: the scenario would never apply to it',
    });
    const badMethod = await sb.http.post('/_sandbox/scenarios').send({ name: 'verb', description: 'x', match: { method: 'FETCH' }, drop: true });
    expect(badMethod.body.details[0]).toMatchObject({
      pointer: '/match/method',
      message: "'FETCH' is not an HTTP method (GET, PUT, POST, DELETE, PATCH, HEAD, OPTIONS)",
    });
    const badExpression = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 're', description: 'x', operations: ['createReport'], match: { body: { '/name': { matches: '(' } } }, drop: true });
    expect(badExpression.body.details[0]).toMatchObject({
      pointer: '/match/body/~1name/matches',
      message: expect.stringMatching(/^not a regular expression: /),
    });
    const slowExpression = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 're', description: 'x', operations: ['createReport'], match: { headers: { 'x-case': { matches: '^(a+)+$' } } }, drop: true });
    expect(slowExpression.body.details[0]).toMatchObject({
      pointer: '/match/headers/x-case/matches',
      message: 'a repetition inside a repetition (such as (a+)+) can take exponential time; write it without nesting',
    });
  });

  it('slow for one merchant account: a match condition, or an activation for that account', async () => {
    await define(sb, {
      name: 'two-is-slow',
      description: 'merchant-two waits 80 ms.',
      operations: '*',
      match: { merchant_account_id: 'merchant-two' },
      delay_ms: 80,
    });
    await activate(sb, ['two-is-slow']);
    const timed = async (merchant: string) => {
      const started = performance.now();
      const res = await sb.http.get('/gift-cards?limit=1').set('authorization', sb.auth).set('x-service-merchant-account-id', merchant);
      return { res, ms: performance.now() - started };
    };
    const slow = await timed('merchant-two');
    expect(slow.ms).toBeGreaterThanOrEqual(75);
    expect(slow.res.status).toBe(200);
    expect(slow.res.headers['x-sandbox-scenario']).toBe('two-is-slow');
    const fast = await timed('default');
    expect(fast.res.headers['x-sandbox-scenario']).toBeUndefined();
    const counters = (await sb.http.get('/_sandbox/scenarios/two-is-slow')).body.counters;
    expect(counters.merchant_accounts).toEqual([{ merchant_account_id: 'merchant-two', step: 0, matched: 1, answered: 1 }]);
  });
});

describe('which calls: the Nth, after N, every one, a seeded share', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started), { resetBeforeEach: true });
  const list = (name: string, merchant = 'default') =>
    sb.http.get('/gift-cards?limit=1').set('authorization', sb.auth).set('x-service-merchant-account-id', merchant).set('x-sandbox-scenario', name);
  const statuses = async (name: string, count: number) => {
    const out: number[] = [];
    for (let i = 0; i < count; i++) out.push((await list(name)).status);
    return out;
  };
  const base = { description: 'test', operations: ['listGiftCards'] };

  it('calls: [5] and calls: [2, 4] compile to pass steps around the action', async () => {
    const fifth = await define(sb, { ...base, name: 'fifth', calls: [5], respond: { status: 500 } });
    expect(fifth.steps).toEqual([
      { pass: true, times: 4 },
      { respond: { status: 500 }, times: 1 },
      { pass: true, times: 1 },
    ]);
    expect(await statuses('fifth', 7)).toEqual([200, 200, 200, 200, 500, 200, 200]);
    await define(sb, { ...base, name: 'second-and-fourth', calls: [4, 2], respond: { status: 502 } });
    expect(await statuses('second-and-fourth', 5)).toEqual([200, 502, 200, 502, 200]);
  });

  it('after and times; after alone; times alone; every call', async () => {
    await define(sb, { ...base, name: 'after-times', after: 2, times: 2, respond: { status: 504 } });
    expect(await statuses('after-times', 6)).toEqual([200, 200, 504, 504, 200, 200]);
    await define(sb, { ...base, name: 'after', after: 3, respond: { status: 504 } });
    expect(await statuses('after', 5)).toEqual([200, 200, 200, 504, 504]);
    await define(sb, { ...base, name: 'times', times: 2, respond: { status: 429 } });
    expect(await statuses('times', 4)).toEqual([429, 429, 200, 200]);
    await define(sb, { ...base, name: 'always', respond: { status: 500 } });
    expect(await statuses('always', 3)).toEqual([500, 500, 500]);
    const both = await sb.http.post('/_sandbox/scenarios').send({ ...base, name: 'both', calls: [1], after: 1, respond: { status: 500 } });
    expect(both.status).toBe(400);
    expect(both.body.details).toEqual([{ location: 'body', pointer: '/calls', type: 'scenario_invalid', message: 'give calls, or after and times, not both' }]);
    const bare = await sb.http.post('/_sandbox/scenarios').send({ ...base, name: 'bare', calls: [1] });
    expect(bare.body.details[0]).toMatchObject({ pointer: '/calls', message: expect.stringMatching(/^calls needs an action at the top level/) });
    const mixed = await sb.http.post('/_sandbox/scenarios').send({ ...base, name: 'mixed', steps: [{ pass: true }], respond: { status: 500 } });
    expect(mixed.body.details[0]).toMatchObject({ pointer: '/steps', message: 'give steps or one action at the top level (found respond), not both' });
  });

  it('probability: a seeded share, the same calls for the same seed, per merchant account', async () => {
    await define(sb, { ...base, name: 'a-fifth', probability: 0.2, respond: { status: 500 } });
    const first = await statuses('a-fifth', 60);
    const failed = first.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThanOrEqual(4);
    expect(failed).toBeLessThanOrEqual(24);
    expect(new Set(first)).toEqual(new Set([200, 500]));
    // Re-activation restarts the random source: the same calls fail again.
    await activate(sb, ['a-fifth'], 'default');
    await activate(sb, [], 'default');
    const again: number[] = [];
    for (let i = 0; i < 60; i++) again.push((await list('a-fifth')).status);
    expect(again).toEqual(first);
    // Another seed, another sequence.
    await define(sb, { ...base, name: 'a-fifth-reseeded', seed: 99, probability: 0.2, respond: { status: 500 } });
    expect(await statuses('a-fifth-reseeded', 60)).not.toEqual(first);
  });

  it('50 parallel calls with calls: [5] give exactly one injected answer', async () => {
    await define(sb, { ...base, name: 'one-of-fifty', calls: [5], respond: { status: 500 } });
    await activate(sb, ['one-of-fifty']);
    const responses = await Promise.all(Array.from({ length: 50 }, () => sb.http.get('/gift-cards?limit=1').set('authorization', sb.auth)));
    expect(tally(responses.map((r) => r.status))).toEqual(
      new Map([
        [200, 49],
        [500, 1],
      ]),
    );
    expect((await sb.http.get('/_sandbox/scenarios/one-of-fifty')).body.counters).toMatchObject({ matched: 50, answered: 1 });
  });

  it('50 parallel calls with a body condition and calls: [5] still give exactly one', async () => {
    await define(sb, {
      name: 'fifth-fail-me',
      description: 'the 5th report named fail-me',
      operations: ['createReport'],
      match: { body: { '/name': 'fail-me' } },
      calls: [5],
      respond: { status: 500 },
    });
    await activate(sb, ['fifth-fail-me']);
    const send = (name: string) =>
      sb.http
        .post('/reports')
        .set('authorization', sb.auth)
        .send({ ...REPORT_BODY, schedule_enabled: false, name });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i % 2 ? 'fail-me' : 'other')));
    expect(tally(responses.map((r) => r.status))).toEqual(
      new Map([
        [201, 49],
        [500, 1],
      ]),
    );
    expect((await sb.http.get('/_sandbox/scenarios/fifth-fail-me')).body.counters).toMatchObject({ matched: 25, answered: 1 });
  });

  it('counts each merchant account on its own', async () => {
    await define(sb, { ...base, name: 'second', calls: [2], respond: { status: 500 } });
    expect((await list('second', 'default')).status).toBe(200);
    expect((await list('second', 'merchant-two')).status).toBe(200);
    expect((await list('second', 'merchant-two')).status).toBe(500);
    expect((await list('second', 'default')).status).toBe(500);
  });
});
