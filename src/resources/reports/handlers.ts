import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import type { ReportRecord } from '../../store/records.js';
import { findOwned } from '../lookup.js';
import type { HandlerMap } from '../types.js';
import { REQUEST_LIFECYCLE } from './lifecycle.js';
import { isValidTimeZone, nextExecutionAt } from './schedule.js';
import { catchUpReports } from './scheduler.js';
import { serializeExecution, serializeReport } from './serialize.js';

export const reportHandlers: HandlerMap = {
  /** Records the calling key pair as creator and computes next_execution_at in the report's zone. */
  createReport(ctx) {
    const { ns, db, body, merchantAccountId, principal, clock, now } = ctx;
    const timeZone: string = body.schedule_timezone ?? 'Etc/UTC';
    if (!isValidTimeZone(timeZone)) {
      throw ApiError.unprocessable([
        {
          loc: ['body', 'schedule_timezone'],
          msg: `'${String(timeZone).slice(0, 100)}' is not an IANA time zone (e.g. Etc/UTC, Europe/Amsterdam).`,
          type: 'value_error',
          input: timeZone,
          ctx: {},
        },
      ]);
    }
    const next = nextExecutionAt(body.schedule, body.schedule_enabled, timeZone, clock.now());
    const pair = principal.keyPair;
    const report: ReportRecord = {
      type: 'report',
      id: randomUUID(),
      merchant_account_id: merchantAccountId,
      name: body.name,
      description: body.description ?? null,
      created_at: now,
      updated_at: now,
      schedule: body.schedule,
      schedule_enabled: body.schedule_enabled,
      schedule_timezone: timeZone,
      spec: { model: body.spec.model, params: body.spec.params },
      creator_id: pair?.id ?? null,
      creator_display_name: pair?.display_name ?? null,
      creator_type: pair ? 'private_key' : null,
      next_execution_at: next === null ? null : new Date(next).toISOString(),
    };
    db.reports.insert(report);
    ctx.announce({ name: 'report.created', collection: 'reports', record: report });
    // A `once` report runs at creation: its execution exists when the response is sent. The response
    // still shows next_execution_at as computed (that run's instant); the stored report then has null.
    catchUpReports(ns, ctx.slot(REQUEST_LIFECYCLE) ?? null);
    return { body: { ...serializeReport(db, report), next_execution_at: next === null ? null : new Date(next).toISOString() } };
  },

  getReportExecution(ctx) {
    const { ns, db, params, merchantAccountId } = ctx;
    catchUpReports(ns, ctx.slot(REQUEST_LIFECYCLE) ?? null); // real-time clock: due runs and statuses catch up on read
    const execution = findOwned(db.report_executions, params.report_execution_id, merchantAccountId, 'Report execution');
    return { body: serializeExecution(db, execution) };
  },
};
