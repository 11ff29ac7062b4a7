// GET and PUT /_sandbox/upstream (the upstream's address and its mode, switched while the sandbox
// runs), GET /_sandbox/upstream/report (compare mode) and GET /_sandbox/upstream/recording (record
// mode): what --upstream is, found or saw, across namespaces, so served at the root only.
import { ApiError } from '../errors/api-error.js';
import type { JournalEntry } from '../journal/entry.js';
import { toHar } from '../journal/har.js';
import { JOURNAL } from '../journal/journal.js';
import { compareReport, reportSummary } from '../upstream/report.js';
import type { Upstream, UpstreamMode } from '../upstream/upstream.js';
import { recordedDataFile } from './recording.js';
import { onlyAtRoot } from './scope.js';
import type { AdminContext, AdminDeps, AdminHandlerMap } from './types.js';

export const upstreamHandlers: AdminHandlerMap = {
  getUpstream(ctx) {
    onlyAtRoot(ctx, "The upstream's mode");
    return { body: upstreamState(configured(ctx)) };
  },

  setUpstreamMode(ctx) {
    onlyAtRoot(ctx, "The upstream's mode");
    const upstream = configured(ctx);
    const from = upstream.mode;
    const to = ctx.body.mode as UpstreamMode; // one of the modes: validated against openapi.admin.json
    upstream.switchTo(to);
    // Whoever runs a shared sandbox sees in its log when, and to what, the mode changed.
    if (to !== from) ctx.deps.logger.info({ event: 'upstream-mode', from, to }, `upstream mode switched: ${from} -> ${to}`);
    return { body: upstreamState(upstream) };
  },

  getCompareReport(ctx) {
    onlyAtRoot(ctx, 'The compare report (every namespace)');
    const report = compareReport(upstreamIn(ctx, 'compare', '--upstream URL --compare'));
    const status = ctx.query.fail_on_drift && report.drift ? 409 : 200;
    if (ctx.query.format === 'text') {
      return { response: new Response(reportSummary(report), { status, headers: { 'content-type': 'text/plain; charset=utf-8' } }) };
    }
    return { status, body: report };
  },

  getRecording(ctx) {
    onlyAtRoot(ctx, 'The recording (every namespace)');
    upstreamIn(ctx, 'record', 'the record command (payments-sandbox record --upstream URL)');
    return { body: ctx.query.format === 'data-file' ? recordingDataFile(ctx.deps).data : recordingHar(ctx.deps) };
  },
};

/** The upstream as GET and PUT /_sandbox/upstream show it. */
function upstreamState(upstream: Upstream) {
  const { url, compareWrites, timeoutMs } = upstream.options;
  return { url, mode: upstream.mode, compare_writes: compareWrites, timeout_ms: timeoutMs, modes_used: upstream.modesUsed() };
}

function configured(ctx: AdminContext): Upstream {
  const upstream = ctx.deps.upstream;
  if (!upstream)
    throw ApiError.notFound(
      "This sandbox has no upstream: start it with --upstream URL (the real service's address) to switch between off, record and compare.",
    );
  return upstream;
}

/** The upstream, when `mode` was on at some time since start (its report or recording exists). */
function upstreamIn(ctx: AdminContext, mode: 'compare' | 'record', started: string): Upstream {
  const upstream = ctx.deps.upstream;
  if (!upstream?.wasOn(mode)) {
    const switchOn = upstream ? ` or switch it on: PUT /_sandbox/upstream {"mode": "${mode}"}` : '';
    throw ApiError.notFound(`This sandbox does not ${mode}: start it with ${started}${switchOn}.`);
  }
  return upstream;
}

/**
 * Every namespace's journal as one HAR log: the exchanges the upstream answered (not those the
 * sandbox answered while record mode was off), redacted as the journal redacts.
 */
export function recordingHar(deps: AdminDeps): unknown {
  const entries = deps.namespaces
    .list()
    .flatMap((ns) => (ns.existingPart(JOURNAL)?.entries() ?? []) as JournalEntry[])
    .filter((entry) => entry.answered_by === 'upstream')
    .sort((a, b) => b.timestamp.localeCompare(a.timestamp));
  return toHar(entries, { name: 'payments-sandbox record', version: deps.version });
}

/** The data file of what was seen, and the records left out of it with why (a stop writes them beside it). */
export function recordingDataFile(deps: AdminDeps): { data: unknown; left_out: unknown[] } {
  const base = deps.namespaces.list().find((ns) => ns.name === 'default') ?? deps.namespaces.list()[0];
  const { data, leftOut } = recordedDataFile(deps.adminSpec, base.store.data, deps.upstream?.seen.list() ?? []);
  return { data, left_out: leftOut };
}
