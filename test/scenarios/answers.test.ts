// What a scenario answers, defined at run time: any status with the reference's body (or a body
// given), extra headers, Retry-After, delays fixed or drawn from a range, dropped connections, and
// "done, but the answer is lost"; activations that turn themselves off; no silent skip.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestSandbox, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { activate, define, REPORT_BODY } from './helpers.js';

const newReport = { ...REPORT_BODY, schedule_enabled: false };

describe('answers', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started), { resetBeforeEach: true });
  const connections = (scenario: string) => sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-scenario', scenario);
  const reports = () => sb.deps.namespaces.get('default').store.collections.reports.all();
  const lastEntry = async () => (await sb.http.get('/_sandbox/requests?limit=1')).body.items[0];

  it('any 5xx with the reference error body on an operation that declares none, marked outside the contract', async () => {
    const declared = sb.deps.api.spec.byId.get('listConnections')!.declaredStatuses;
    expect(declared.some((s) => s >= 500)).toBe(false);
    await define(sb, {
      name: 'down',
      description: 'x',
      operations: ['listConnections'],
      respond: { status: 503, retry_after: 12, headers: { 'x-upstream': 'db' } },
    });
    const res = await connections('down');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('12');
    expect(res.headers['x-upstream']).toBe('db');
    expect(res.headers['x-sandbox-scenario']).toBe('down; outside-contract');
    expect(res.body).toEqual({
      type: 'error',
      code: 'service_unavailable',
      status: 503,
      details: [],
      message: 'Service unavailable; retry after the Retry-After delay (answered by scenario down).',
    });
    expect(await lastEntry()).toMatchObject({ status: 503, scenario: 'down', outside_contract: true });
  });

  it('a body given as it is, extra headers on a normal answer', async () => {
    await define(sb, {
      name: 'custom',
      description: 'x',
      operations: ['listConnections'],
      steps: [{ respond: { status: 502, body: { upstream: 'nginx', html: '<h1>502</h1>' } } }, { pass: true, headers: { 'x-served-by': 'edge-2' } }],
    });
    const first = await connections('custom');
    expect(first.status).toBe(502);
    expect(first.body).toEqual({ upstream: 'nginx', html: '<h1>502</h1>' });
    const second = await connections('custom');
    expect(second.status).toBe(200);
    expect(second.headers['x-served-by']).toBe('edge-2');
    expect(second.body.items.length).toBeGreaterThan(0);
    const reserved = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 'framing', description: 'x', operations: ['listConnections'], headers: { 'Content-Length': '1' } });
    expect(reserved.status).toBe(400);
    expect(reserved.body.details[0]).toMatchObject({
      pointer: '/headers/Content-Length',
      message: 'Content-Length frames the answer on the connection; a scenario cannot set it',
    });
  });

  it('a status other than 429 and 5xx that the operation does not list is refused when defined, naming what it lists', async () => {
    const res = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 'conflict', description: 'x', operations: ['listConnections'], respond: { status: 409 } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      {
        location: 'body',
        pointer: '/respond/status',
        type: 'scenario_invalid',
        message: '409 is not declared by operation listConnections (it declares 200, 400, 401, 403; 429 and 5xx may be answered on any operation)',
      },
    ]);
  });

  it("an injected 405 has Allow with the methods served on the path, like the sandbox's own 405; one given in headers wins", async () => {
    const own = await sb.http.post('/gift-cards').set('authorization', sb.auth).send({});
    expect(own.status).toBe(405);
    expect(own.headers.allow).toBe('GET');
    await define(sb, {
      name: 'no-method',
      description: 'x',
      operations: ['listGiftCards', 'updateBuyer'],
      steps: [{ respond: { status: 405 }, times: 2 }, { respond: { status: 405, headers: { Allow: 'POST' } } }],
    });
    const list = await sb.http.get('/gift-cards').set('authorization', sb.auth).set('x-sandbox-scenario', 'no-method');
    expect(list.status).toBe(405);
    expect(list.headers.allow).toBe('GET');
    expect(list.headers['x-sandbox-scenario']).toBe('no-method');
    expect(list.body).toEqual({
      type: 'error',
      code: 'method_not_allowed',
      status: 405,
      details: [],
      message: 'The method is not allowed (answered by scenario no-method).',
    });
    const update = await sb.http
      .put(`/buyers/${WELL_KNOWN.buyers.default.id}`)
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'no-method')
      .send({ display_name: 'x' });
    expect(update.status).toBe(405);
    expect(update.headers.allow).toBe('PUT');
    const given = await sb.http.get('/gift-cards').set('authorization', sb.auth).set('x-sandbox-scenario', 'no-method');
    expect(given.status).toBe(405);
    expect(given.headers.allow).toBe('POST');
    const preferred = await sb.http.get('/gift-cards').set('authorization', sb.auth).set('prefer', 'code=405');
    expect(preferred.status).toBe(405);
    expect(preferred.headers.allow).toBe('GET');
    expect(preferred.body.code).toBe('method_not_allowed');
  });

  it('retry_after only with a 429 or 503: on another status it is refused, pointing at it', async () => {
    const refused = await sb.http.post('/_sandbox/scenarios').send({
      name: 'retry-500',
      description: 'x',
      operations: ['listConnections'],
      steps: [{ respond: { status: 503, retry_after: 5 } }, { random: { share: 0.5, respond: { status: 500, retry_after: 5 } } }],
    });
    expect(refused.status).toBe(400);
    expectErrorBody(refused.body, 400, 'bad_request');
    expect(refused.body.details).toEqual([
      {
        location: 'body',
        pointer: '/steps/1/random/respond/retry_after',
        type: 'scenario_invalid',
        message: 'retry_after goes with a 429 or 503 answer, not 500: leave it out (a header of your own goes in respond.headers)',
      },
    ]);
    const topLevel = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 'retry-502', description: 'x', operations: ['listConnections'], respond: { status: 502, retry_after: 1 } });
    expect(topLevel.status).toBe(400);
    expect(topLevel.body.details).toEqual([
      {
        location: 'body',
        pointer: '/respond/retry_after',
        type: 'scenario_invalid',
        message: 'retry_after goes with a 429 or 503 answer, not 502: leave it out (a header of your own goes in respond.headers)',
      },
    ]);
    expect((await sb.http.get('/_sandbox/scenarios/retry-502')).status).toBe(404);
    // With 429 it is sent; a 500 carries one only as a header given on purpose.
    await define(sb, { name: 'busy', description: 'x', operations: ['listConnections'], respond: { status: 429, retry_after: 9 } });
    expect((await connections('busy')).headers['retry-after']).toBe('9');
    await define(sb, { name: 'down-500', description: 'x', operations: ['listConnections'], respond: { status: 500, headers: { 'Retry-After': '3' } } });
    const down = await connections('down-500');
    expect(down.status).toBe(500);
    expect(down.headers['retry-after']).toBe('3');
  });

  it('a delay drawn from a range, the same for the same seed', async () => {
    await define(sb, { name: 'jitter', description: 'x', operations: ['listConnections'], delay_ms: { min: 40, max: 90 } });
    const started = performance.now();
    const res = await connections('jitter');
    expect(performance.now() - started).toBeGreaterThanOrEqual(38);
    expect(res.status).toBe(200);
    expect(res.headers['x-sandbox-scenario']).toBe('jitter');
    const backwards = await sb.http
      .post('/_sandbox/scenarios')
      .send({ name: 'back', description: 'x', operations: ['listConnections'], delay_ms: { min: 9, max: 3 } });
    expect(backwards.body.details[0]).toMatchObject({ pointer: '/delay_ms', message: 'min (9) is more than max (3)' });
  });

  it('a dropped connection, recorded as 444', async () => {
    await define(sb, { name: 'cut', description: 'x', operations: ['listConnections'], calls: [2], drop: true });
    expect((await connections('cut')).status).toBe(200);
    await expect(connections('cut')).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(await lastEntry()).toMatchObject({ status: 444, scenario: 'cut' });
  });

  it('done, but the answer is lost: the report is created, the client gets a 504, and a retry makes a second report', async () => {
    await define(sb, { name: 'lost', description: 'The first report is made, its answer lost.', operations: ['createReport'], times: 1, lose_answer: {} });
    await activate(sb, ['lost']);
    const before = reports().length;
    const first = await sb.http.post('/reports').set('authorization', sb.auth).send(newReport);
    expect(first.status).toBe(504);
    expect(first.headers['x-sandbox-scenario']).toBe('lost; answer-lost=201');
    expectErrorBody(first.body, 504, 'gateway_timeout');
    expect(reports().length).toBe(before + 1);
    const entry = await lastEntry();
    expect(entry).toMatchObject({ status: 504, scenario: 'lost', response_body: first.body, lost_answer: { status: 201 } });
    expect(entry.lost_answer.body).toMatchObject({ type: 'report', name: 'Scenario report', id: reports().at(-1)!.id });
    expect(entry.outside_contract).toBeUndefined(); // createReport declares 504
    const retry = await sb.http.post('/reports').set('authorization', sb.auth).send(newReport);
    expect(retry.status).toBe(201);
    expect(reports().length).toBe(before + 2);
    expect(retry.body.id).not.toBe(entry.lost_answer.body.id);
  });

  it('a lost answer holding a generated private key is kept redacted', async () => {
    await define(sb, { name: 'lost-key', description: 'x', operations: ['createApiKeyPair'], lose_answer: {} });
    const res = await sb.http
      .post('/api-key-pairs')
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'lost-key')
      .send({ display_name: 'Lost key', role_ids: [WELL_KNOWN.roles.admin.id] });
    expect(res.status).toBe(504);
    const entry = await lastEntry();
    expect(entry.lost_answer.status).toBe(201);
    expect(entry.lost_answer.body).toMatchObject({ display_name: 'Lost key', private_key: '[redacted]' });
    const state = JSON.stringify((await sb.http.get('/_sandbox/state')).body.parts.journal);
    expect(state).not.toContain('PRIVATE KEY');
    expect(state).toContain('Lost key');
  });

  it('a lost answer may be a 502, a dropped connection, or an undeclared 5xx; a failed operation keeps its own answer', async () => {
    await define(sb, {
      name: 'lossy',
      description: 'x',
      operations: ['createReport', 'deleteWebhookSubscription', 'listConnections'],
      steps: [{ lose_answer: { status: 502 } }, { lose_answer: { drop: true } }, { lose_answer: { status: 503 } }, { lose_answer: {} }],
    });
    const post = () => sb.http.post('/reports').set('authorization', sb.auth).set('x-sandbox-scenario', 'lossy').send(newReport);
    const before = reports().length;
    expect((await post()).status).toBe(502);
    await expect(post()).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(await lastEntry()).toMatchObject({ status: 444, lost_answer: { status: 201 } });
    const listed = await connections('lossy');
    expect(listed.status).toBe(503);
    expect(listed.headers['x-sandbox-scenario']).toBe('lossy; answer-lost=200');
    expect(await lastEntry()).toMatchObject({ status: 503, outside_contract: true, lost_answer: { status: 200 } });
    expect(reports().length).toBe(before + 2);
    // The operation fails (400): nothing was done, the client gets that answer.
    const invalid = await sb.http.post('/reports').set('authorization', sb.auth).set('x-sandbox-scenario', 'lossy').send({ name: 3 });
    expect(invalid.status).toBe(400);
    expect((await lastEntry()).lost_answer).toBeUndefined();
  });
});

