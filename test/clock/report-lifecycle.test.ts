// Report executions move through their states with the sandbox clock; scenarios change the path.
import { beforeEach, describe, expect, it } from 'vitest';
import { activate, REPORT_BODY } from '../scenarios/helpers.js';
import { type TestSandbox, useTestSandbox } from '../support/sandbox.js';

const T0 = '2026-03-10T12:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

describe('report execution lifecycle', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));
  beforeEach(async () => {
    await sb.http.delete('/_sandbox/scenarios/active');
    await sb.http.put('/_sandbox/clock').send({ now: T0, frozen: true });
  });
  const db = () => sb.deps.namespaces.get('default').store.collections;
  const advance = (ms: number) => sb.http.post('/_sandbox/clock/advance').send({ ms });
  const execution = (id: string, merchant = 'default') =>
    sb.http.get(`/report-executions/${id}`).set('authorization', sb.auth).set('x-service-merchant-account-id', merchant);
  async function runOnce(headers: Record<string, string> = {}, merchant = 'default'): Promise<string> {
    const res = await sb.http.post('/reports').set('authorization', sb.auth).set('x-service-merchant-account-id', merchant).set(headers).send(REPORT_BODY);
    expect(res.status).toBe(201);
    return res.body.latest_execution.id;
  }

  it('a once report runs at creation; the response shows the run', async () => {
    const res = await sb.http.post('/reports').set('authorization', sb.auth).send(REPORT_BODY);
    expect(res.body.next_execution_at).toBe(T0);
    expect(res.body.latest_execution).toEqual({
      type: 'report-execution',
      id: res.body.latest_execution.id,
      created_at: T0,
      updated_at: T0,
      status: 'pending',
      context: { reference_timestamp: T0, reference_timezone: 'Etc/UTC' },
    });
    expect(db().reports.get(res.body.id)!.next_execution_at).toBeNull();
    await advance(86_400_000);
    expect(db().report_executions.where((e) => e.report_id === res.body.id)).toHaveLength(1);
  });

  it('goes pending -> dispatched -> processing -> succeeded after 5 s, 5 s and 20 s', async () => {
    const id = await runOnce();
    const steps: Array<[number, string, number]> = [
      [4_999, 'pending', 0],
      [1, 'dispatched', 5_000],
      [4_999, 'dispatched', 5_000],
      [1, 'processing', 10_000],
      [19_999, 'processing', 10_000],
      [1, 'succeeded', 30_000],
      [86_400_000, 'succeeded', 30_000],
    ];
    for (const [move, status, since] of steps) {
      await advance(move);
      const res = await execution(id);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
      expect(res.body.updated_at).toBe(at(since));
      expect(res.body.created_at).toBe(T0);
    }
  });

  it('updates the stored status when the clock moves, before any read', async () => {
    const id = await runOnce();
    await advance(12_000);
    expect(db().report_executions.get(id)).toMatchObject({ status: 'processing', updated_at: at(10_000) });
  });

  it('report-execution-fails (header) ends failed', async () => {
    const id = await runOnce({ 'x-sandbox-scenario': 'report-execution-fails' });
    await advance(10_000);
    expect((await execution(id)).body.status).toBe('processing');
    await advance(20_000);
    const res = await execution(id);
    expect(res.body).toMatchObject({ status: 'failed', updated_at: at(30_000) });
    expect(db().report_executions.get(id)!.lifecycle).toEqual({ path: ['pending', 'dispatched', 'processing', 'failed'], durations_ms: [5000, 5000, 20000] });
  });

  it('report-execution-stays-pending (header) never leaves pending', async () => {
    const id = await runOnce({ 'x-sandbox-scenario': 'report-execution-stays-pending' });
    await advance(365 * 86_400_000);
    expect((await execution(id)).body).toMatchObject({ status: 'pending', updated_at: T0 });
  });

  it('a lifecycle is fixed when the execution is created', async () => {
    const id = await runOnce();
    await advance(40_000);
    const res = await execution(id).set('x-sandbox-scenario', 'report-execution-fails');
    expect(res.body.status).toBe('succeeded');
  });

  it('scenarios activated for one merchant account shape only its executions', async () => {
    await activate(sb, ['report-execution-fails'], 'merchant-two');
    const failing = await runOnce({}, 'merchant-two');
    const normal = await runOnce({}, 'default');
    await advance(60_000);
    expect((await execution(failing, 'merchant-two')).body.status).toBe('failed');
    expect((await execution(normal)).body.status).toBe('succeeded');
  });

  it('activated for everything, it shapes executions that schedules create later', async () => {
    const daily = await sb.http
      .post('/reports')
      .set('authorization', sb.auth)
      .send({ ...REPORT_BODY, schedule: 'daily' });
    expect(daily.body.latest_execution).toBeNull();
    await activate(sb, ['report-execution-stays-pending']);
    await advance(86_400_000);
    const runs = db().report_executions.where((e) => e.report_id === daily.body.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'pending', created_at: '2026-03-11T00:00:00.000Z', lifecycle: { path: ['pending'], durations_ms: [] } });
  });
});
