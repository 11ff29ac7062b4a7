// The Scenarios page over HTTP: the definitions form (its cases, the error slots naming the
// pointers the control API's 400s use), the definitions it writes accepted by the control API, the
// catalog with where each scenario comes from, its operations and counters, replacing and deleting
// a definition, activation limits; and the Requests page's detail of a scenario answer outside the
// contract or with its answer lost.
import { describe, expect, it } from 'vitest';
import { COMMON_CASES, commonDefinition } from '../../src/console/client/scenario-definition.js';
import { type TestSandbox, useTestSandbox } from '../support/sandbox.js';

describe('the Scenarios page', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  const page = async (ns: string, query = '') => {
    const res = await sb.http.get(`/ns/${ns}/_sandbox/console/parts/scenarios${query}`);
    expect(res.status).toBe(200);
    return res.text;
  };
  const listMethods = (ns: string) => sb.http.get(`/ns/${ns}/buyers/payment-methods`).set('authorization', sb.auth);

  it('has a form for the common cases whose fields take the pointers of the API problems, and a JSON editor', async () => {
    await sb.http.get('/ns/s1/_sandbox/health').expect(200);
    const html = await page('s1');
    expect(html).toContain('<form id="scenario-form" class="api-form" data-api="POST /ns/s1/_sandbox/scenarios"');
    expect(html).toContain('data-build="scenario"');
    for (const [kind, label] of COMMON_CASES) expect(html).toContain(`<label for="case-${kind}">${label}</label>`);
    expect(html).toContain('<input type="radio" id="case-nth-call" name="kind" value="nth-call" checked=""');
    const operations = [...html.matchAll(/<select id="scenario-operation"[^>]*>(.*?)<\/select>/gs)][0][1];
    expect([...operations.matchAll(/<option value="(\w+)">/g)].map((m) => m[1])).toEqual(sb.deps.api.spec.operations.map((op) => op.id).sort());
    const slots = Object.fromEntries([...html.matchAll(/<span class="field-error" id="([\w-]+)-error" data-error-for="([^"]+)"/g)].map((m) => [m[1], m[2]]));
    expect(slots).toMatchObject({
      'scenario-operation': '/operations',
      'scenario-status': '/respond',
      'scenario-call': '/calls',
      'scenario-delay-ms': '/delay_ms',
      'scenario-name': '/name',
      'scenario-description': '/description',
      'scenario-definition': '* /definition',
    });
    // Fields of the other cases are hidden until their case is chosen.
    expect(html).toMatch(/<div data-kinds="delay" hidden="">\s*<div class="field"><label for="scenario-delay-ms">/);
    expect(html).toContain('<form id="scenario-json-form" class="api-form" data-api="POST /ns/s1/_sandbox/scenarios"');
    expect(html).toContain('<pre class="json" id="definition-preview" tabindex="0"></pre>');
  });

  it('writes definitions the control API takes, each applying to what it says', async () => {
    const fields = { operation: 'listBuyerPaymentMethods', status: '500', call: '2', delay_ms: '250', name: '', description: '' };
    const applies: Record<string, string[]> = {
      'nth-call': ['listBuyerPaymentMethods'],
      delay: ['listBuyerPaymentMethods'],
      'report-executions-fail': ['createReport', 'getReportExecution'],
    };
    for (const [kind] of COMMON_CASES) {
      const definition = commonDefinition({ ...fields, kind });
      const res = await sb.http.post('/ns/s2/_sandbox/scenarios').send(definition);
      expect(res.status, kind).toBe(201);
      expect(res.body.definition).toEqual(definition);
      expect(res.body.operations).toEqual(applies[kind]);
    }
  });

  it('lists where each scenario comes from, what it does, its operations and its counters; a definition can be edited and deleted', async () => {
    const definition = commonDefinition({
      kind: 'nth-call',
      operation: 'listBuyerPaymentMethods',
      status: '500',
      call: '2',
      delay_ms: '',
      name: '',
      description: '',
    });
    await sb.http.post('/ns/s3/_sandbox/scenarios').send(definition).expect(201);
    await sb.http.put('/ns/s3/_sandbox/clock').send({ now: '2026-11-22T10:00:00Z', frozen: true }).expect(200);
    await sb.http
      .put('/ns/s3/_sandbox/scenarios/active')
      .send({ scenarios: [definition.name, 'slow'], ttl: 30, max_calls: 5 })
      .expect(200);
    expect((await listMethods('s3')).status).toBe(200);
    expect((await listMethods('s3')).status).toBe(500);
    await sb.http
      .put('/ns/s3/_sandbox/scenarios/slow')
      .send({ name: 'slow', description: 'Not slow here.', operations: ['listGiftCards'], pass: true })
      .expect(201);
    await sb.http
      .post('/ns/s3/_sandbox/scenarios')
      .send({ name: 'hooks-steered', description: 'Buyer notifications late, twice, backwards.', webhooks: { delay_ms: 60000, duplicate: 2, reorder: true } })
      .expect(201);

    const html = await page('s3');
    const row = (name: string) => new RegExp(`<tr data-scenario="${name}">(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    const mine = row(definition.name as string);
    expect(mine).toContain('<td>defined here</td>');
    expect(mine).toContain(
      'The 2nd call of listBuyerPaymentMethods answers 500; the others run normally.<br/><span class="muted">pass ×1, then answer 500 ×1, then pass</span>',
    );
    expect(mine).toContain('<td>listBuyerPaymentMethods</td>');
    expect(mine).toContain('<td class="num">2 / 1</td>');
    // Deactivating it keeps what is left of the activation's limits for the others (the clock is frozen: 30 s left; 3 calls of 5).
    expect(mine).toContain(
      `id="toggle-${definition.name}" aria-label="Deactivate ${definition.name}" data-api="PUT /ns/s3/_sandbox/scenarios/active" data-json="{&quot;scenarios&quot;:[&quot;slow&quot;],&quot;merchant_account_id&quot;:null,&quot;ttl&quot;:30,&quot;max_calls&quot;:3}"`,
    );
    expect(mine).toContain(`data-edit-definition="${JSON.stringify(definition).replaceAll('"', '&quot;')}" aria-label="Edit ${definition.name} as JSON"`);
    expect(mine).toContain(`data-api="DELETE /ns/s3/_sandbox/scenarios/${definition.name}"`);
    expect(row('slow')).toContain('defined here<span class="muted"> (replaces scenarios/slow.yaml)</span>');
    expect(row('server-error')).toContain('built-in <span class="muted">scenarios/server-error.yaml</span>');
    expect(row('server-error')).toContain(`<summary>every operation (${sb.deps.api.spec.operations.length})</summary>`);
    expect(row('server-error')).toContain('aria-label="Edit server-error as JSON, to replace it in this namespace"');
    expect(row('server-error')).not.toContain('DELETE'); // a file's scenario is not deleted, only replaced here
    expect(row('report-execution-fails')).toContain('report executions go pending → dispatched → processing → failed');
    expect(row('hooks-steered')).toContain('<span class="muted">pass; webhook deliveries 60000 ms late, ×2, newest first</span>');

    // Active with its limits; the counters per merchant account; the activation form ticks what is active, first.
    expect(html).toContain(
      `For every merchant account: <code>${definition.name}</code><code>slow</code><span class="muted"> (for 30 s, until <time datetime="2026-11-22T10:00:30.000Z">2026-11-22 10:00:30Z</time>; at most 5 calls, 2 taken)</span>`,
    );
    expect(html).toMatch(
      new RegExp(`<tr><td><code>${definition.name}</code></td><td>default</td><td class="num">3 of 3</td><td class="num">2</td><td class="num">1</td></tr>`),
    );
    const boxes = [
      ...html.matchAll(/<input type="checkbox" id="activate-\d+" name="scenarios" value="([\w.-]+)" data-type="list" data-keep-empty="true"( checked="")?/g),
    ];
    expect(boxes.slice(0, 3).map((m) => [m[1], Boolean(m[2])])).toEqual([
      [definition.name, true],
      ['slow', true],
      ['bad-gateway', false],
    ]);
    expect(html).toContain('<input type="hidden" name="merchant_account_id" value=""/>');

    // The same through the control API that the page reads.
    const detail = (await sb.http.get(`/ns/s3/_sandbox/scenarios/${definition.name}`).expect(200)).body;
    expect(detail.counters).toEqual({ matched: 2, answered: 1, merchant_accounts: [{ merchant_account_id: 'default', step: 2, matched: 2, answered: 1 }] });
  });

  it('activates for the merchant account chosen', async () => {
    await sb.http
      .put('/ns/s4/_sandbox/scenarios/active')
      .send({ scenarios: ['flaky'], merchant_account_id: 'merchant-two' })
      .expect(200);
    const html = await page('s4', '?for=merchant-two');
    expect(html).toContain('<input type="hidden" name="merchant_account_id" value="merchant-two"/>');
    expect(html).toContain('<legend>Active for merchant account merchant-two (the first ticked that applies to a call answers it)</legend>');
    expect(html).toMatch(/name="scenarios" value="flaky" data-type="list" data-keep-empty="true" checked=""/);
    expect(html).toContain('data-json="{&quot;scenarios&quot;:[&quot;flaky&quot;,&quot;slow&quot;],&quot;merchant_account_id&quot;:&quot;merchant-two&quot;}"');
    const all = await page('s4');
    expect(all).not.toMatch(/name="scenarios" value="flaky" data-type="list" data-keep-empty="true" checked=""/); // not active for every account
  });

  it("shows a request's answer outside the contract, and an answer lost with what the operation answered", async () => {
    await sb.http.get('/ns/s5/connections').set('authorization', sb.auth).set('x-sandbox-scenario', 'server-error').expect(500);
    await sb.http
      .post('/ns/s5/_sandbox/scenarios')
      .send({ name: 'lost', description: 'The report is made, its answer lost.', operations: ['createReport'], lose_answer: {} })
      .expect(201);
    await sb.http
      .post('/ns/s5/reports')
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'lost')
      .send({ name: 'Lost', schedule: 'once', schedule_enabled: false, spec: { model: 'transactions', params: {} } })
      .expect(504);
    const [lost, outside] = (await sb.http.get('/ns/s5/_sandbox/requests').expect(200)).body.items;
    expect(outside).toMatchObject({ status: 500, outside_contract: true, merchant_account_id: 'default' });
    expect(lost).toMatchObject({ status: 504, lost_answer: { status: 201 } });

    const outsideHtml = (await sb.http.get(`/ns/s5/_sandbox/console/parts/requests/entry?id=${outside.id}`).expect(200)).text;
    expect(outsideHtml).toContain('<dd>server-error <span class="badge outside">outside the contract</span>');
    expect(outsideHtml).toContain('500 is not a status this operation declares');
    expect(outsideHtml).toContain('<dt>Merchant account</dt><dd>default</dd>');
    expect(outsideHtml).not.toContain('Answer lost');

    const lostHtml = (await sb.http.get(`/ns/s5/_sandbox/console/parts/requests/entry?id=${lost.id}`).expect(200)).text;
    expect(lostHtml).toContain('<h3 id="lost-title">Answer lost</h3>');
    expect(lostHtml).toContain('the client got <strong>504</strong>, the operation had answered <strong>201</strong>.');
    expect(lostHtml).toContain('aria-label="The answer that was lost"');
    expect(lostHtml).toContain(`&quot;id&quot;: &quot;${lost.lost_answer.body.id}&quot;`);
    expect(lostHtml).not.toContain('outside the contract'); // createReport declares 504
    // The report was made.
    expect((await sb.http.get(`/ns/s5/_sandbox/records/reports/${lost.lost_answer.body.id}`)).status).toBe(200);
  });
});
