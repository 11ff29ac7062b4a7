// Records: the collections with their counts, a table per collection with a search by id or field,
// and a record's JSON in a form that saves through PATCH /_sandbox/records/{collection}/{id} and
// deletes through DELETE (their 400 and 422 messages shown by the field they name).
import { COLLECTION_NAMES } from '../../store/records.js';
import { PageHeading } from '../layout.js';
import { consolePath, controlPath, controlRead } from '../read.js';
import type { ConsolePage, ConsoleView } from '../types.js';
import { JsonBlock, Note } from '../ui.js';

const PAGE_SIZE = 50;
/** Fields shown in a collection's table besides the id, when the records have them. */
const COLUMNS = ['display_name', 'name', 'status', 'merchant_account_id', 'created_at'];
const READ_ONLY = new Set(['id', 'type']);

type AnyRecord = Record<string, unknown> & { id: string };

/** Whether a record matches a search: `field:value` looks in that field, any other text in the id and every text or number field. */
export function recordMatches(record: AnyRecord, search: string): boolean {
  const q = search.trim().toLowerCase();
  if (!q) return true;
  const colon = /^([a-z_][a-z0-9_]*):(.*)$/.exec(q);
  const has = (value: unknown, text: string) =>
    (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && String(value).toLowerCase().includes(text);
  if (colon) return has(record[colon[1]], colon[2].trim());
  return Object.values(record).some((value) => has(value, q));
}

async function readAll(view: ConsoleView, collection: string): Promise<AnyRecord[]> {
  const read = (offset: number) => controlRead(view, 'listRecords', { params: { collection }, query: { limit: 1000, offset, shape: 'stored' } });
  const items: AnyRecord[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await read(offset);
    items.push(...page.items);
    if (items.length >= page.total || !page.items.length) return items;
  }
}

function Collections(props: { view: ConsoleView; counts: Record<string, number>; selected: string | null }) {
  return (
    <nav aria-label="Collections" class="collections">
      <ul>
        {COLLECTION_NAMES.map((name) => (
          <li>
            <a href={consolePath(props.view, `/records?collection=${name}`)} aria-current={name === props.selected ? 'page' : undefined}>
              {name} <span class="count">{props.counts[name] ?? 0}</span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function RecordTable(props: { view: ConsoleView; collection: string; records: AnyRecord[]; search: string; offset: number; selected: string | null }) {
  const { view, collection, records, search, offset } = props;
  const matching = records.filter((r) => recordMatches(r, search));
  const shown = matching.slice(offset, offset + PAGE_SIZE);
  const columns = COLUMNS.filter((c) => records.some((r) => c in r));
  const link = (params: Record<string, string | number>) =>
    consolePath(
      view,
      `/records?${new URLSearchParams({ collection, ...(search ? { q: search } : {}), ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) })}`,
    );
  return (
    <section aria-labelledby="records-title" class="panel">
      <h2 id="records-title">{collection}</h2>
      <form method="get" class="inline" aria-label={`Search ${collection}`}>
        <input type="hidden" name="collection" value={collection} />
        <div class="field">
          <label for="record-search">Search by id or field</label>
          <input id="record-search" name="q" type="search" value={search} placeholder="b0000000 or display_name:jane" aria-describedby="record-search-hint" />
          <span class="hint" id="record-search-hint">
            Text is looked for in the id and every field; field:text in that field only.
          </span>
        </div>
        <button type="submit">Search</button>
      </form>
      <p id="records-count">
        {matching.length === records.length ? `${records.length} records` : `${matching.length} of ${records.length} records match`}
        {matching.length > PAGE_SIZE ? `; ${offset + 1} to ${Math.min(offset + PAGE_SIZE, matching.length)} shown` : ''}
      </p>
      {shown.length ? (
        <div class="table-wrap">
          <table id="records-table">
            <caption>{`${collection} records${search ? ` matching "${search}"` : ''}`}</caption>
            <thead>
              <tr>
                <th scope="col">id</th>
                {columns.map((c) => (
                  <th scope="col">{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <tr aria-selected={r.id === props.selected ? 'true' : undefined}>
                  <th scope="row">
                    <a href={link({ offset, id: r.id })}>{r.id}</a>
                  </th>
                  {columns.map((c) => (
                    <td>{r[c] === undefined || r[c] === null ? '' : typeof r[c] === 'object' ? JSON.stringify(r[c]) : String(r[c])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Note>No record matches.</Note>
      )}
      <p class="pager">
        {offset > 0 ? <a href={link({ offset: Math.max(0, offset - PAGE_SIZE) })}>Previous {PAGE_SIZE}</a> : null}{' '}
        {offset + PAGE_SIZE < matching.length ? <a href={link({ offset: offset + PAGE_SIZE })}>Next {PAGE_SIZE}</a> : null}
      </p>
    </section>
  );
}

/** How a field's value is edited: by its JSON type. */
function kindOf(value: unknown): 'string' | 'number' | 'boolean' | 'json' {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

function RecordEditor(props: { view: ConsoleView; collection: string; record: AnyRecord; apiShape: unknown }) {
  const { view, collection, record } = props;
  const path = controlPath(view, `/records/${collection}/${encodeURIComponent(record.id)}`);
  return (
    <section aria-labelledby="record-title" class="panel" id="record-editor">
      <h2 id="record-title">
        {collection} <code>{record.id}</code>
      </h2>
      <form id="record-form" data-record-path={path} data-collection={collection} aria-labelledby="record-title" novalidate>
        <p class="hint">
          The record as stored. Saving sends the changed fields only (PATCH); text fields are sent as text, JSON fields as JSON (write <code>null</code>,{' '}
          <code>"text"</code>, an object or a list).
        </p>
        {Object.entries(record).map(([field, value]) => {
          const id = `field-${field}`;
          const kind = kindOf(value);
          const common = {
            id,
            name: field,
            'data-kind': kind,
            'aria-describedby': `${id}-error`,
            readonly: READ_ONLY.has(field),
          };
          const text = kind === 'json' ? JSON.stringify(value, null, 2) : String(value);
          return (
            <div class="field">
              <label for={id}>
                {field} <span class="muted">{kind === 'json' ? 'JSON' : kind}</span>
              </label>
              {kind === 'boolean' ? (
                <select {...common} data-original={text} disabled={READ_ONLY.has(field)}>
                  <option value="true" selected={value === true}>
                    true
                  </option>
                  <option value="false" selected={value === false}>
                    false
                  </option>
                </select>
              ) : kind === 'json' ? (
                <textarea {...common} data-original={text} rows={Math.min(12, text.split('\n').length)}>
                  {text}
                </textarea>
              ) : (
                <input
                  {...common}
                  type={kind === 'number' ? 'number' : 'text'}
                  step={kind === 'number' ? 'any' : undefined}
                  value={text}
                  data-original={text}
                />
              )}
              <span class="field-error" id={`${id}-error`} data-error-for={field} />
            </div>
          );
        })}
        <p class="form-error" data-errors role="alert" />
        <div class="actions">
          <button type="submit">Save changes</button>
          <button type="button" data-delete-start>
            Delete record…
          </button>
          <span data-delete-confirm hidden>
            <button type="button" class="danger" data-delete>
              Delete {record.id} now
            </button>
            <button type="button" data-delete-cancel>
              Keep it
            </button>
          </span>
        </div>
      </form>
      <details>
        <summary>As the API returns it</summary>
        <JsonBlock value={props.apiShape} label={`The ${collection} record in the API's shape`} />
      </details>
    </section>
  );
}

export const recordsPage: ConsolePage = {
  slug: 'records',
  title: 'Records',
  summary: "The namespace's records: find one, read its JSON, change or delete it through the records API.",

  async render(view) {
    const snapshotCounts = (await controlRead(view, 'listNamespaces')).items.find((n: { name: string }) => n.name === view.call.ns.name)?.record_counts ?? {};
    const wanted = view.query.get('collection');
    const collection = wanted && (COLLECTION_NAMES as readonly string[]).includes(wanted) ? wanted : null;
    const id = view.query.get('id');
    const search = view.query.get('q') ?? '';
    const offset = Math.max(0, Number.parseInt(view.query.get('offset') ?? '0', 10) || 0);
    const records = collection ? await readAll(view, collection) : [];
    const record = collection && id ? (records.find((r) => r.id === id) ?? null) : null;
    const apiShape = record ? await controlRead(view, 'getRecord', { params: { collection: collection as string, record_id: record.id }, query: {} }) : null;
    return (
      <>
        <PageHeading page={recordsPage} />
        <div class="records-layout">
          <Collections view={view} counts={snapshotCounts} selected={collection} />
          <div class="records-main">
            {collection ? (
              <RecordTable view={view} collection={collection} records={records} search={search} offset={offset} selected={id} />
            ) : (
              <Note>Pick a collection.</Note>
            )}
            {collection && id && !record ? <Note>{`There is no ${collection} record ${id} in this namespace (any more).`}</Note> : null}
            {record ? <RecordEditor view={view} collection={collection as string} record={record} apiShape={apiShape} /> : null}
          </div>
        </div>
      </>
    );
  },
};
