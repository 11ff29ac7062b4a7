import type { ReportExecutionRecord, ReportRecord } from '../../store/records.js';
import type { CollectionMap } from '../../store/store.js';
import { compareStrings } from '../compare.js';

export function executionSummary(e: ReportExecutionRecord) {
  return { type: 'report-execution' as const, id: e.id, created_at: e.created_at, updated_at: e.updated_at, status: e.status, context: e.context };
}

export function latestExecution(db: CollectionMap, reportId: string): ReportExecutionRecord | null {
  let latest: ReportExecutionRecord | null = null;
  // Ties (several runs created at one instant) go to the one created last.
  for (const e of db.report_executions.all()) {
    if (e.report_id === reportId && (!latest || compareStrings(e.created_at, latest.created_at) >= 0)) latest = e;
  }
  return latest;
}

export function serializeReport(db: CollectionMap, r: ReportRecord) {
  const latest = latestExecution(db, r.id);
  return {
    type: 'report' as const,
    id: r.id,
    merchant_account_id: r.merchant_account_id,
    name: r.name,
    description: r.description,
    created_at: r.created_at,
    updated_at: r.updated_at,
    schedule: r.schedule,
    schedule_enabled: r.schedule_enabled,
    schedule_timezone: r.schedule_timezone,
    spec: r.spec,
    creator_id: r.creator_id,
    creator_display_name: r.creator_display_name,
    creator_type: r.creator_type,
    next_execution_at: r.next_execution_at,
    latest_execution: latest ? executionSummary(latest) : null,
  };
}

export function serializeExecution(db: CollectionMap, e: ReportExecutionRecord) {
  const report = db.reports.get(e.report_id);
  return {
    ...executionSummary(e),
    report: {
      type: 'report' as const,
      id: e.report_id,
      merchant_account_id: e.merchant_account_id,
      name: report?.name ?? 'Deleted report',
      creator_id: report?.creator_id ?? null,
      creator_display_name: report?.creator_display_name ?? null,
      creator_type: report?.creator_type ?? null,
    },
  };
}
