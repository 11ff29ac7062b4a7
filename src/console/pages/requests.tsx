// Requests: the journal live. The filters and the empty table are rendered here; the console's
// script (client/requests.ts) fills the table from GET /_sandbox/requests?view=summary and follows
// GET /_sandbox/requests/stream, and exports with ?format=har. A row's detail is the `entry`
// fragment: headers, pretty bodies, a 4xx's validation details and the request as curl.

import { ApiError } from '../../errors/api-error.js';
import { sandboxBaseOf } from '../../http/base-url.js';
import type { JournalEntry } from '../../journal/entry.js';
import { JOURNAL } from '../../journal/journal.js';
import { curlCommand } from '../curl.js';
import { PageHeading } from '../layout.js';
import { consolePath, controlPath, controlRead, merchantAccountIds } from '../read.js';
import type { ConsolePage, ConsoleView } from '../types.js';
import { ApiButton, JsonBlock, Note, TableHead } from '../ui.js';
import { UpstreamComparison } from './upstream-comparison.js';
import { upstreamModePart } from './upstream-mode.js';

const STATUS_CLASSES: Array<[string, string]> = [
  ['', 'any status'],
  ['2xx', '2xx success'],
  ['4xx', '4xx client error'],
  ['5xx', '5xx server error'],
];

function FilterSelect(props: { name: string; label: string; options: Array<[string, string]>; value: string }) {
  const id = `filter-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name}>
        {props.options.map(([value, label]) => (
          <option value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Compare mode's filter: the journal's `upstream` query. */
const UPSTREAM_OUTCOMES: Array<[string, string]> = [
  ['', 'any'],
  ['differs', 'differs from upstream'],
  ['same', 'same as upstream'],
  ['upstream_failed', 'upstream failed'],
  ['not_sent', 'write not sent'],
];

/** Shown while the list is empty (console.css hides it once a row is there): how to make a first request. */
function FirstRequestHint(props: { view: ConsoleView }) {
  const base = sandboxBaseOf(props.view.call);
  return (
    <div id="requests-empty" class="note">
      <p>No request here yet. Send one and it shows at once, for example:</p>
      <pre class="curl">{`export TOKEN=$(npx payments-sandbox token)   # in a container: docker run --rm payments-sandbox token\ncurl -H "Authorization: Bearer $TOKEN" ${base}/connections`}</pre>
      <p>
        A token can also be minted on the <a href={consolePath(props.view, '/namespaces')}>Namespaces and tokens</a> page.
      </p>
    </div>
  );
}

function Filters(props: { view: ConsoleView; namespaces: string[]; merchantAccounts: string[]; scenarios: string[] }) {
  const { view } = props;
  // Whenever an upstream is set, not only once compare mode was on: the mode is switched from this
  // very page, and a filter that came only with a reload was missed.
  const hasUpstream = view.deps.control.deps.upstream !== null;
  const q = (name: string) => view.query.get(name) ?? '';
  const operations = [...view.deps.apiOperations].map((op) => op.id).sort();
  return (
    <form id="request-filters" class="filters" aria-label="Filter requests">
      {view.call.namespaceNamed ? null : (
        <FilterSelect
          name="namespace"
          label="Namespace"
          value={q('namespace')}
          options={[
            ['', `${view.call.namespaceName} (this one)`],
            ...props.namespaces.filter((n) => n !== view.call.namespaceName).map((n): [string, string] => [n, n]),
            ['*', 'every namespace'],
          ]}
        />
      )}
      <FilterSelect
        name="merchant_account_id"
        label="Merchant account"
        value={q('merchant_account_id')}
        options={[['', 'any'], ...props.merchantAccounts.map((m): [string, string] => [m, m])]}
      />
      <FilterSelect
        name="operation_id"
        label="Operation"
        value={q('operation_id')}
        options={[['', 'any'], ...operations.map((o): [string, string] => [o, o])]}
      />
      <FilterSelect name="status" label="Status" value={q('status')} options={STATUS_CLASSES} />
      <FilterSelect name="scenario" label="Scenario" value={q('scenario')} options={[['', 'any'], ...props.scenarios.map((s): [string, string] => [s, s])]} />
      {hasUpstream ? <FilterSelect name="upstream" label="Upstream" value={q('upstream')} options={UPSTREAM_OUTCOMES} /> : null}
      <div class="field">
        <label for="filter-path">Path contains</label>
        <input id="filter-path" name="path_contains" type="search" value={q('path_contains')} placeholder="/buyers" />
      </div>
    </form>
  );
}

