// What a stop leaves behind with --upstream, in --report-dir (default: the current folder), for each
// mode that was on at any time (a running sandbox may switch; nothing when it stayed off):
// compare mode: compare-report.json and compare-report.txt (the summary, also printed on stderr);
// record mode: recording.har (the journal's exchanges, redacted as the journal redacts) and
// recording.data.json (a data file --data-file starts from), with recording.left-out.json when
// some records seen could not go in it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { recordingDataFile, recordingHar } from '../admin/upstream.js';
import type { SandboxDeps } from '../sandbox.js';
import { compareReport, reportSummary } from '../upstream/report.js';

/** Exit code of a stop that found contract drift with --fail-on-drift. */
export const DRIFT_EXIT_CODE = 3;

export interface WrittenFiles {
  files: string[];
  /** The summary to print (compare mode). */
  summary: string | null;
  drift: boolean;
}

export function writeUpstreamFiles(deps: SandboxDeps, cwd: string): WrittenFiles | null {
  const upstream = deps.upstream;
  if (!upstream || upstream.modesUsed().length === 0) return null;
  const dir = resolve(cwd, deps.config.reportDir ?? '.');
  mkdirSync(dir, { recursive: true });
  const write = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 }); // a recording is the user's API traffic: theirs alone
    return path;
  };
  const written: WrittenFiles = { files: [], summary: null, drift: false };
  if (upstream.wasOn('compare')) {
    const report = compareReport(upstream);
    written.summary = reportSummary(report);
    written.drift = report.drift;
    written.files.push(write('compare-report.json', `${JSON.stringify(report, null, 2)}\n`), write('compare-report.txt', written.summary));
  }
  if (upstream.wasOn('record')) {
    const { data, left_out } = recordingDataFile(deps.admin.deps);
    written.files.push(
      write('recording.har', `${JSON.stringify(recordingHar(deps.admin.deps), null, 2)}\n`),
      write('recording.data.json', `${JSON.stringify(data, null, 2)}\n`),
    );
    if (left_out.length) written.files.push(write('recording.left-out.json', `${JSON.stringify(left_out, null, 2)}\n`));
  }
  return written;
}
