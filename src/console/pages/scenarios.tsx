// Scenarios: the catalog (GET /_sandbox/scenarios) with what each does and the operations it
// covers, which are active for a merchant account or for all (GET /_sandbox/scenarios/active),
// activation and deactivation through PUT/DELETE /_sandbox/scenarios/active, and the step counters.
// The page is a list of sections: the run-time definitions form (issue 19) is one more.
import type { Child } from 'hono/jsx';
import { PageHeading } from '../layout.js';
import { controlPath, controlRead } from '../read.js';
import type { ConsolePage, ConsoleView } from '../types.js';
import { ApiButton, Note, TableHead } from '../ui.js';

interface ScenarioItem {
  name: string;
  description: string;
  operations: string[];
  steps: Array<Record<string, any>>;
  /** The path report executions take while the scenario is active (report scenarios). */
  report_execution?: { path: string[] } | null;
}

interface ActiveBody {
  active: Array<{ merchant_account_id: string | null; scenarios: string[] }>;
  counters: Array<{ merchant_account_id: string; scenario: string; step: number; requests: number }>;
}

/** What the page's sections are given: read once for all of them. */
interface ScenarioData {
  catalog: ScenarioItem[];
  active: ActiveBody;
  merchantAccounts: string[];
  /** The merchant account the page activates for ('' for every merchant account). */
  target: string;
}

const targetLabel = (id: string | null) => (id ? `merchant account ${id}` : 'every merchant account');

/** A step in a few words: what it does, and how often (the last step goes on for ever). */
function stepText(step: Record<string, any>, last: boolean): string {
  const what = step.respond
    ? `answer ${step.respond.status}`
    : step.drop
      ? 'drop the connection'
      : step.random
        ? `${Math.round(step.random.share * 100)} %: ${stepText(step.random, true)}`
        : step.override || step.merge
          ? 'change the normal answer'
          : 'pass';
  const delay = step.delay_ms ? `, ${step.delay_ms} ms late` : '';
  return last ? `${what}${delay}` : `${what}${delay} ×${step.times ?? 1}`;
}

function CatalogSection(props: { view: ConsoleView; data: ScenarioData }) {
  const { view, data } = props;
  const targetId = data.target || null;
  const current = data.active.active.find((a) => a.merchant_account_id === targetId)?.scenarios ?? [];
  const path = controlPath(view, '/scenarios/active');
  return (
    <section aria-labelledby="catalog-title" class="panel">
      <h2 id="catalog-title">Catalog</h2>
      <form method="get" class="inline" aria-label="Merchant account to activate for">
        <div class="field">
          <label for="scenario-target">Activate for</label>
          <select id="scenario-target" name="for">
            <option value="" selected={!data.target}>
              every merchant account
            </option>
            {data.merchantAccounts.map((id) => (
              <option value={id} selected={id === data.target}>
                merchant account {id}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Show</button>
      </form>
      <div class="table-wrap">
        <table id="scenario-catalog">
          <caption>Scenarios, and whether each is active for {targetLabel(targetId)}</caption>
          <thead>
            <tr>
              <th scope="col">Scenario</th>
              <th scope="col">What it does</th>
              <th scope="col">Operations</th>
              <th scope="col">Steps</th>
              <th scope="col">For {targetLabel(targetId)}</th>
            </tr>
          </thead>
          <tbody>
            {data.catalog.map((s) => {
              const on = current.includes(s.name);
              const next = on ? current.filter((n) => n !== s.name) : [...current, s.name];
              return (
                <tr data-scenario={s.name}>
                  <th scope="row">
                    <code>{s.name}</code>
                  </th>
                  <td>{s.description}</td>
                  <td>
                    {s.operations.includes('*')
                      ? 'every operation declaring its statuses'
                      : s.operations.length
                        ? s.operations.join(', ')
                        : 'none: report executions'}
                  </td>
                  <td>
                    {s.report_execution
                      ? `executions go ${s.report_execution.path.join(' → ')}`
                      : s.steps.map((step, i) => stepText(step, i === s.steps.length - 1)).join(', then ')}
                  </td>
                  <td>
                    <ApiButton
                      method="PUT"
                      path={path}
                      body={{ scenarios: next, merchant_account_id: targetId }}
                      done={`${s.name} ${on ? 'deactivated' : 'activated'} for ${targetLabel(targetId)}.`}
                    >
                      {on ? `Deactivate ${s.name}` : `Activate ${s.name}`}
                    </ApiButton>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function ActiveSection(props: { view: ConsoleView; data: ScenarioData }) {
  const { active, counters } = props.data.active;
  const path = controlPath(props.view, '/scenarios/active');
  return (
    <section aria-labelledby="active-title" class="panel">
      <h2 id="active-title">Active now</h2>
      {active.length ? (
        <ul id="active-scenarios">
          {active.map((a) => (
            <li>
              For {targetLabel(a.merchant_account_id)}:{' '}
              {a.scenarios.map((n) => (
                <code>{n}</code>
              ))}{' '}
              <ApiButton
                method="PUT"
                path={path}
                body={{ scenarios: [], merchant_account_id: a.merchant_account_id }}
                done={`Scenarios deactivated for ${targetLabel(a.merchant_account_id)}.`}
              >
                Deactivate for {targetLabel(a.merchant_account_id)}
              </ApiButton>
            </li>
          ))}
        </ul>
      ) : (
        <Note>No scenario is active: requests are answered normally unless they name one (x-sandbox-scenario, Prefer: code=).</Note>
      )}
      <h3 id="counters-title">Step counters</h3>
      {counters.length ? (
        <div class="table-wrap">
          <table id="scenario-counters" aria-labelledby="counters-title">
            <TableHead columns={['Merchant account', 'Scenario', 'Step now', 'Requests answered']} />
            <tbody>
              {counters.map((c) => (
                <tr>
                  <td>{c.merchant_account_id}</td>
                  <td>
                    <code>{c.scenario}</code>
                  </td>
                  <td>{c.step + 1}</td>
                  <td>{c.requests}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Note>No scenario has answered a request since the last reset.</Note>
      )}
      <ApiButton method="DELETE" path={path} done="Every scenario deactivated, every counter back to its first step.">
        Deactivate all and reset counters
      </ApiButton>
    </section>
  );
}

/** The page's sections in order; each reads what it needs from the data read once. */
const SECTIONS: Array<(props: { view: ConsoleView; data: ScenarioData }) => Child> = [ActiveSection, CatalogSection];

export const scenariosPage: ConsolePage = {
  slug: 'scenarios',
  title: 'Scenarios',
  summary: 'Failures on purpose: activate a scenario for a merchant account or for all, and see where each stands.',

  async render(view) {
    const catalog: ScenarioItem[] = (await controlRead(view, 'listScenarios')).items;
    const active: ActiveBody = await controlRead(view, 'getActiveScenarios');
    const merchantAccounts = (
      await controlRead(view, 'listRecords', { params: { collection: 'merchant_accounts' }, query: { limit: 1000, offset: 0 } })
    ).items.map((m: { id: string }) => m.id);
    const wanted = view.query.get('for') ?? '';
    const data: ScenarioData = { catalog, active, merchantAccounts, target: merchantAccounts.includes(wanted) ? wanted : '' };
    return (
      <>
        <PageHeading page={scenariosPage} />
        {SECTIONS.map((Section) => (
          <Section view={view} data={data} />
        ))}
      </>
    );
  },
};