export const requestsPage: ConsolePage = {
  slug: 'requests',
  title: 'Requests',
  summary: 'What clients sent and what they got, live: filter, open a request, copy it as curl, export as HAR.',

  async render(view) {
    const namespaces = view.call.namespaceNamed ? [] : (await controlRead(view, 'listNamespaces')).items.map((n: { name: string }) => n.name);
    const merchantAccounts = await merchantAccountIds(view);
    const scenarios = (await controlRead(view, 'listScenarios')).items.map((s: { name: string }) => s.name);
    return (
      <>
        <PageHeading page={requestsPage} />
        {await upstreamModePart(view)}
        <div id="requests" data-requests={controlPath(view, '/requests')} data-entry={`${view.base}/_sandbox/console/parts/requests/entry`}>
          <Filters view={view} namespaces={namespaces} merchantAccounts={merchantAccounts} scenarios={scenarios} />
          <div class="toolbar">
            <span id="live-state" class="live" role="status">
              Connecting…
            </span>
            <button type="button" id="export-har">
              Export as HAR
            </button>
            <ApiButton method="DELETE" path={controlPath(view, '/requests')} done="Journal cleared." id="clear-journal">
              Clear journal
            </ApiButton>
          </div>
          <p id="requests-notice" class="note" hidden />
          <div class="requests-layout">
            <div class="table-wrap">
              <table id="requests-table">
                <caption>Requests, newest first, new ones added as they come</caption>
                <TableHead columns={['Time', 'Method', 'Path', 'Status', 'Duration', 'Scenario']} />
                <tbody id="request-rows" />
              </table>
              <FirstRequestHint view={view} />
            </div>
            <section id="request-detail" class="panel detail" aria-label="Request detail" tabindex={-1}>
              <Note>Open a request to see its headers and bodies.</Note>
            </section>
          </div>
        </div>
      </>
    );
  },

  fragments: {
    /** One entry of the journal: ?namespace=&id= (another namespace's: at the root only, as the control API). */
    entry(view) {
      const name = view.query.get('namespace') ?? view.call.ns.name;
      if (name !== view.call.ns.name && view.call.namespaceNamed) {
        throw ApiError.forbidden(`Requests of namespace ${name.slice(0, 64)} are shown at the root /_sandbox/console only.`);
      }
      const ns = view.deps.control.deps.namespaces.list().find((n) => n.name === name);
      const id = Number(view.query.get('id'));
      const entry = ns?.existingPart(JOURNAL)?.entry(id, 'full') as JournalEntry | undefined;
      if (!entry) return <Note>{`Request ${id} of namespace ${name} is no longer in the journal.`}</Note>;
      const comparison = view.deps.control.deps.upstream?.comparisons.of(name, id);
      return (
        <>
          {comparison ? <UpstreamComparison entry={entry} comparison={comparison} /> : null}
          <EntryDetail entry={entry} />
        </>
      );
    },
  },
};

/** The 400's details or the 422's detail, when the answer is a client error that has them. */
function validationDetails(entry: JournalEntry): Array<{ where: string; type: string; message: string }> {
  if (entry.status < 400 || entry.status >= 500) return [];
  const body = entry.response_body as { details?: unknown; detail?: unknown } | null;
  if (Array.isArray(body?.details)) {
    return body.details.map((d: any) => ({
      where: `${d.location ?? ''} ${d.pointer ?? ''}`.trim(),
      type: String(d.type ?? ''),
      message: String(d.message ?? ''),
    }));
  }
  if (Array.isArray(body?.detail)) {
    return body.detail.map((d: any) => ({ where: Array.isArray(d.loc) ? d.loc.join('.') : '', type: String(d.type ?? ''), message: String(d.msg ?? '') }));
  }
  return [];
}

