// The Scenarios page in the browser: the form for the common cases writes a run-time definition
// (scenario-definition.ts) and shows it as JSON while it is filled in; the JSON editor sends any
// definition as written. Both create through POST /_sandbox/scenarios, or replace through
// PUT /_sandbox/scenarios/{name} when "replace" is ticked; the API's 400 problems appear next to
// the field their pointer names (data-error-for in the page).
import { say } from './api.js';
import { type CommonCaseFields, commonDefinition, parseCalls } from './scenario-definition.js';

export interface ControlRequest {
  method: string;
  path: string;
  body: unknown;
}

/** A request to send, or a problem found before sending (shown like the API's, by its pointer). */
export type Built = { request: ControlRequest } | { problem: { pointer: string; message: string } };

function value(form: HTMLFormElement, name: string): string {
  const el = form.elements.namedItem(name);
  if (el instanceof RadioNodeList) return el.value;
  return el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement ? el.value : '';
}

function checked(form: HTMLFormElement, name: string): boolean {
  const el = form.elements.namedItem(name);
  return el instanceof HTMLInputElement && el.checked;
}

function fieldsOf(form: HTMLFormElement): CommonCaseFields {
  const v = (name: string) => value(form, name);
  return {
    kind: v('kind'),
    operation: v('operation'),
    status: v('status'),
    call: v('call'),
    delay_ms: v('delay_ms'),
    name: v('name'),
    description: v('description'),
  };
}

/** POST to the form's path, or PUT to path/{name} when its "replace" box is ticked and the definition has a name. */
function requestFor(form: HTMLFormElement, definition: unknown): ControlRequest {
  const path = (form.dataset.api as string).split(' ')[1];
  const name = (definition as { name?: unknown } | null)?.name;
  if (checked(form, 'replace') && typeof name === 'string' && name) return { method: 'PUT', path: `${path}/${encodeURIComponent(name)}`, body: definition };
  return { method: 'POST', path, body: definition };
}

/** The common-cases form (data-build="scenario"). */
export function scenarioRequest(form: HTMLFormElement): Built {
  const fields = fieldsOf(form);
  const calls = fields.kind === 'nth-call' ? parseCalls(fields.call) : [];
  if (typeof calls === 'string') return { problem: { pointer: '/calls', message: calls } };
  return { request: requestFor(form, commonDefinition(fields)) };
}

/**
 * "Activate it now" ticked: after the definition is saved, the scenario joins what is active for
 * every merchant account (GET, then PUT /_sandbox/scenarios/active with it added); the answer's
 * problem, if any. Two control calls, so the tester makes one.
 */
export async function activateDefined(form: HTMLFormElement, name: string, call: ControlCall): Promise<string | null> {
  if (!checked(form, 'activate')) return null;
  const path = `${(form.dataset.api as string).split(' ')[1]}/active`;
  const now = await call('GET', path, undefined);
  if (!now.ok) return `Saved, but not activated: ${now.message}`;
  const everyone = (now.body as { active: Array<{ merchant_account_id: string | null; scenarios: string[] }> }).active.find(
    (a) => a.merchant_account_id === null,
  );
  const scenarios = [...(everyone?.scenarios ?? []).filter((n) => n !== name), name];
  const put = await call('PUT', path, { scenarios, merchant_account_id: null });
  return put.ok ? null : `Saved, but not activated: ${put.message}`;
}

/** What activateDefined() needs of a control call. */
export type ControlCall = (method: string, path: string, body: unknown) => Promise<{ ok: boolean; body: unknown; message: string }>;

/** The JSON editor (data-build="json"): its textarea is the body. */
export function jsonRequest(form: HTMLFormElement): Built {
  const text = value(form, 'definition');
  let definition: unknown;
  try {
    definition = JSON.parse(text);
  } catch (err) {
    return { problem: { pointer: '/definition', message: `This is not JSON (${(err as Error).message}).` } };
  }
  return { request: requestFor(form, definition) };
}

/** Shows the fields the chosen case uses, and the definition as JSON as it is filled in. */
export function initScenarioForms(root: HTMLElement): void {
  const form = root.querySelector<HTMLFormElement>('#scenario-form');
  const preview = root.querySelector<HTMLElement>('#definition-preview');
  const editor = root.querySelector<HTMLFormElement>('#scenario-json-form');
  const textarea = editor?.querySelector<HTMLTextAreaElement>('textarea[name="definition"]');
  const details = root.querySelector<HTMLDetailsElement>('#scenario-json');
  if (!form || !preview || !editor || !textarea || !details) return;

  const update = () => {
    const fields = fieldsOf(form);
    for (const group of form.querySelectorAll<HTMLElement>('[data-kinds]')) {
      const shown = (group.dataset.kinds as string).split(' ').includes(fields.kind);
      group.hidden = !shown;
      for (const input of group.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')) input.disabled = !shown;
    }
    const generated = commonDefinition({ ...fields, name: '', description: '' });
    (form.elements.namedItem('name') as HTMLInputElement).placeholder = String(generated.name);
    preview.textContent = JSON.stringify(commonDefinition(fields), null, 2);
  };
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  update();

  const edit = (definition: string, replace: boolean, message: string) => {
    textarea.value = definition;
    (editor.elements.namedItem('replace') as HTMLInputElement).checked = replace;
    details.open = true;
    textarea.focus();
    say(message);
  };
  root.querySelector('#edit-preview')?.addEventListener('click', () => edit(preview.textContent ?? '', false, 'The definition is in the JSON editor below.'));
  for (const button of root.querySelectorAll<HTMLButtonElement>('[data-edit-definition]')) {
    button.addEventListener('click', () => {
      const definition = JSON.parse(button.dataset.editDefinition as string);
      edit(JSON.stringify(definition, null, 2), true, `Editing ${definition.name}: Send replaces it in this namespace (PUT).`);
    });
  }
}
