// The journal's filters (GET /_sandbox/journal?method=&path=&status=..., and a follower's): tests
// of an entry's few fields, compiled once per request.
import type { JournalSummary } from './entry.js';

export interface JournalFilter {
  method?: string;
  /** Exact API path, or a pattern where `*` matches any run of characters. */
  path?: string;
  operation_id?: string;
  /** 404, or a class such as 4xx. */
  status?: string;
  /** The scenario that answered or shaped the response. */
  scenario?: string;
  merchant_account_id?: string;
}

/** What a filter tests of an entry. */
export type FilteredFields = Pick<JournalSummary, 'method' | 'path' | 'status' | 'operation_id' | 'scenario' | 'merchant_account_id'>;

/** The filter as a test of entries, its path pattern compiled once (a journal holds thousands of entries). */
export function entryFilter(filter: JournalFilter): (entry: FilteredFields) => boolean {
  const method = filter.method?.toUpperCase();
  const { operation_id: operationId, scenario, merchant_account_id: merchantAccountId, status } = filter;
  const path = filter.path ? pathTest(filter.path) : null;
  return (entry) =>
    (!method || entry.method === method) &&
    (!operationId || entry.operation_id === operationId) &&
    (!scenario || entry.scenario === scenario) &&
    (!merchantAccountId || entry.merchant_account_id === merchantAccountId) &&
    (!path || path(entry.path)) &&
    (!status || statusMatches(status, entry.status));
}

/** An exact path, or a pattern where `*` matches any run of characters. */
function pathTest(pattern: string): (path: string) => boolean {
  if (!pattern.includes('*')) return (path) => path === pattern;
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (path) => regex.test(path);
}

function statusMatches(wanted: string, status: number): boolean {
  const cls = /^([1-5])xx$/i.exec(wanted);
  return cls ? Math.floor(status / 100) === Number(cls[1]) : Number(wanted) === status;
}