function Headers(props: { headers: Record<string, string>; label: string }) {
  const entries = Object.entries(props.headers);
  if (!entries.length) return <Note>None recorded.</Note>;
  return (
    <dl class="headers" aria-label={props.label}>
      {entries.map(([name, value]) => (
        <>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </>
      ))}
    </dl>
  );
}

function EntryDetail(props: { entry: JournalEntry }) {
  const e = props.entry;
  const details = validationDetails(e);
  const curlId = `curl-${e.namespace}-${e.id}`;
  return (
    <article aria-labelledby="detail-title">
      <h2 id="detail-title" tabindex={-1}>
        {e.method} {e.path} <span class={`badge status-${Math.floor(e.status / 100)}xx`}>{e.status}</span>
      </h2>
      <dl class="facts">
        <dt>Time</dt>
        <dd>{e.timestamp}</dd>
        <dt>Duration</dt>
        <dd>{e.duration_ms} ms</dd>
        <dt>Operation</dt>
        <dd>{e.operation_id ?? 'none (no operation matched)'}</dd>
        <dt>Scenario</dt>
        <dd>
          {e.scenario ?? 'none'}
          {e.outside_contract ? (
            <>
              {' '}
              <span class="badge outside">outside the contract</span>
              <br />
              <span class="muted">{e.status} is not a status this operation declares: infrastructure answers it (a proxy, a gateway), not the service.</span>
            </>
          ) : null}
        </dd>
        <dt>Merchant account</dt>
        <dd>{e.merchant_account_id ?? 'none'}</dd>
        <dt>Namespace</dt>
        <dd>{e.namespace}</dd>
        {e.answered_by === 'upstream' ? (
          <>
            <dt>Answered by</dt>
            <dd>the upstream (record mode): this exchange is in the recording</dd>
          </>
        ) : null}
        <dt>Request id</dt>
        <dd>
          <code>{e.request_id}</code>
        </dd>
      </dl>
      {details.length ? (
        <section aria-labelledby="validation-title">
          <h3 id="validation-title">Validation details</h3>
          <div class="table-wrap">
            <table id="validation-details">
              <TableHead columns={['Where', 'Type', 'Message']} />
              <tbody>
                {details.map((d) => (
                  <tr>
                    <td>
                      <code>{d.where}</code>
                    </td>
                    <td>{d.type}</td>
                    <td>{d.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}
      {e.lost_answer ? (
        <section aria-labelledby="lost-title" id="lost-answer">
          <h3 id="lost-title">Answer lost</h3>
          <p>
            The operation ran and its change is kept, but the scenario lost its answer: the client got{' '}
            {e.status === 444 ? 'a closed connection' : <strong>{e.status}</strong>}, the operation had answered <strong>{e.lost_answer.status}</strong>.
          </p>
          {e.lost_answer.body === null ? null : <JsonBlock value={e.lost_answer.body} label="The answer that was lost" />}
        </section>
      ) : null}
      <section aria-labelledby="curl-title">
        <h3 id="curl-title">As curl</h3>
        <section class="code" aria-label="The request as a curl command">
          <pre id={curlId} class="curl" tabindex={0}>
            {curlCommand(e)}
          </pre>
        </section>
        <button type="button" data-copy={`#${curlId}`}>
          Copy as curl
        </button>
      </section>
      <section aria-labelledby="request-part-title">
        <h3 id="request-part-title">Request</h3>
        <p class="url">
          <code>{e.url}</code>
        </p>
        <h4>Headers</h4>
        <Headers headers={e.headers} label="Request headers" />
        <h4>Body</h4>
        {e.body === null ? <Note>No body.</Note> : <JsonBlock value={e.body} label="Request body" />}
      </section>
      <section aria-labelledby="response-part-title">
        <h3 id="response-part-title">Response</h3>
        <h4>Headers</h4>
        <Headers headers={e.response_headers} label="Response headers" />
        <h4>Body</h4>
        {e.response_body === null ? <Note>No body.</Note> : <JsonBlock value={e.response_body} label="Response body" />}
      </section>
    </article>
  );
}
