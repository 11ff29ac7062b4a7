// The Scenarios page's forms: defining a scenario at run time for the common cases (the browser
// writes the definition: client/scenario-definition.ts), the same as JSON to learn the format or to
// send any definition (POST /_sandbox/scenarios, or PUT /_sandbox/scenarios/{name} to replace one).
// Each field's error slot names the pointers of the definition it
// answers for, so the API's 400 problems appear next to it.
import type { Child } from 'hono/jsx';
import { COMMON_CASES } from '../client/scenario-definition.js';
import { controlPath } from '../read.js';
import type { ConsoleView } from '../types.js';
import { ApiForm } from '../ui.js';

/** A field of the common-cases form, shown for the cases listed in `kinds` (the first case is chosen at first). */
function CaseField(props: { kinds: string; children: Child }) {
  return (
    <div data-kinds={props.kinds} hidden={!props.kinds.split(' ').includes(COMMON_CASES[0][0])}>
      {props.children}
    </div>
  );
}

export function DefineSection(props: { view: ConsoleView }) {
  const { view } = props;
  const path = controlPath(view, '/scenarios');
  const operations = view.deps.apiOperations.map((op) => op.id).sort();
  return (
    <section aria-labelledby="define-title" class="panel" id="define">
      <h2 id="define-title">Define a scenario</h2>
      <p class="hint">
        Defined in this namespace until its reset (<code>POST /_sandbox/scenarios</code>); it then shows in the catalog, where it is activated.
      </p>
      <ApiForm
        method="POST"
        path={path}
        done="Scenario {name} saved: activate it in the catalog."
        label="Define a scenario"
        id="scenario-form"
        build="scenario"
      >
        <fieldset>
          <legend>What should happen</legend>
          {COMMON_CASES.map(([kind, label], i) => (
            <span class="checkbox">
              <input type="radio" id={`case-${kind}`} name="kind" value={kind} checked={i === 0} />
              <label for={`case-${kind}`}>{label}</label>
            </span>
          ))}
        </fieldset>
        <div class="field-row">
          <CaseField kinds="nth-call delay">
            <div class="field">
              <label for="scenario-operation">Operation</label>
              <select id="scenario-operation" name="operation" aria-describedby="scenario-operation-error">
                {operations.map((id) => (
                  <option value={id}>{id}</option>
                ))}
              </select>
              <span class="field-error" id="scenario-operation-error" data-error-for="/operations" />
            </div>
          </CaseField>
          <CaseField kinds="nth-call">
            <ScenarioField numeric name="status" label="Answer status" value="500" errorFor="/respond" hint="One the operation declares, or 429 or any 5xx." />
          </CaseField>
          <CaseField kinds="nth-call">
            <ScenarioField
              name="call"
              label="On call number"
              value="1"
              errorFor="/calls"
              hint="1 is the first matching call; a list and ranges too: 1,2 or 3-5."
            />
          </CaseField>
          <CaseField kinds="delay">
            <ScenarioField numeric name="delay_ms" label="Delay in milliseconds" value="1500" errorFor="/delay_ms" hint="Real time, at most 120000." />
          </CaseField>
        </div>
        <div class="field-row">
          <ScenarioField name="name" label="Name" errorFor="/name" hint="Empty: named after what it does. Lower case, digits, '.', '_', '-'." />
          <ScenarioField name="description" label="Description" errorFor="/description" hint="Empty: said from what it does." />
        </div>
        <div class="field checkbox">
          <input type="checkbox" id="scenario-replace" name="replace" />
          <label for="scenario-replace">Replace a scenario of the same name (PUT)</label>
        </div>
        <div class="field checkbox">
          <input type="checkbox" id="scenario-activate" name="activate" data-activated-done="Scenario {name} saved and activated for every merchant account." />
          <label for="scenario-activate">Activate it now, for every merchant account (PUT /_sandbox/scenarios/active)</label>
        </div>
        <span class="field-error" data-error-for="*" />
        <button type="submit">Define scenario</button>
      </ApiForm>
    </section>
  );
}

/** The form's definition as JSON while it is filled in, and an editor sending any definition as written. */
export function DefinitionJsonSection(props: { view: ConsoleView }) {
  const path = controlPath(props.view, '/scenarios');
  return (
    <section aria-labelledby="definition-json-title" class="panel">
      <h2 id="definition-json-title">The definition as JSON</h2>
      <p class="hint">What the form sends, written as it is filled in: the format of scenario files and of the control API.</p>
      <section class="code" aria-label="The definition the form makes">
        <pre class="json" id="definition-preview" tabindex={0} />
      </section>
      <button type="button" id="edit-preview">
        Edit as JSON
      </button>
      <details id="scenario-json">
        <summary>Write a definition as JSON</summary>
        <ApiForm
          method="POST"
          path={path}
          done="Scenario {name} saved: activate it in the catalog."
          label="Define a scenario from JSON"
          id="scenario-json-form"
          build="json"
        >
          <div class="field">
            <label for="scenario-definition">Definition (JSON)</label>
            <textarea
              id="scenario-definition"
              name="definition"
              rows={10}
              spellcheck={false}
              aria-describedby="scenario-definition-hint scenario-definition-error"
            />
            <span class="hint" id="scenario-definition-hint">
              Any definition: match conditions, steps, delays, lost answers (see docs/scenarios.md, "Writing a scenario").
            </span>
            <span class="field-error" id="scenario-definition-error" data-error-for="* /definition" />
          </div>
          <div class="field checkbox">
            <input type="checkbox" id="json-replace" name="replace" />
            <label for="json-replace">Replace a scenario of the same name (PUT)</label>
          </div>
          <button type="submit">Send JSON</button>
        </ApiForm>
      </details>
    </section>
  );
}

/** A text field of the scenario forms whose error slot takes the pointers `errorFor` names. */
function ScenarioField(props: { name: string; label: string; value?: string; errorFor: string; hint: string; numeric?: boolean }) {
  const id = `scenario-${props.name.replace('_', '-')}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type="text"
        inputmode={props.numeric ? 'numeric' : undefined}
        value={props.value}
        aria-describedby={`${id}-hint ${id}-error`}
        autocomplete="off"
      />
      <span class="hint" id={`${id}-hint`}>
        {props.hint}
      </span>
      <span class="field-error" id={`${id}-error`} data-error-for={props.errorFor} />
    </div>
  );
}
