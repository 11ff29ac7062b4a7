// Namespaces and tokens: the namespaces there are (GET /_sandbox/namespaces), reset one
// (POST /ns/{name}/_sandbox/reset) or drop it (DELETE /_sandbox/namespaces/{name}), what loses the
// journal or the namespace only after a confirm step; mint a bearer
// token for a key pair and scopes (POST /_sandbox/tokens) and copy it. Through a namespace, as in
// the control API, only that namespace is listed and changed.
import { WELL_KNOWN } from '../../../fixtures/well-known.js';
import { PageHeading } from '../layout.js';
import { controlPath, controlRead } from '../read.js';
import type { ConsolePage, ConsoleView } from '../types.js';
import { ApiButton, ApiForm, ConfirmedApiButton, Field, Instant, relative, TableHead } from '../ui.js';

const WELL_KNOWN_KEYS = new Set(Object.values(WELL_KNOWN.keyPairs).map((pair) => pair.id));

/** The scopes a token may carry: the wildcards, embed, and every scope an operation names. */
function scopesOf(view: ConsoleView): string[] {
  const named = new Set(view.deps.apiOperations.flatMap((op) => op.scopes));
  for (const wildcard of ['*.read', '*.write', 'embed']) named.delete(wildcard);
  return ['*.read', '*.write', 'embed', ...[...named].sort()];
}

/** The control path of namespace `name`: the root's own for default, /ns/{name} for the others. */
const namespacePath = (name: string, path: string) => (name === 'default' ? `/_sandbox${path}` : `/ns/${encodeURIComponent(name)}/_sandbox${path}`);

export const namespacesPage: ConsolePage = {
  slug: 'namespaces',
  title: 'Namespaces and tokens',
  summary: 'The namespaces kept apart for parallel runs; bearer tokens for a key pair.',

  async render(view) {
    const list = await controlRead(view, 'listNamespaces');
    const pairs = (await controlRead(view, 'listRecords', { params: { collection: 'api_key_pairs' }, query: { limit: 1000, offset: 0 } })).items;
    const now = Date.now();
    return (
      <>
        <PageHeading page={namespacesPage} />
        <section aria-labelledby="namespaces-title" class="panel">
          <h2 id="namespaces-title">Namespaces</h2>
          {list.evicted === undefined ? (
            <p>
              This namespace only: the others are listed in the console at the root (<a href="/_sandbox/console/namespaces">/_sandbox/console</a>). At most{' '}
              {list.cap} besides default (<code>--namespace-cap</code>); one idle for {list.idle_seconds} s may be evicted to make room.
            </p>
          ) : (
            <p>
              {list.count} besides default, at most {list.cap} (<code>--namespace-cap</code>); one idle for {list.idle_seconds} s may be evicted to make room;{' '}
              {list.evicted} evicted so far.
            </p>
          )}
          <div class="table-wrap">
            <table id="namespaces-table" class="stack">
              <caption>Namespaces, with their records and journal</caption>
              <TableHead columns={['Name', 'Last used', 'Records', 'Journal', 'Actions']} />
              <tbody>
                {list.items.map((ns: any) => {
                  const records = Object.values(ns.record_counts as Record<string, number>).reduce((a, b) => a + b, 0);
                  const consoleOf = ns.name === 'default' ? '/_sandbox/console' : `/ns/${encodeURIComponent(ns.name)}/_sandbox/console`;
                  return (
                    <tr data-namespace={ns.name}>
                      <th scope="row">
                        <a href={consoleOf}>{ns.name}</a>
                      </th>
                      <td>
                        <Instant value={ns.last_used_at} /> <span class="muted">({relative(now, Date.parse(ns.last_used_at))})</span>
                      </td>
                      <td>{records}</td>
                      <td>{ns.journal_size}</td>
                      <td class="actions">
                        <ApiButton method="POST" path={namespacePath(ns.name, '/reset')} body={{}} done={`Namespace ${ns.name} reset to the fixtures.`}>
                          Reset {ns.name}
                        </ApiButton>
                        <ConfirmedApiButton
                          method="POST"
                          path={namespacePath(ns.name, '/reset')}
                          body={{ journal: true }}
                          done={`Namespace ${ns.name} reset, its journal cleared.`}
                          confirm={`Reset ${ns.name} and clear its journal`}
                        >
                          {`Reset ${ns.name} and its journal`}
                        </ConfirmedApiButton>
                        {ns.name === 'default' ? null : (
                          <ConfirmedApiButton
                            method="DELETE"
                            path={controlPath(view, `/namespaces/${encodeURIComponent(ns.name)}`)}
                            done={`Namespace ${ns.name} dropped.`}
                            confirm={`Drop ${ns.name}`}
                          >
                            {`Drop ${ns.name}`}
                          </ConfirmedApiButton>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
        <section aria-labelledby="token-title" class="panel">
          <h2 id="token-title">Mint a token</h2>
          <p>
            A bearer token signed with a key pair of namespace <strong>{view.call.namespaceName}</strong>, for clients that cannot sign JWTs. The well-known
            pairs' keys are in <code>fixtures/keys</code>; for any other pair, paste its private key.
          </p>
          <ApiForm method="POST" path={controlPath(view, '/tokens')} done="Token minted." label="Mint a token" id="token-form" result="#token-result">
            <div class="field">
              <label for="token-key-pair">Key pair</label>
              <select id="token-key-pair" name="key_pair_id" aria-describedby="token-key-pair-error">
                {pairs.map((pair: any) => (
                  <option value={pair.id} selected={pair.id === WELL_KNOWN.keyPairs.admin.id}>
                    {`${pair.display_name ?? pair.id} (${pair.id})${WELL_KNOWN_KEYS.has(pair.id) ? '' : ': needs its private key'}${pair.active === false ? ', inactive' : ''}`}
                  </option>
                ))}
              </select>
              <span class="field-error" id="token-key-pair-error" data-error-for="key_pair_id" />
            </div>
            <fieldset class="scopes">
              <legend>Scopes (none ticked: every scope)</legend>
              {scopesOf(view).map((scope, i) => (
                <span class="checkbox">
                  <input type="checkbox" id={`token-scope-${i}`} name="scopes" value={scope} data-type="list" />
                  <label for={`token-scope-${i}`}>{scope}</label>
                </span>
              ))}
              <span class="field-error" data-error-for="scopes" />
            </fieldset>
            <Field name="ttl_seconds" id="token-ttl" label="Lifetime in seconds" type="number" value="3600" dataType="number" />
            <div class="field">
              <label for="token-private-key">Private key (PEM), for a pair without a well-known key</label>
              <textarea id="token-private-key" name="private_key" rows={3} aria-describedby="token-private-key-error" />
              <span class="field-error" id="token-private-key-error" data-error-for="private_key" />
            </div>
            <button type="submit">Mint token</button>
          </ApiForm>
          <div id="token-result" class="result" hidden>
            <label for="token-value">Token</label>
            <textarea id="token-value" readonly rows={4} data-result-field="token" />
            <p>
              Expires <span data-result-field="expires_at" />; send it as <code>Authorization: Bearer &lt;token&gt;</code>.
            </p>
            <button type="button" data-copy="#token-value">
              Copy token
            </button>
          </div>
        </section>
      </>
    );
  },
};
