// In real-time mode (the default) time-driven state catches up lazily on reads. Only the Date of
// this test process is faked (vi.setSystemTime), so the wall clock moves without waiting.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPORT_BODY } from '../scenarios/helpers.js';
import { startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';

const DAILY = WELL_KNOWN.reports.daily.id; // Europe/Amsterdam: local midnight is 23:00Z in winter

describe('real-time catch-up on reads', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-20T10:00:00.000Z'));
    sb = await startTestSandbox();
  });
  afterAll(() => {
    sb.server.close();
    vi.useRealTimers();
  });
  const db = () => sb.deps.namespaces.get('default').store.collections;
  const read = async (id: string) => sb.http.get(`/report-executions/${id}`).set('authorization', `Bearer ${await tokenFor('admin')}`);
  const runsOf = (reportId: string) => db().report_executions.where((e) => e.report_id === reportId);

  it('does not replay runs that fell due before the sandbox started', async () => {
    const seeded = runsOf(DAILY).length;
    expect(Date.parse(db().reports.get(DAILY)!.next_execution_at!)).toBeLessThan(Date.now());
    const res = await read(WELL_KNOWN.reportExecutions.pending.id);
    expect(res.status).toBe(200);
    expect(runsOf(DAILY)).toHaveLength(seeded);
    expect(db().reports.get(DAILY)!.next_execution_at).toBe('2026-11-20T23:00:00.000Z');
  });

  it('creates the runs the wall clock passed, on the next read', async () => {
    const seeded = runsOf(DAILY).length;
    vi.setSystemTime(new Date('2026-11-22T10:00:00.000Z'));
    await read(WELL_KNOWN.reportExecutions.pending.id);
    const created = runsOf(DAILY).slice(seeded);
    expect(created.map((e) => [e.created_at, e.status, e.context.reference_timezone])).toEqual([
      ['2026-11-20T23:00:00.000Z', 'succeeded', 'Europe/Amsterdam'],
      ['2026-11-21T23:00:00.000Z', 'succeeded', 'Europe/Amsterdam'],
    ]);
    expect(db().reports.get(DAILY)!.next_execution_at).toBe('2026-11-22T23:00:00.000Z');
  });

  it('moves execution statuses on read as the wall clock runs', async () => {
    const created = await sb.http
      .post('/reports')
      .set('authorization', `Bearer ${await tokenFor('admin')}`)
      .send(REPORT_BODY);
    const id = created.body.latest_execution.id;
    expect((await read(id)).body.status).toBe('pending');
    vi.setSystemTime(new Date(Date.now() + 6_000));
    expect((await read(id)).body.status).toBe('dispatched');
    vi.setSystemTime(new Date(Date.now() + 60_000));
    const done = await read(id);
    expect(done.body.status).toBe('succeeded');
    expect(done.body.updated_at).toBe(new Date(Date.parse(created.body.created_at) + 30_000).toISOString());
  });
});
