// Scheduled reports create their executions as the clock passes next_execution_at, in their zone.
import { describe, expect, it } from 'vitest';
import { REPORT_BODY } from '../scenarios/helpers.js';
import { type TestSandbox, useTestSandbox } from '../support/sandbox.js';

describe('report schedules driven by the clock', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  let nsCount = 0;
  /** A fresh namespace with its clock frozen at `now`, so each case starts clean. */
  async function at(now: string) {
    const ns = `schedules-${++nsCount}`;
    const res = await sb.http.put('/_sandbox/clock').set('x-sandbox-namespace', ns).send({ now, frozen: true });
    expect(res.body.now).toBe(new Date(now).toISOString());
    const db = () => sb.deps.namespaces.get(ns).store.collections;
    return {
      advance: (duration: string) => sb.http.post('/_sandbox/clock/advance').set('x-sandbox-namespace', ns).send({ duration }),
      create: async (body: object) => {
        const created = await sb.http
          .post('/reports')
          .set('authorization', sb.auth)
          .set('x-sandbox-namespace', ns)
          .send({ ...REPORT_BODY, ...body });
        expect(created.status).toBe(201);
        return created.body;
      },
      runs: (reportId: string) =>
        db()
          .report_executions.where((e) => e.report_id === reportId)
          .map((e) => e.created_at),
      report: (reportId: string) => db().reports.get(reportId)!,
      executions: (reportId: string) => db().report_executions.where((e) => e.report_id === reportId),
    };
  }

  it('runs a daily report once per local midnight crossed, in a zone whose midnight is not UTC', async () => {
    const t = await at('2026-03-10T12:00:00Z'); // 17:30 in Kolkata (UTC+05:30)
    const report = await t.create({ schedule: 'daily', schedule_timezone: 'Asia/Kolkata' });
    expect(report.next_execution_at).toBe('2026-03-10T18:30:00.000Z');
    await t.advance('6h');
    expect(t.runs(report.id)).toEqual([]);
    await t.advance('30m'); // exactly local midnight
    expect(t.runs(report.id)).toEqual(['2026-03-10T18:30:00.000Z']);
    expect(t.report(report.id).next_execution_at).toBe('2026-03-11T18:30:00.000Z');
    const [first] = t.executions(report.id);
    expect(first.context).toEqual({ reference_timestamp: '2026-03-10T18:30:00.000Z', reference_timezone: 'Asia/Kolkata' });
    expect(first.merchant_account_id).toBe('default');
    for (let day = 0; day < 3; day++) await t.advance('1d');
    expect(t.runs(report.id)).toEqual(['2026-03-10T18:30:00.000Z', '2026-03-11T18:30:00.000Z', '2026-03-12T18:30:00.000Z', '2026-03-13T18:30:00.000Z']);
    await t.advance('3d');
    expect(t.runs(report.id)).toHaveLength(7);
    expect(t.report(report.id).next_execution_at).toBe('2026-03-17T18:30:00.000Z');
  });

  it('follows the zone across a daylight saving change', async () => {
    const t = await at('2026-03-06T12:00:00Z');
    const report = await t.create({ schedule: 'daily', schedule_timezone: 'America/New_York' });
    await t.advance('3d');
    // Midnight is 05:00Z in EST and 04:00Z once EDT starts (2026-03-08).
    expect(t.runs(report.id)).toEqual(['2026-03-07T05:00:00.000Z', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z']);
  });

  it('runs weekly reports on local Mondays and monthly reports on the 1st', async () => {
    const t = await at('2026-03-11T12:00:00Z'); // a Wednesday
    const weekly = await t.create({ schedule: 'weekly', schedule_timezone: 'Europe/Amsterdam' });
    const monthly = await t.create({ schedule: 'monthly', schedule_timezone: 'Etc/UTC' });
    await t.advance('3w');
    expect(t.runs(weekly.id)).toEqual(['2026-03-15T23:00:00.000Z', '2026-03-22T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    expect(t.runs(monthly.id)).toEqual(['2026-04-01T00:00:00.000Z']);
    expect(t.report(monthly.id).next_execution_at).toBe('2026-05-01T00:00:00.000Z');
  });

  it('runs a once report once, and a disabled report never', async () => {
    const t = await at('2026-03-10T12:00:00Z');
    const once = await t.create({ schedule: 'once' });
    const disabled = await t.create({ schedule: 'daily', schedule_enabled: false });
    expect(disabled.next_execution_at).toBeNull();
    await t.advance('30d');
    expect(t.runs(once.id)).toEqual(['2026-03-10T12:00:00.000Z']);
    expect(t.report(once.id).next_execution_at).toBeNull();
    expect(t.runs(disabled.id)).toEqual([]);
  });

  it('gives executions created by a clock move the status of the end of the move', async () => {
    const t = await at('2026-03-10T12:00:00Z');
    const report = await t.create({ schedule: 'daily', schedule_timezone: 'Etc/UTC' });
    await t.advance('13h'); // one hour past the run at midnight
    const [run] = t.executions(report.id);
    expect(run).toMatchObject({ created_at: '2026-03-11T00:00:00.000Z', status: 'succeeded', updated_at: '2026-03-11T00:00:30.000Z' });
  });

  it('makes no runs for the years before the namespace began, however far back a report was due', async () => {
    const t = await at('2026-03-10T12:00:00Z');
    const ns = `schedules-${nsCount}`;
    const report = await t.create({ schedule: 'daily', schedule_timezone: 'Asia/Kolkata' });
    // As a seeded report or an imported state may hold: due years before this namespace's clock began.
    const patched = await sb.http
      .patch(`/_sandbox/records/reports/${report.id}`)
      .set('x-sandbox-namespace', ns)
      .send({ next_execution_at: '2019-01-01T00:00:00.000Z' });
    expect(patched.status).toBe(200);
    await t.advance('1h'); // 18:30 in Kolkata: before its midnight
    expect(t.runs(report.id)).toEqual([]);
    expect(t.report(report.id).next_execution_at).toBe('2026-03-10T18:30:00.000Z');
    await t.advance('6h');
    expect(t.runs(report.id)).toEqual(['2026-03-10T18:30:00.000Z']);
    expect(t.report(report.id).next_execution_at).toBe('2026-03-11T18:30:00.000Z');
  });

  it('runs nothing when the clock goes back, and runs again when it passes the next run', async () => {
    const t = await at('2026-03-10T12:00:00Z');
    const report = await t.create({ schedule: 'daily', schedule_timezone: 'Etc/UTC' });
    await t.advance('1d');
    expect(t.runs(report.id)).toHaveLength(1);
    const ns = `schedules-${nsCount}`;
    await sb.http.put('/_sandbox/clock').set('x-sandbox-namespace', ns).send({ now: '2026-03-01T00:00:00Z' });
    expect(t.runs(report.id)).toHaveLength(1);
    expect(t.report(report.id).next_execution_at).toBe('2026-03-12T00:00:00.000Z');
    await t.advance('11d');
    expect(t.runs(report.id)).toEqual(['2026-03-11T00:00:00.000Z', '2026-03-12T00:00:00.000Z']);
  });
});
