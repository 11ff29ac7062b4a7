// Scenarios: defining one at run time for the common cases or as JSON (scenario-forms.tsx), the
// catalog of every scenario the namespace knows (GET /_sandbox/scenarios, with each one's counters
// from GET /_sandbox/scenarios/{name}): where it comes from, what it does, the operations it
// applies to; activation and deactivation through PUT/DELETE /_sandbox/scenarios/active, with a
// time to live or a number of calls; replacing and deleting a definition (PUT/DELETE
// /_sandbox/scenarios/{name}); the counters per merchant account.
import type { Child } from 'hono/jsx';
import { PageHeading } from '../layout.js';
import { controlPath, controlRead, merchantAccountIds } from '../read.js';
import type { ConsolePage, ConsoleView } from '../types.js';
import { ApiButton, Note, TableHead } from '../ui.js';
import { ActiveSection } from './scenario-activation.js';
import { DefineSection, DefinitionJsonSection } from './scenario-forms.js';
import { type Activation, type ActiveBody, type ScenarioData, type ScenarioDetail, type ScenarioItem, targetLabel } from './scenario-types.js';

/** A step in a few words: what it does, and how often (the last step goes on for ever). */
export function stepText(step: Record<string, any>, last: boolean): string {
  const what = step.respond
    ? `answer ${step.respond.status}`
    : step.drop
      ? 'drop the connection'
      : step.lose_answer
        ? `run, then lose the answer (${step.lose_answer.drop ? 'connection closed' : (step.lose_answer.status ?? 504)})`
        : step.random
          ? `${Math.round(step.random.share * 100)} %: ${stepText(step.random, true)}`
          : step.override || step.merge
            ? 'change the normal answer'
            : 'pass';
  const late = step.delay_ms;
  const delay = typeof late === 'number' && late > 0 ? `, ${late} ms late` : late && typeof late === 'object' ? `, ${late.min} to ${late.max} ms late` : '';
  return last ? `${what}${delay}` : `${what}${delay} ×${step.times ?? 1}`;
}

/** What the scenario does, step by step or as the path of report executions; and to the webhook deliveries of its requests. */
function stepsText(s: ScenarioItem): string {
  if (s.report_execution) return `report executions go ${s.report_execution.path.join(' → ')}`;
  const steps = s.steps.map((step, i) => stepText(step, i === s.steps.length - 1)).join(', then ');
  return s.webhooks ? `${steps}; webhook deliveries ${webhooksText(s.webhooks)}` : steps;
}