describe('a lost answer with --data-file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-lost-'));
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({ dataFile: join(dir, 'state.json') });
  });
  afterAll(() => {
    sb.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is in the change log before the client sees the 504', async () => {
    await define(sb, { name: 'lost', description: 'x', operations: ['createReport'], lose_answer: {} });
    const res = await sb.http
      .post('/reports')
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'lost')
      .send({ ...newReport, name: 'Logged first' });
    expect(res.status).toBe(504);
    const log = readFileSync(join(dir, 'state.json.log'), 'utf8');
    expect(log).toContain('"name":"Logged first"');
  });
});

describe('activations that turn themselves off', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started), { resetBeforeEach: true });
  const list = (merchant = 'default') => sb.http.get('/gift-cards?limit=1').set('authorization', sb.auth).set('x-service-merchant-account-id', merchant);
  const advance = (seconds: number) => sb.http.post('/_sandbox/clock/advance').send({ seconds }).expect(200);

  it('a 429 storm for 30 seconds of the namespace clock', async () => {
    await define(sb, { name: 'storm', description: '429 on every call', operations: '*', respond: { status: 429, retry_after: 5 } });
    await sb.http.put('/_sandbox/clock').send({ now: '2030-01-01T00:00:00.000Z', frozen: true }).expect(200);
    const put = await sb.http.put('/_sandbox/scenarios/active').send({ scenarios: ['storm'], ttl: 30 });
    expect(put.status).toBe(200);
    expect(put.body.active).toEqual([{ merchant_account_id: null, scenarios: ['storm'], ttl: 30, expires_at: '2030-01-01T00:00:30.000Z', calls: 0 }]);
    const first = await list();
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('5');
    expect(first.body).toEqual({
      type: 'error',
      code: 'too_many_requests',
      status: 429,
      details: [],
      message: 'Too many requests; retry after the Retry-After delay (answered by scenario storm).',
    });
    expect((await list('merchant-two')).status).toBe(429);
    await advance(29);
    expect((await list()).status).toBe(429);
    expect((await sb.http.get('/_sandbox/scenarios/storm')).body.active).toEqual([
      { merchant_account_id: null, ttl: 30, expires_at: '2030-01-01T00:00:30.000Z', calls: 3 },
    ]);
    await advance(1);
    expect((await list()).status).toBe(200);
    expect((await sb.http.get('/_sandbox/scenarios/active')).body.active).toEqual([]);
  });

  it('max_calls: off once its scenarios took that many calls, counted per activation', async () => {
    const put = await sb.http.put('/_sandbox/scenarios/active').send({ scenarios: ['server-error'], merchant_account_id: 'merchant-two', max_calls: 2 });
    expect(put.body.active).toEqual([{ merchant_account_id: 'merchant-two', scenarios: ['server-error'], max_calls: 2, calls: 0 }]);
    expect((await list('default')).status).toBe(200); // another account's calls do not count
    expect((await list('merchant-two')).status).toBe(500);
    expect((await sb.http.get('/_sandbox/scenarios/active')).body.active[0].calls).toBe(1);
    expect((await list('merchant-two')).status).toBe(500);
    expect((await list('merchant-two')).status).toBe(200);
    expect((await sb.http.get('/_sandbox/scenarios/active')).body.active).toEqual([]);
  });

  it('max_calls holds under 50 parallel calls', async () => {
    await sb.http
      .put('/_sandbox/scenarios/active')
      .send({ scenarios: ['server-error'], max_calls: 7 })
      .expect(200);
    const responses = await Promise.all(Array.from({ length: 50 }, () => list()));
    expect(responses.filter((r) => r.status === 500)).toHaveLength(7);
  });

  it('refuses limits that are not positive whole numbers', async () => {
    const res = await sb.http.put('/_sandbox/scenarios/active').send({ scenarios: ['slow'], ttl: 0, max_calls: 1.5 });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: any) => d.pointer).sort()).toEqual(['/max_calls', '/ttl']);
  });
});

