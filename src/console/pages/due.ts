// What the namespace clock will reach next: scheduled report runs, report execution status
// changes and webhook attempts waiting (retries, or first attempts a delay holds back), read from
// what GET /_sandbox/records and GET /_sandbox/webhooks/deliveries answer. Pure.

export interface DueItem {
  atMs: number;
  /** What happens then, in a few words. */
  what: string;
  /** The record it concerns. */
  id: string;
  /** Where the console shows it: a console page and its query. */
  link: string;
}

interface ReportLike {
  id: string;
  name?: string;
  schedule?: string;
  schedule_enabled?: boolean;
  next_execution_at?: string | null;
}

interface ExecutionLike {
  id: string;
  report_id?: string;
  status: string;
  created_at: string;
  updated_at: string;
  lifecycle?: { path?: unknown; durations_ms?: unknown } | null;
}

interface DeliveryLike {
  id: string;
  event_name: string;
  status: string;
  url: string | null;
  attempts: readonly unknown[];
  next_attempt_at: string | null;
}

export interface DueSources {
  reports: readonly ReportLike[];
  executions: readonly ExecutionLike[];
  deliveries: readonly DeliveryLike[];
}

const recordLink = (collection: string, id: string) => `records?collection=${collection}&id=${encodeURIComponent(id)}`;

/** The next `limit` things due at or after `nowMs`, soonest first. */
export function dueNext(sources: DueSources, nowMs: number, limit = 10): DueItem[] {
  const { reports, executions, deliveries } = sources;
  const names = new Map(reports.map((r) => [r.id, r.name ?? r.id]));
  const due: DueItem[] = [];
  for (const report of reports) {
    if (!report.schedule_enabled || !report.next_execution_at) continue;
    const at = Date.parse(report.next_execution_at);
    if (Number.isFinite(at))
      due.push({
        atMs: at,
        what: `Report "${report.name ?? report.id}" runs (${report.schedule ?? 'scheduled'})`,
        id: report.id,
        link: recordLink('reports', report.id),
      });
  }
  for (const execution of executions) {
    const next = nextTransition(execution);
    if (!next) continue;
    const report = execution.report_id ? ` of report "${names.get(execution.report_id) ?? execution.report_id}"` : '';
    due.push({
      atMs: next.atMs,
      what: `Execution${report} goes ${execution.status} → ${next.status}`,
      id: execution.id,
      link: recordLink('report_executions', execution.id),
    });
  }
  for (const delivery of deliveries) {
    const at = delivery.status === 'pending' && delivery.next_attempt_at ? Date.parse(delivery.next_attempt_at) : Number.NaN;
    if (!Number.isFinite(at)) continue;
    const attempt = delivery.attempts.length + 1;
    const to = delivery.url ?? 'a subscription that no longer exists';
    due.push({
      atMs: at,
      what: `Webhook ${delivery.event_name} to ${to}: ${attempt === 1 ? 'first attempt' : `retry, attempt ${attempt}`}`,
      id: delivery.id,
      link: `webhooks?delivery=${encodeURIComponent(delivery.id)}`,
    });
  }
  return due
    .filter((d) => d.atMs >= nowMs)
    .sort((a, b) => a.atMs - b.atMs)
    .slice(0, limit);
}

/** When an execution following a plan leaves its status, and for which; null when it stays (final, or no plan). */
function nextTransition(execution: ExecutionLike): { atMs: number; status: string } | null {
  const path = execution.lifecycle?.path;
  const durations = execution.lifecycle?.durations_ms;
  if (!Array.isArray(path) || !Array.isArray(durations)) return null;
  const index = path.indexOf(execution.status);
  if (index < 0 || index >= path.length - 1 || typeof durations[index] !== 'number') return null;
  return { atMs: Date.parse(execution.updated_at) + durations[index], status: String(path[index + 1]) };
}