function webhooksText(w: NonNullable<ScenarioItem['webhooks']>): string {
  const parts = [w.delay_ms ? `${w.delay_ms} ms late` : '', w.copies && w.copies > 1 ? `×${w.copies}` : '', w.reorder ? 'newest first' : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : 'as the namespace behaviour says';
}

/** The operations a scenario applies to: named when few, counted (and listed on demand) when many. */
function OperationsText(props: { operations: string[]; all: number }) {
  const { operations } = props;
  if (!operations.length) return <>none: report executions</>;
  if (operations.length <= 4) return <>{operations.join(', ')}</>;
  return (
    <details>
      <summary>{operations.length === props.all ? `every operation (${operations.length})` : `${operations.length} operations`}</summary>
      {operations.join(', ')}
    </details>
  );
}

function SourceText(props: { s: ScenarioItem }) {
  const { s } = props;
  if (s.source === 'defined') {
    return <>defined here{s.replaces ? <span class="muted"> (replaces {s.replaces})</span> : null}</>;
  }
  return (
    <>
      {s.source === 'built-in' ? 'built-in' : 'file'} <span class="muted">{s.file}</span>
      {s.replaces ? <span class="muted"> (replaces {s.replaces})</span> : null}
    </>
  );
}

/** The merchant account the page activates for: every section's buttons and forms act for it. */
function TargetForm(props: { data: ScenarioData }) {
  const { data } = props;
  return (
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
  );
}

/**
 * What is left of an activation's limits, to keep when a button changes which scenarios it holds
 * (PUT replaces the activation): the seconds to its end on the namespace clock and the calls it may
 * still take.
 */
function limitsLeft(activation: Activation, nowMs: number): { ttl?: number; max_calls?: number } {
  const left: { ttl?: number; max_calls?: number } = {};
  if (activation.expires_at) left.ttl = Math.max(1, Math.ceil((Date.parse(activation.expires_at) - nowMs) / 1000));
  if (activation.max_calls !== undefined) left.max_calls = Math.max(1, activation.max_calls - (activation.calls ?? 0));
  return left;
}

function CatalogSection(props: { view: ConsoleView; data: ScenarioData }) {
  const { view, data } = props;
  const targetId = data.target || null;
  const activation = data.active.active.find((a) => a.merchant_account_id === targetId);
  const current = activation?.scenarios ?? [];
  const limits = activation ? limitsLeft(activation, data.nowMs) : {};
  const path = controlPath(view, '/scenarios/active');
  return (
    <section aria-labelledby="catalog-title" class="panel">
      <h2 id="catalog-title">Catalog</h2>
      <TargetForm data={data} />
      <div class="table-wrap">
        <table id="scenario-catalog" class="stack">
          <caption>Every scenario this namespace knows, and whether each is active for {targetLabel(targetId)}</caption>
          <TableHead columns={['Scenario', 'From', 'What it does', 'Operations', 'Calls matched / answered', 'Actions']} />
          <tbody>
            {data.catalog.map((s) => {
              const on = current.includes(s.name);
              const next = on ? current.filter((n) => n !== s.name) : [...current, s.name];
              return (
                <tr data-scenario={s.name}>
                  <th scope="row">
                    <code>{s.name}</code>
                  </th>
                  <td>
                    <SourceText s={s} />
                  </td>
                  <td>
                    {s.description}
                    <br />
                    <span class="muted">{stepsText(s)}</span>
                  </td>
                  <td>
                    <OperationsText operations={s.operations} all={view.deps.apiOperations.length} />
                  </td>
                  <td class="num">
                    {s.counters.matched} / {s.counters.answered}
                  </td>
                  <td class="actions">
                    <ApiButton
                      method="PUT"
                      path={path}
                      body={{ scenarios: next, merchant_account_id: targetId, ...(next.length ? limits : {}) }}
                      done={`${s.name} ${on ? 'deactivated' : 'activated'} for ${targetLabel(targetId)}.`}
                      label={`${on ? 'Deactivate' : 'Activate'} ${s.name}`}
                      id={`toggle-${s.name}`}
                    >
                      {on ? 'Deactivate' : 'Activate'}
                    </ApiButton>
                    <button
                      type="button"
                      data-edit-definition={JSON.stringify(s.definition)}
                      aria-label={s.source === 'defined' ? `Edit ${s.name} as JSON` : `Edit ${s.name} as JSON, to replace it in this namespace`}
                    >
                      Edit
                    </button>
                    {s.source === 'defined' ? (
                      <ApiButton
                        method="DELETE"
                        path={controlPath(view, `/scenarios/${encodeURIComponent(s.name)}`)}
                        done={`Scenario ${s.name} deleted.`}
                        label={`Delete ${s.name}`}
                      >
                        Delete
                      </ApiButton>
                    ) : null}
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

function CountersSection(props: { view: ConsoleView; data: ScenarioData }) {
  const rows = props.data.catalog.flatMap((s) => s.counters.merchant_accounts.map((c) => ({ scenario: s, ...c })));
  return (
    <section aria-labelledby="counters-title" class="panel">
      <h2 id="counters-title">Counters</h2>
      {rows.length ? (
        <div class="table-wrap">
          <table id="scenario-counters">
            <caption>Calls each scenario took a step for (matched) and did something to (answered), per merchant account</caption>
            <TableHead columns={['Scenario', 'Merchant account', 'Next step', 'Calls matched', 'Calls answered']} />
            <tbody>
              {rows.map((c) => (
                <tr>
                  <td>
                    <code>{c.scenario.name}</code>
                  </td>
                  <td>{c.merchant_account_id}</td>
                  <td class="num">
                    {Math.min(c.step, Math.max(c.scenario.steps.length - 1, 0)) + 1} of {c.scenario.steps.length}
                  </td>
                  <td class="num">{c.matched}</td>
                  <td class="num">{c.answered}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Note>No scenario has taken a call since the last reset.</Note>
      )}
      <ApiButton method="DELETE" path={controlPath(props.view, '/scenarios/active')} done="Every scenario deactivated, every counter back to its first step.">
        Deactivate all and reset counters
      </ApiButton>
    </section>
  );
}

/** Defining, beside the definition as JSON; what is active, beside activating with limits. */
function Columns(props: { view: ConsoleView; data: ScenarioData }) {
  return (
    <>
      <div class="pair">
        <DefineSection view={props.view} />
        <DefinitionJsonSection view={props.view} />
      </div>
      <ActiveSection view={props.view} data={props.data} />
    </>
  );
}

/** The page's sections in order; each reads what it needs from the data read once. */
const SECTIONS: Array<(props: { view: ConsoleView; data: ScenarioData }) => Child> = [Columns, CatalogSection, CountersSection];

export const scenariosPage: ConsolePage = {
  slug: 'scenarios',
  title: 'Scenarios',
  summary: 'Failures on purpose: define one, activate it for a merchant account or for all, and see what it did.',

  async render(view) {
    const names: string[] = (await controlRead(view, 'listScenarios')).items.map((s: ScenarioItem) => s.name);
    const catalog: ScenarioDetail[] = [];
    for (const name of names) catalog.push(await controlRead(view, 'getScenario', { params: { name } }));
    const active: ActiveBody = await controlRead(view, 'getActiveScenarios');
    const nowMs = Date.parse((await controlRead(view, 'getClock')).now);
    const merchantAccounts = await merchantAccountIds(view);
    const wanted = view.query.get('for') ?? '';
    const data: ScenarioData = { catalog, active, merchantAccounts, target: merchantAccounts.includes(wanted) ? wanted : '', nowMs };
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
