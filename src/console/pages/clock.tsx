// Clock: the namespace clock (GET /_sandbox/clock), moved through PUT/DELETE /_sandbox/clock and
// POST /_sandbox/clock/advance; what falls due next (report runs, execution status changes, webhook
// retries), and the newest report executions, so a tester sees time-driven state move as the clock does.
import { PageHeading } from '../layout.js';
import { consolePath, controlPath, controlRead } from '../read.js';
import type { ConsolePage, ConsoleView } from '../types.js';
import { ApiButton, ApiForm, Field, Instant, Note, relative, TableHead } from '../ui.js';
import { dueNext } from './due.js';

interface ClockBody {
  now: string;
  frozen: boolean;
  offset_ms: number;
  wall_clock: string;
}

/** Every record of a collection as stored (the newest last): two reads when there are more than a page. */
async function allRecords(view: ConsoleView, collection: string): Promise<any[]> {
  const read = (offset: number) => controlRead(view, 'listRecords', { params: { collection }, query: { limit: 1000, offset, shape: 'stored' } });
  const first = await read(0);
  if (first.total <= first.items.length) return first.items;
  return [...first.items, ...(await read(Math.max(first.items.length, first.total - 1000))).items];
}

/** How far the namespace clock is from the wall clock: "1 d 2 h ahead", "3 h behind", "the same" (within a second). */
function offsetText(offsetMs: number): string {
  if (Math.abs(offsetMs) < 1000) return 'the same';
  const amount = relative(0, Math.abs(offsetMs)).replace(/^in /, '');
  return offsetMs > 0 ? `${amount} ahead` : `${amount} behind`;
}

const STEPS: Array<[duration: string, label: string]> = [
  ['1m', 'Advance 1 minute'],
  ['1h', 'Advance 1 hour'],
  ['1d', 'Advance 1 day'],
];

export const clockPage: ConsolePage = {
  slug: 'clock',
  title: 'Clock',
  summary: "The namespace's clock: move it, freeze it, and see what falls due.",

  async render(view) {
    const clock: ClockBody = await controlRead(view, 'getClock');
    const reports = await allRecords(view, 'reports');
    const executions = await allRecords(view, 'report_executions');
    // Every waiting delivery fits one read: a namespace keeps at most 1,000 (MAX_PENDING).
    const deliveries = (await controlRead(view, 'listWebhookDeliveries', { query: { outcome: 'pending', limit: 1000, offset: 0 } })).items;
    const nowMs = Date.parse(clock.now);
    const due = dueNext({ reports, executions, deliveries }, nowMs);
    const recent = [...executions].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).slice(0, 5);
    const reportNames = new Map(reports.map((r) => [r.id, r.name]));
    const path = controlPath(view, '/clock');
    return (
      <>
        <PageHeading page={clockPage} />
        <div class="columns">
          <section aria-labelledby="clock-now-title" class="panel">
            <h2 id="clock-now-title">Now</h2>
            <dl class="facts">
              <dt>Namespace clock</dt>
              <dd id="clock-now">
                <Instant value={clock.now} />
              </dd>
              <dt>State</dt>
              <dd id="clock-state">{clock.frozen ? 'frozen' : 'running'}</dd>
              <dt>Against the wall clock</dt>
              <dd>{offsetText(clock.offset_ms)}</dd>
              <dt>Wall clock</dt>
              <dd>
                <Instant value={clock.wall_clock} />
              </dd>
            </dl>
          </section>
          <section aria-labelledby="clock-move-title" class="panel">
            <h2 id="clock-move-title">Move the clock</h2>
            <div class="actions">
              {STEPS.map(([duration, label]) => (
                <ApiButton method="POST" path={`${path}/advance`} body={{ duration }} done={`Clock moved: ${label.toLowerCase()}.`}>
                  {label}
                </ApiButton>
              ))}
              <ApiButton method="PUT" path={path} body={{ frozen: !clock.frozen }} done={clock.frozen ? 'Clock running again.' : 'Clock frozen.'}>
                {clock.frozen ? 'Unfreeze' : 'Freeze'}
              </ApiButton>
              <ApiButton method="DELETE" path={path} done="Clock back to the wall clock.">
                Back to wall clock
              </ApiButton>
            </div>
            <ApiForm method="POST" path={`${path}/advance`} done="Clock advanced." label="Advance by a duration" class="api-form inline">
              <Field
                name="duration"
                id="advance-duration"
                label="Advance by"
                placeholder="2h30m"
                required
                hint="A duration: ms, s, m, h, d, w (90s, 2h30m, 1w)."
              />
              <button type="submit">Advance</button>
            </ApiForm>
            <ApiForm method="PUT" path={path} done="Clock set." label="Set the clock" class="api-form inline">
              <Field name="now" id="set-now" label="Set to" value={clock.now} required hint="RFC 3339, e.g. 2026-11-22T10:00:00Z." />
              <div class="field checkbox">
                <input type="checkbox" id="set-frozen" name="frozen" data-type="boolean" checked={clock.frozen} />
                <label for="set-frozen">Frozen</label>
              </div>
              <button type="submit">Set</button>
            </ApiForm>
          </section>
        </div>
        <section aria-labelledby="clock-executions-title" class="panel">
          <h2 id="clock-executions-title">Newest report executions</h2>
          {recent.length ? (
            <div class="table-wrap">
              <table id="recent-executions" class="stack">
                <caption>The five newest report executions and their status now</caption>
                <TableHead columns={['Created', 'Report', 'Status', 'Since']} />
                <tbody>
                  {recent.map((e) => (
                    <tr>
                      <td>
                        <Instant value={e.created_at} />
                      </td>
                      <td>{reportNames.get(e.report_id) ?? e.report_id}</td>
                      <td>
                        <span class={`badge status-${e.status}`}>{e.status}</span>
                      </td>
                      <td>
                        <Instant value={e.updated_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <Note>No report execution yet.</Note>
          )}
        </section>
        <section aria-labelledby="clock-due-title" class="panel">
          <h2 id="clock-due-title">Due next</h2>
          {due.length ? (
            <div class="table-wrap">
              <table class="stack">
                <caption>Scheduled report runs, report execution status changes and webhook attempts, soonest first</caption>
                <TableHead columns={['When', 'What', 'Record']} />
                <tbody>
                  {due.map((item) => (
                    <tr>
                      <td>
                        <Instant value={new Date(item.atMs).toISOString()} /> <span class="muted">({relative(nowMs, item.atMs)})</span>
                      </td>
                      <td>{item.what}</td>
                      <td>
                        <a href={consolePath(view, `/${item.link}`)}>{item.id}</a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <Note>Nothing is due: no enabled scheduled report, no report execution on its way, no webhook attempt waiting.</Note>
          )}
        </section>
      </>
    );
  },
};
