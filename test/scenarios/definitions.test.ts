// Scenarios defined at run time through the control API: the file schema is the contract (JSON or
// YAML bodies, checked like a file with pointers into the body), per namespace, forgotten by a
// reset, carried by state and snapshot exports; --scenarios-dir adds to the built-in ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SCENARIO_FILE_SCHEMA } from '../../src/scenarios/scenario-schema.js';
import { packageRoot } from '../../src/spec/load-spec.js';
import { expectErrorBody, startTestSandbox, type TestSandbox, useTestSandbox } from '../support/sandbox.js';
import { activate, define, scenarioDir } from './helpers.js';

/** The body of the issue, as a tester would send it. */
const FIFTH_LIST_FAILS = {
  name: 'fifth-list-fails',
  description: 'The 5th list answers 500.',
  operations: ['listBuyerPaymentMethods'],
  steps: [{ pass: true, times: 4 }, { respond: { status: 500 } }, { pass: true }],
};

describe('scenarios defined at run time', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));
  beforeEach(async () => {
    await sb.http.post('/_sandbox/reset').send({});
    await sb.http.post('/_sandbox/reset').set('x-sandbox-namespace', 'other').send({});
  });
  const methods = (ns?: string) => {
    const req = sb.http.get('/buyers/payment-methods').set('authorization', sb.auth);
    return ns ? req.set('x-sandbox-namespace', ns) : req;
  };

  it('takes the body of a scenario file as it is, and activates it with PUT /_sandbox/scenarios/active', async () => {
    const created = await sb.http.post('/_sandbox/scenarios').send(FIFTH_LIST_FAILS);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'fifth-list-fails',
      description: 'The 5th list answers 500.',
      source: 'defined',
      file: null,
      replaces: null,
      operations: ['listBuyerPaymentMethods'],
      steps: [
        { pass: true, times: 4 },
        { respond: { status: 500 }, times: 1 },
        { pass: true, times: 1 },
      ],
      match: null,
      report_execution: null,
      webhooks: null,
      definition: FIFTH_LIST_FAILS,
      counters: { matched: 0, answered: 0, merchant_accounts: [] },
      active: [],
    });
    await activate(sb, ['fifth-list-fails']);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await methods()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 500, 200, 200]);
    const shown = await sb.http.get('/_sandbox/scenarios/fifth-list-fails');
    expect(shown.status).toBe(200);
    expect(shown.body.counters).toEqual({
      matched: 7,
      answered: 1,
      merchant_accounts: [{ merchant_account_id: 'default', step: 2, matched: 7, answered: 1 }],
    });
    expect(shown.body.active).toEqual([{ merchant_account_id: null }]);
    const journal = await sb.http.get('/_sandbox/requests?scenario=fifth-list-fails&status=500');
    expect(journal.body.items).toHaveLength(1);
    expect(journal.body.items[0]).toMatchObject({ operation_id: 'listBuyerPaymentMethods', status: 500, scenario: 'fifth-list-fails' });
    expect((await sb.http.get('/_sandbox/requests/count?scenario=fifth-list-fails')).body).toEqual({ count: 7 });
  });

  it('takes YAML with content-type application/yaml', async () => {
    const yaml = 'name: yaml-made\ndescription: Defined in YAML.\noperations: [listConnections]\nrespond: { status: 503, retry_after: 7 }\n';
    const res = await sb.http.post('/_sandbox/scenarios').set('content-type', 'application/yaml').send(yaml);
    expect(res.status).toBe(201);
    expect(res.body.steps).toEqual([{ respond: { status: 503, retry_after: 7 }, times: 1 }]);
    const answered = await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-scenario', 'yaml-made');
    expect(answered.status).toBe(503);
    expect(answered.headers['retry-after']).toBe('7');
    const broken = await sb.http.post('/_sandbox/scenarios').set('content-type', 'application/yaml').send('name: [unclosed\n');
    expect(broken.status).toBe(400);
    expectErrorBody(broken.body, 400, 'bad_request');
    expect(broken.body.details).toEqual([{ location: 'body', pointer: '', type: 'yaml_invalid', message: expect.stringMatching(/^Invalid YAML: /) }]);
    // Where it breaks and what to fix, without the library's advice; tags JSON cannot hold are refused, not turned into {}.
    for (const [text, problem] of [
      ['name: a\n---\nname: b\n', "line 2, column 1: a second YAML document starts here ('---' or '...'): give one document"],
      [
        'name: set\ndescription: x\noperations: [createReport]\nmatch: { body: { /name: { equals: !!set {a, b} } } }\nrespond: { status: 500 }\n',
        'line 4, column 35: the tag !!set has no JSON equivalent: write a plain mapping, sequence or scalar instead',
      ],
    ]) {
      const res = await sb.http.post('/_sandbox/scenarios').set('content-type', 'application/yaml').send(text);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: 'error',
        code: 'bad_request',
        status: 400,
        message: `The request body is not valid YAML: ${problem}.`,
        details: [{ location: 'body', pointer: '', type: 'yaml_invalid', message: `Invalid YAML: ${problem}.` }],
      });
    }
    expect((await sb.http.get('/_sandbox/scenarios/set')).status).toBe(404);
    const other = await sb.http.post('/_sandbox/scenarios').set('content-type', 'text/plain').send('name: x');
    expect(other.status).toBe(400);
    expect(other.body.details[0]).toMatchObject({ pointer: '/content-type', type: 'content_type' });
  });

  it('checks a body like a file: a 400 with a pointer into the body for every problem', async () => {
    const schema = await sb.http.post('/_sandbox/scenarios').send({ name: 'Bad Name', description: 'x', steps: [{ respond: { status: 500, retry: 1 } }] });
    expect(schema.status).toBe(400);
    expectErrorBody(schema.body, 400, 'bad_request');
    expect(schema.body.details.map((d: any) => [d.pointer, d.type])).toEqual([
      ['/name', 'string_pattern_mismatch'],
      ['/steps/0/respond/retry', 'extra_forbidden'],
    ]);

    const semantic = await sb.http.post('/_sandbox/scenarios').send({
      name: 'wrong',
      description: 'unknown operation, undeclared status, two actions in a step',
      operations: ['listConnections', 'listGiftCardz'],
      steps: [{ respond: { status: 409 } }, { respond: { status: 500 }, drop: true }],
    });
    expect(semantic.status).toBe(400);
    const declared = sb.deps.api.spec.byId.get('listConnections')!.declaredStatuses.join(', ');
    expect(semantic.body.details).toEqual([
      {
        location: 'body',
        pointer: '/steps/1',
        type: 'scenario_invalid',
        message: 'a step does one thing: use one of respond, override, merge, drop, pass, lose_answer, random (found respond and drop)',
      },
      {
        location: 'body',
        pointer: '/steps/0/respond/status',
        type: 'scenario_invalid',
        message: `409 is not declared by operation listConnections (it declares ${declared}; 429 and 5xx may be answered on any operation)`,
      },
      {
        location: 'body',
        pointer: '/operations/1',
        type: 'scenario_invalid',
        message:
          '\'listGiftCardz\' is not an operation of openapi.json; use an operationId (e.g. createApiKeyPair) or "METHOD /path" (e.g. POST /api-key-pairs)',
      },
    ]);
    expect(semantic.body.message).toMatch(/^The scenario cannot be defined: \/steps\/1: a step does one thing/);
    // Nothing was defined.
    expect((await sb.http.get('/_sandbox/scenarios/wrong')).status).toBe(404);
  });

  it('refuses a name already defined (409), the name of a control route, and one that does nothing', async () => {
    await define(sb, FIFTH_LIST_FAILS);
    const again = await sb.http.post('/_sandbox/scenarios').send(FIFTH_LIST_FAILS);
    expect(again.status).toBe(409);
    expectErrorBody(again.body, 409, 'duplicate_record');
    expect(again.body.details).toEqual([
      {
        location: 'body',
        pointer: '/name',
        type: 'scenario_exists',
        message: "'fifth-list-fails' is already defined in this namespace; PUT /_sandbox/scenarios/fifth-list-fails replaces it",
      },
    ]);
    const reserved = await sb.http.post('/_sandbox/scenarios').send({ ...FIFTH_LIST_FAILS, name: 'active' });
    expect(reserved.status).toBe(400);
    expect(reserved.body.details[0]).toMatchObject({ pointer: '/name', message: expect.stringMatching(/names a route of the control API/) });
    const idle = await sb.http.post('/_sandbox/scenarios').send({ name: 'idle', description: 'nothing' });
    expect(idle.status).toBe(400);
    expect(idle.body.details[0]).toMatchObject({ pointer: '', message: expect.stringMatching(/^the scenario does nothing/) });
  });

  it('PUT defines or replaces by the name in the path; a replacement restarts the sequence, activation stays', async () => {
    const created = await sb.http
      .put('/_sandbox/scenarios/flip')
      .send({ name: 'flip', description: 'first 500', operations: ['listConnections'], respond: { status: 500 } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('flip');
    await activate(sb, ['flip']);
    expect((await sb.http.get('/connections').set('authorization', sb.auth)).status).toBe(500);
    const replaced = await sb.http
      .put('/_sandbox/scenarios/flip')
      .send({ name: 'flip', description: 'then 502', operations: ['listConnections'], respond: { status: 502 } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.counters).toEqual({ matched: 0, answered: 0, merchant_accounts: [] });
    expect((await sb.http.get('/connections').set('authorization', sb.auth)).status).toBe(502);
    const mismatch = await sb.http.put('/_sandbox/scenarios/flip').send({ name: 'flop', description: 'x', operations: ['listConnections'], drop: true });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details).toEqual([{ location: 'body', pointer: '/name', type: 'name_mismatch', message: 'Use "name": "flip".' }]);
  });

  it('DELETE removes a definition only; a file scenario is a 400, an unknown one a 404', async () => {
    await define(sb, FIFTH_LIST_FAILS);
    await activate(sb, ['fifth-list-fails', 'slow']);
    expect((await sb.http.delete('/_sandbox/scenarios/fifth-list-fails')).status).toBe(204);
    expect((await sb.http.get('/_sandbox/scenarios/fifth-list-fails')).status).toBe(404);
    expect((await sb.http.get('/_sandbox/scenarios/active')).body.active).toEqual([{ merchant_account_id: null, scenarios: ['slow'] }]);
    const builtIn = await sb.http.delete('/_sandbox/scenarios/slow');
    expect(builtIn.status).toBe(400);
    expect(builtIn.body.message).toMatch(/^Scenario 'slow' comes from scenarios\/slow\.yaml, not from this namespace/);
    const unknown = await sb.http.delete('/_sandbox/scenarios/nothing-here');
    expect(unknown.status).toBe(404);
    expectErrorBody(unknown.body, 404, 'not_found');
    expect(unknown.body.message).toMatch(/^Scenario 'nothing-here' is not known in namespace 'default'; known: bad-gateway, /);
  });

  it("DELETE of a definition that replaced a file scenario: activations keep the name, and the file's scenario answers from its first step", async () => {
    await define(sb, {
      name: 'server-error',
      description: 'Here: 502 after one normal call.',
      operations: '*',
      steps: [{ pass: true }, { respond: { status: 502 } }],
    });
    await define(sb, FIFTH_LIST_FAILS);
    await activate(sb, ['server-error', 'fifth-list-fails']);
    await activate(sb, ['server-error'], 'merchant-two');
    const connections = (merchant = 'default') => sb.http.get('/connections').set('authorization', sb.auth).set('x-service-merchant-account-id', merchant);
    expect((await connections()).status).toBe(200);
    expect((await connections()).status).toBe(502);
    expect((await sb.http.get('/_sandbox/scenarios/server-error')).body.counters.matched).toBe(2);

    expect((await sb.http.delete('/_sandbox/scenarios/server-error')).status).toBe(204);
    expect((await sb.http.delete('/_sandbox/scenarios/fifth-list-fails')).status).toBe(204);
    // The file's scenario is back under the name, still active where the definition was; the
    // deleted definition that replaced nothing left the activation.
    const active = (await sb.http.get('/_sandbox/scenarios/active')).body.active;
    expect(active).toEqual([
      { merchant_account_id: null, scenarios: ['server-error'] },
      { merchant_account_id: 'merchant-two', scenarios: ['server-error'] },
    ]);
    const shown = await sb.http.get('/_sandbox/scenarios/server-error');
    expect(shown.body).toMatchObject({ source: 'built-in', file: 'scenarios/server-error.yaml', replaces: null });
    expect(shown.body.counters).toEqual({ matched: 0, answered: 0, merchant_accounts: [] });
    const answered = await connections();
    expect(answered.status).toBe(500);
    expect(answered.headers['x-sandbox-scenario']).toBe('server-error; outside-contract');
    expect(answered.body.message).toBe('The server failed (answered by scenario server-error).');
    expect((await connections('merchant-two')).status).toBe(500);
  });

  it('a match on a merchant account the namespace does not have is accepted with a warning, until the account exists', async () => {
    const body = {
      name: 'later-account',
      description: 'Calls of merchant-three fail.',
      operations: ['listConnections'],
      match: { merchant_account_id: ['merchant-two', 'merchant-three'] },
      respond: { status: 503 },
    };
    const created = await sb.http.post('/_sandbox/scenarios').send(body);
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([
      {
        pointer: '/match/merchant_account_id/1',
        message:
          "merchant account 'merchant-three' does not exist in namespace 'default' (yet): the scenario takes none of its calls until it is created (accounts: default, merchant-two)",
      },
    ]);
    const single = await sb.http.put('/_sandbox/scenarios/later-account').send({ ...body, match: { merchant_account_id: 'merchant-three' } });
    expect(single.status).toBe(200);
    expect(single.body.warnings.map((w: any) => w.pointer)).toEqual(['/match/merchant_account_id']);
    expect((await sb.http.get('/_sandbox/scenarios/later-account')).body.warnings).toHaveLength(1);
    // Another namespace that has the account: no warning there.
    expect((await sb.http.post('/ns/other/_sandbox/records/merchant_accounts').send({ id: 'merchant-three', display_name: 'Three' })).status).toBe(201);
    const there = await sb.http.post('/ns/other/_sandbox/scenarios').send({ ...body, match: { merchant_account_id: 'merchant-three' } });
    expect(there.status).toBe(201);
    expect(there.body).not.toHaveProperty('warnings');
    await activate(sb, ['later-account'], null, 'other');
    const call = (merchant: string) => sb.http.get('/ns/other/connections').set('authorization', sb.auth).set('x-service-merchant-account-id', merchant);
    expect((await call('merchant-three')).status).toBe(503);
    expect((await call('default')).status).toBe(200);
    // Created here too: the warning is gone.
    expect((await sb.http.post('/_sandbox/records/merchant_accounts').send({ id: 'merchant-three', display_name: 'Three' })).status).toBe(201);
    expect((await sb.http.get('/_sandbox/scenarios/later-account')).body).not.toHaveProperty('warnings');
  });

  it('belongs to its namespace: another namespace does not know it; the control API through /ns/{name} defines there', async () => {
    const inOther = await sb.http.post('/ns/other/_sandbox/scenarios').send(FIFTH_LIST_FAILS);
    expect(inOther.status).toBe(201);
    const listedThere = await sb.http.get('/ns/other/_sandbox/scenarios');
    expect(listedThere.body.items.find((s: any) => s.name === 'fifth-list-fails')).toMatchObject({ source: 'defined' });
    const listedHere = await sb.http.get('/_sandbox/scenarios');
    expect(listedHere.body.items.map((s: any) => s.name)).not.toContain('fifth-list-fails');
    const here = await methods().set('x-sandbox-scenario', 'fifth-list-fails');
    expect(here.status).toBe(400);
    expect(here.body.details[0].type).toBe('unknown_scenario');
    expect((await methods('other').set('x-sandbox-scenario', 'fifth-list-fails')).status).toBe(200);
    expect((await sb.http.get('/_sandbox/scenarios/fifth-list-fails')).status).toBe(404);
  });

  it('may replace a file scenario in its namespace only', async () => {
    await define(sb, { name: 'slow', description: 'Not slow here: 502.', operations: '*', respond: { status: 502 } }, 'other');
    const there = await sb.http.get('/ns/other/_sandbox/scenarios/slow');
    expect(there.body).toMatchObject({ source: 'defined', file: null, replaces: 'scenarios/slow.yaml' });
    expect((await methods('other').set('x-sandbox-scenario', 'slow')).status).toBe(502);
    expect((await sb.http.get('/_sandbox/scenarios/slow')).body).toMatchObject({ source: 'built-in', file: 'scenarios/slow.yaml', replaces: null });
    // Deleting the definition brings the file's back in that namespace.
    expect((await sb.http.delete('/ns/other/_sandbox/scenarios/slow')).status).toBe(204);
    expect((await sb.http.get('/ns/other/_sandbox/scenarios/slow')).body.source).toBe('built-in');
  });

  it('is forgotten by a reset, with its activation and counters', async () => {
    await define(sb, FIFTH_LIST_FAILS);
    await activate(sb, ['fifth-list-fails']);
    await methods();
    expect((await sb.http.post('/_sandbox/reset').send({})).status).toBe(200);
    expect((await sb.http.get('/_sandbox/scenarios/fifth-list-fails')).status).toBe(404);
    expect((await sb.http.get('/_sandbox/scenarios/active')).body).toEqual({ active: [], counters: [] });
  });

  it('travels with the namespace state; an export made before definitions existed still imports', async () => {
    await define(sb, FIFTH_LIST_FAILS, 'other');
    await activate(sb, ['fifth-list-fails'], null, 'other');
    for (let i = 0; i < 4; i++) expect((await methods('other')).status).toBe(200);
    const exported = (await sb.http.get('/ns/other/_sandbox/state')).body;
    expect(exported.parts.scenarios.defined).toEqual([FIFTH_LIST_FAILS]);
    expect((await sb.http.put('/ns/moved/_sandbox/state').send(exported)).status).toBe(200);
    expect((await methods('moved')).status).toBe(500); // the 5th call: the sequence came along
    expect((await sb.http.get('/ns/moved/_sandbox/scenarios/fifth-list-fails')).body.counters.matched).toBe(5);

    const { defined: _defined, ...older } = exported.parts.scenarios;
    const oldCursors = older.cursors.map(({ answered: _answered, ...c }: any) => c);
    const res = await sb.http.put('/ns/older/_sandbox/state').send({ ...exported, parts: { ...exported.parts, scenarios: { ...older, cursors: oldCursors } } });
    expect(res.status).toBe(200);
    expect((await sb.http.get('/ns/older/_sandbox/scenarios/fifth-list-fails')).status).toBe(404);
    expect((await sb.http.get('/ns/older/_sandbox/scenarios/active')).body.active).toEqual([]); // its name no longer resolves

    const broken = structuredClone(exported);
    broken.parts.scenarios.defined[0].steps[1].respond.status = 418;
    const refused = await sb.http.put('/ns/broken/_sandbox/state').send(broken);
    expect(refused.status).toBe(400);
    expect(refused.body.details[0]).toMatchObject({ pointer: '/parts/scenarios', type: 'value_error' });
    expect(refused.body.message).toMatch(/defined: \/0\/steps\/1\/respond\/status: 418 is not declared by operation listBuyerPaymentMethods/);
  });

  it('travels with the snapshot as its optional scenarios key', async () => {
    const plain = (await sb.http.get('/_sandbox/snapshot')).body;
    expect(plain.scenarios).toBeUndefined();
    await define(sb, FIFTH_LIST_FAILS);
    const snapshot = (await sb.http.get('/_sandbox/snapshot')).body;
    expect(snapshot.scenarios).toEqual([FIFTH_LIST_FAILS]);
    expect((await sb.http.put('/ns/other/_sandbox/snapshot').send(snapshot)).status).toBe(200);
    expect((await sb.http.get('/ns/other/_sandbox/scenarios/fifth-list-fails')).body.definition).toEqual(FIFTH_LIST_FAILS);
    // Without the key, the namespace's definitions are left as they are.
    expect((await sb.http.put('/ns/other/_sandbox/snapshot').send(plain)).status).toBe(200);
    expect((await sb.http.get('/ns/other/_sandbox/scenarios/fifth-list-fails')).status).toBe(200);
    const bad = await sb.http.put('/ns/other/_sandbox/snapshot').send({ ...plain, scenarios: [{ ...FIFTH_LIST_FAILS, operations: ['nope'] }] });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ location: 'body', pointer: '/scenarios/0/operations/0', type: 'scenario_invalid' });
  });

  it('keeps at most 100 definitions per namespace', async () => {
    for (let i = 0; i < 100; i++) await define(sb, { ...FIFTH_LIST_FAILS, name: `many-${i}` }, 'other');
    const over = await sb.http.post('/ns/other/_sandbox/scenarios').send({ ...FIFTH_LIST_FAILS, name: 'one-too-many' });
    expect(over.status).toBe(400);
    expect(over.body.details[0]).toMatchObject({ pointer: '', type: 'too_many_scenarios' });
    expect((await sb.http.put('/ns/other/_sandbox/scenarios/many-0').send({ ...FIFTH_LIST_FAILS, name: 'many-0' })).status).toBe(200); // replacing is fine
  });
});

