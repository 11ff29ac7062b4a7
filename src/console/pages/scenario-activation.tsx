// The Scenarios page's activation: what is active where, with the limits an activation was given,
// and a form activating any scenarios for the page's merchant account with a time to live or a
// number of calls (PUT /_sandbox/scenarios/active, which replaces what is active there).
import { controlPath } from '../read.js';
import type { ConsoleView } from '../types.js';
import { ApiButton, ApiForm, Field, Instant, Note } from '../ui.js';
import { type Activation, type ScenarioData, targetLabel } from './scenario-types.js';

/** An activation's limits in words: "for 30 s (until ...)", "at most 5 calls (2 taken)". */
function LimitsText(props: { a: Activation }) {
  const { a } = props;
  if (a.ttl === undefined && a.max_calls === undefined) return null;
  return (
    <span class="muted">
      {' '}
      (
      {a.ttl !== undefined ? (
        <>
          for {a.ttl} s, until <Instant value={a.expires_at} />
        </>
      ) : null}
      {a.ttl !== undefined && a.max_calls !== undefined ? '; ' : null}
      {a.max_calls !== undefined ? `at most ${a.max_calls} call${a.max_calls === 1 ? '' : 's'}, ${a.calls ?? 0} taken` : null})
    </span>
  );
}

export function ActiveSection(props: { view: ConsoleView; data: ScenarioData }) {
  const { view, data } = props;
  const { active } = data.active;
  const path = controlPath(view, '/scenarios/active');
  const targetId = data.target || null;
  return (
    <div class="pair">
      <section aria-labelledby="active-title" class="panel">
        <h2 id="active-title">Active now</h2>
        {active.length ? (
          <ul id="active-scenarios">
            {active.map((a) => (
              <li>
                For {targetLabel(a.merchant_account_id)}:{' '}
                {a.scenarios.map((n) => (
                  <code>{n}</code>
                ))}
                <LimitsText a={a} />{' '}
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
      </section>
      <section aria-labelledby="activate-title" class="panel">
        <h2 id="activate-title">Activate with limits</h2>
        <ActivateForm
          view={view}
          names={data.catalog.map((s) => s.name)}
          current={active.find((a) => a.merchant_account_id === targetId)?.scenarios ?? []}
          target={data.target}
          targetText={targetLabel(targetId)}
        />
      </section>
    </div>
  );
}

/** Activation of any scenarios with limits, for the merchant account the page works for ('' for all). */
function ActivateForm(props: { view: ConsoleView; names: string[]; current: string[]; target: string; targetText: string }) {
  const { view, current, target } = props;
  // The active ones first, in their order of precedence, which the PUT keeps.
  const names = [...current, ...props.names.filter((name) => !current.includes(name))];
  return (
    <ApiForm
      method="PUT"
      path={controlPath(view, '/scenarios/active')}
      done={`Active for ${props.targetText} now.`}
      label={`Scenarios active for ${props.targetText}`}
      id="activate-form"
    >
      <input type="hidden" name="merchant_account_id" value={target} />
      <fieldset class="scopes">
        <legend>Active for {props.targetText} (the first ticked that applies to a call answers it)</legend>
        {names.map((name, i) => (
          <span class="checkbox">
            <input type="checkbox" id={`activate-${i}`} name="scenarios" value={name} data-type="list" data-keep-empty checked={current.includes(name)} />
            <label for={`activate-${i}`}>{name}</label>
          </span>
        ))}
        <span class="field-error" data-error-for="scenarios" />
      </fieldset>
      <div class="field-row">
        <Field name="ttl" id="activate-ttl" label="For seconds (namespace clock)" type="number" dataType="number" hint="Empty: until changed." />
        <Field name="max_calls" id="activate-max-calls" label="For calls" type="number" dataType="number" hint="Empty: any number." />
      </div>
      <button type="submit">Activate the ticked scenarios</button>
    </ApiForm>
  );
}