describe('never silent', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  it('a header naming only scenarios that cannot apply is a 400 naming what each applies to; one that applies answers', async () => {
    const res = await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-scenario', 'duplicate-record, too-early');
    expect(res.status).toBe(400);
    const applies = async (name: string) => ((await sb.http.get(`/_sandbox/scenarios/${name}`)).body.operations as string[]).join(', ');
    expect(res.body.message).toBe(
      `None of the scenarios in x-sandbox-scenario applies to operation listConnections (GET /connections): 'duplicate-record' applies to ${await applies('duplicate-record')}; 'too-early' applies to ${await applies('too-early')}.`,
    );
    expect(res.body.message).not.toContain('listConnections,');
    const mixed = await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-scenario', 'too-early, rate-limited');
    expect(mixed.status).toBe(429);
    expect(mixed.headers['x-sandbox-scenario']).toBe('rate-limited; outside-contract');
    const lifecycle = await sb.http.get('/gift-cards').set('authorization', sb.auth).set('x-sandbox-scenario', 'report-execution-fails');
    expect(lifecycle.status).toBe(400);
    expect(lifecycle.body.message).toBe(
      "Scenario 'report-execution-fails' does not apply to operation listGiftCards (GET /gift-cards): 'report-execution-fails' applies to createReport, getReportExecution.",
    );
    // Still an authentication problem first.
    expect((await sb.http.get('/connections').set('x-sandbox-scenario', 'too-early')).status).toBe(401);
  });

  it('every built-in scenario applies to the operations its list says, and answers on them', async () => {
    const items = (await sb.http.get('/_sandbox/scenarios')).body.items as Array<{ name: string; operations: string[] }>;
    const everywhere = ['bad-gateway', 'dropped-connection', 'flaky', 'gateway-timeout', 'rate-limited', 'server-error', 'slow'];
    const all = sb.deps.api.spec.operations.map((o) => o.id).sort();
    for (const name of everywhere) expect(items.find((s) => s.name === name)?.operations, name).toEqual(all);
    const declaring = (status: number) =>
      sb.deps.api.spec.operations
        .filter((o) => o.declaredStatuses.includes(status))
        .map((o) => o.id)
        .sort();
    expect(items.find((s) => s.name === 'duplicate-record')?.operations).toEqual(declaring(409));
    expect(items.find((s) => s.name === 'too-early')?.operations).toEqual(declaring(425));
  });
});
