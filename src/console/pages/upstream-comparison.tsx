// Compare mode in the Requests page: a request's comparison with the upstream beside its detail,
// the differences by the contract, then the two answers side by side (the sandbox's as the journal
// kept it, the upstream's as compare mode kept it, secrets redacted in both).
import type { JournalEntry } from '../../journal/entry.js';
import { type Comparison, comparisonView } from '../../upstream/comparisons.js';
import { JsonBlock, Note, TableHead } from '../ui.js';

const OUTCOME_TEXT: Record<Comparison['outcome'], string> = {
  same: 'Same as upstream: no contract difference',
  differs: 'Differs from upstream',
  upstream_failed: 'Upstream failed: nothing to compare',
  not_sent: 'Not sent to the upstream (a write: --compare-writes sends writes)',
};

const show = (value: unknown) => (value === null || value === undefined ? '—' : JSON.stringify(value));

export function UpstreamComparison(props: { entry: JournalEntry; comparison: Comparison }) {
  const { entry } = props;
  const view = comparisonView(props.comparison);
  return (
    <section aria-labelledby="upstream-title" id="upstream-comparison">
      <h3 id="upstream-title">
        Upstream <span class={`badge upstream-${view.outcome}`}>{OUTCOME_TEXT[view.outcome]}</span>
      </h3>
      {view.upstream.failure ? <p>{view.upstream.failure}</p> : null}
      {view.differences.length ? (
        <div class="table-wrap">
          <table id="upstream-differences">
            <caption>Differences by the contract (openapi.json)</caption>
            <TableHead columns={['Kind', 'Where', 'Sandbox', 'Upstream', 'What']} />
            <tbody>
              {view.differences.map((d) => (
                <tr>
                  <td>{d.kind}</td>
                  <td>
                    <code>{d.at}</code>
                  </td>
                  <td>
                    <code>{show(d.sandbox)}</code>
                  </td>
                  <td>
                    <code>{show(d.upstream)}</code>
                  </td>
                  <td>{d.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {view.outcome === 'not_sent' ? null : (
        <div class="side-by-side">
          <section aria-label="The sandbox's answer">
            <h4>Sandbox: {entry.status}</h4>
            {entry.response_body === null ? <Note>No body.</Note> : <JsonBlock value={entry.response_body} label="The sandbox's response body" />}
          </section>
          <section aria-label="The upstream's answer">
            <h4>
              Upstream: {view.upstream.status ?? 'no answer'} ({view.upstream.duration_ms} ms)
            </h4>
            {view.upstream.body === null ? <Note>No body.</Note> : <JsonBlock value={view.upstream.body} label="The upstream's response body" />}
          </section>
        </div>
      )}
    </section>
  );
}