describe('--scenarios-dir adds to the built-in scenarios', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox({
      scenariosDir: scenarioDir({
        'slow.yaml': 'name: slow\ndescription: Our slow is a 504.\noperations: "*"\nsteps:\n  - respond: { status: 504 }\n',
        'mine.yaml': 'name: mine\ndescription: Ours.\noperations: [listConnections]\nrespond: { status: 500 }\n',
      }),
    });
  });
  afterAll(() => sb.server.close());

  it('keeps every built-in scenario, adds its own and replaces one of the same name', async () => {
    const items = (await sb.http.get('/_sandbox/scenarios')).body.items;
    expect(items.find((s: any) => s.name === 'slow')).toMatchObject({
      source: 'file',
      file: expect.stringMatching(/slow\.yaml$/),
      replaces: 'scenarios/slow.yaml',
    });
    expect(items.find((s: any) => s.name === 'mine')).toMatchObject({ source: 'file', replaces: null, operations: ['listConnections'] });
    expect(items.find((s: any) => s.name === 'rate-limited')).toMatchObject({ source: 'built-in' });
    const slow = await sb.http.get('/connections').set('authorization', sb.auth).set('x-sandbox-scenario', 'slow');
    expect(slow.status).toBe(504);
    expect(slow.headers['x-sandbox-scenario']).toBe('slow; outside-contract');
  });
});

describe('one schema for files and definitions', () => {
  it('openapi.admin.json ScenarioDefinition is the scenario file schema', () => {
    const admin = JSON.parse(readFileSync(join(packageRoot(), 'openapi.admin.json'), 'utf8'));
    const { description: _description, ...documented } = admin.components.schemas.ScenarioDefinition;
    const { $id: _id, ...schema } = SCENARIO_FILE_SCHEMA;
    expect(documented).toEqual(JSON.parse(JSON.stringify(schema)));
  });
});
