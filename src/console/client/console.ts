// The console's script: loads the page's content (with the admin token, when the sandbox needs
// one: asked once, kept in this tab's sessionStorage), and makes every action a request to the
// documented control API (buttons and forms carrying data-api="METHOD path"). Answers' errors show
// next to the fields they name; after a change the content is read again, the focus kept on the
// control that made it.
import { type Answer, adminToken, api, clearErrors, controlHeaders, isTokenProblem, messageOf, say, showErrors, TOKEN_KEY } from './api.js';
import { focusKey, restoreFocus } from './focus.js';
import { initRecordEditor } from './records.js';
import { startRequests } from './requests.js';
import { activateDefined, type Built, initScenarioForms, jsonRequest, scenarioRequest } from './scenarios.js';
import { focusableScrollFrames, labelStackedCells } from './stack.js';
import { startWebhooks } from './webhooks.js';

interface Htmx {
  ajax(method: string, url: string, options: { target: string | Element; swap?: string }): Promise<void>;
}
declare const htmx: Htmx;

const main = document.getElementById('main') as HTMLElement;
const login = document.getElementById('login') as HTMLElement;
const page = document.body.dataset.page;
let reloadRequests: (() => void) | null = null;

/** (Re)reads the page's content into <main>. */
async function loadContent(): Promise<void> {
  const focused = focusKey(main);
  await htmx.ajax('GET', main.dataset.part as string, { target: main, swap: 'innerHTML' });
  restoreFocus(main, focused);
}

/** After a change: the requests page reads its list again; any other page its whole content. */
function refresh(): void {
  if (reloadRequests) reloadRequests();
  else void loadContent();
}

function showLogin(message: string): void {
  login.hidden = false;
  main.hidden = true;
  (document.getElementById('login-error') as HTMLElement).textContent = message;
  (document.getElementById('admin-token') as HTMLInputElement).focus();
}

document.body.addEventListener('htmx:configRequest', (event) => {
  const detail = (event as CustomEvent).detail as { headers: Record<string, string> };
  Object.assign(detail.headers, controlHeaders());
});

document.body.addEventListener('htmx:afterSwap', (event) => {
  const target = (event as CustomEvent).detail.target as HTMLElement;
  if (target !== main) return;
  const requests = main.querySelector<HTMLElement>('#requests');
  reloadRequests = requests ? startRequests(requests) : null;
  const editor = main.querySelector<HTMLFormElement>('#record-form');
  if (editor) initRecordEditor(editor);
  initScenarioForms(main);
  startWebhooks(main);
  labelStackedCells(main);
  focusableScrollFrames(main);
});
window.addEventListener('resize', () => focusableScrollFrames(main));

document.body.addEventListener('htmx:responseError', (event) => {
  const xhr = (event as CustomEvent).detail.xhr as XMLHttpRequest;
  let body: any = null;
  try {
    body = JSON.parse(xhr.responseText);
  } catch {
    body = xhr.responseText;
  }
  if (isTokenProblem(xhr.status, body)) showLogin(adminToken() ? 'That admin token is wrong.' : '');
  else say(messageOf({ ok: false, status: xhr.status, body }), true);
});

document.body.addEventListener('sandbox:saved', () => refresh());

document.body.addEventListener('sandbox:login', (event) => {
  const { status } = (event as CustomEvent).detail as { status: number };
  showLogin(status === 403 ? 'That admin token is wrong.' : 'The sandbox needs its admin token.');
});

document.getElementById('login-form')?.addEventListener('submit', (event) => {
  event.preventDefault();
  const token = (document.getElementById('admin-token') as HTMLInputElement).value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  login.hidden = true;
  main.hidden = false;
  (document.getElementById('sign-out') as HTMLElement).hidden = false;
  void loadContent().then(() => main.focus());
});

const signOut = document.getElementById('sign-out') as HTMLButtonElement;
signOut.hidden = adminToken() === null;
signOut.addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  location.reload();
});

/** The JSON body a form's named fields make, typed by their data-type. */
function formBody(form: HTMLFormElement): { body: Record<string, unknown>; problem: string | null } {
  const body: Record<string, unknown> = {};
  for (const el of form.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input[name], select[name], textarea[name]')) {
    const type = el.dataset.type ?? 'text';
    if (el instanceof HTMLInputElement && el.type === 'checkbox') {
      if (type === 'list') {
        if (!Object.hasOwn(body, el.name)) body[el.name] = [];
        if (el.checked) (body[el.name] as string[]).push(el.value);
      } else body[el.name] = el.checked;
      continue;
    }
    const value = el.value.trim();
    if (value === '' && !el.required) continue; // left out: the API's default
    if (type === 'number') body[el.name] = Number(value);
    else if (type === 'boolean') body[el.name] = value === 'true';
    else if (type === 'json') {
      try {
        body[el.name] = JSON.parse(value);
      } catch {
        return { body, problem: el.name };
      }
    } else body[el.name] = value;
  }
  // An empty list of ticked boxes means "none chosen": left out, so the API's default applies,
  // unless its boxes say an empty list means something (data-keep-empty: deactivate every scenario).
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value) && value.length === 0 && !form.querySelector(`[name="${CSS.escape(name)}"][data-keep-empty]`)) delete body[name];
  }
  return { body, problem: null };
}

/** Fills a form's result area (data-result) from the answer's fields. */
function showResult(selector: string, answer: Answer): void {
  const area = document.querySelector<HTMLElement>(selector);
  if (!area) return;
  for (const el of area.querySelectorAll<HTMLElement>('[data-result-field]')) {
    const value = String(answer.body?.[el.dataset.resultField as string] ?? '');
    if (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) el.value = value;
    else el.textContent = value;
  }
  area.hidden = false;
  area.querySelector<HTMLElement>('textarea, input')?.focus();
}

/** A done message with {field} or {field.sub} filled in from the answer's body. */
function doneText(template: string, body: unknown): string {
  return template.replace(/\{([\w.]+)\}/g, (_, path: string) => {
    const value = path.split('.').reduce<any>((at, key) => (at === null || at === undefined ? undefined : at[key]), body);
    return value === undefined || value === null ? '' : String(value);
  });
}

/** Sends a control request for a data-api element; what happens after depends on the answer. */
async function act(source: HTMLElement, request: { method: string; path: string; body: unknown }, form: HTMLFormElement | null): Promise<void> {
  if (form) clearErrors(form);
  source.setAttribute('aria-busy', 'true');
  let answer: Answer;
  try {
    answer = await api(request.method, request.path, request.body);
  } catch (err) {
    say(`The sandbox did not answer: ${(err as Error).message}`, true);
    return;
  } finally {
    source.removeAttribute('aria-busy');
  }
  if (!answer.ok) {
    if (form) showErrors(form, answer);
    if (!isTokenProblem(answer.status, answer.body)) say(messageOf(answer), true);
    return;
  }
  if (form?.id === 'scenario-form') {
    const name = String((answer.body as { name?: unknown }).name);
    const problem = await activateDefined(form, name, async (method, path, body) => {
      const res = await api(method, path, body);
      return { ok: res.ok, body: res.body, message: messageOf(res) };
    });
    const activate = form.querySelector<HTMLInputElement>('#scenario-activate');
    if (problem) say(problem, true);
    else if (activate?.checked) say(doneText(activate.dataset.activatedDone as string, answer.body));
    else say(doneText(source.dataset.done ?? 'Done.', answer.body));
    refresh();
    return;
  }
  say(doneText(source.dataset.done ?? 'Done.', answer.body));
  if (form?.dataset.result) showResult(form.dataset.result, answer);
  else refresh();
}

/** The request a data-api element makes: method and path as it names them, the body from its data-json or its form's fields. */
function requestOf(source: HTMLElement, body: unknown): { method: string; path: string; body: unknown } {
  const [method, path] = (source.dataset.api as string).split(' ');
  return { method, path, body };
}

/** Forms whose body is not simply their fields: the scenario forms. */
const BUILDERS: Record<string, (form: HTMLFormElement) => Built> = { scenario: scenarioRequest, json: jsonRequest };

document.addEventListener('click', (event) => {
  const target = event.target as HTMLElement;
  const button = target.closest<HTMLElement>('button[data-api]');
  if (button) {
    const json = button.dataset.json;
    void act(button, requestOf(button, json === undefined ? undefined : JSON.parse(json)), null);
    return;
  }
  const copy = target.closest<HTMLElement>('[data-copy]');
  if (copy) void copyFrom(copy.dataset.copy as string);
  const reveal = target.closest<HTMLButtonElement>('button[data-reveal]');
  if (reveal) toggleSecret(reveal);
  const start = target.closest<HTMLButtonElement>('button[data-confirm-start]');
  if (start) showConfirm(start, true);
  const cancel = target.closest<HTMLButtonElement>('button[data-confirm-cancel]');
  if (cancel) showConfirm(cancel.closest('.confirmable')?.querySelector('button[data-confirm-start]') as HTMLButtonElement, false);
});

/** A ConfirmedApiButton's second step, shown (the focus on its confirm button) or hidden again (the focus back on the first). */
function showConfirm(start: HTMLButtonElement, shown: boolean): void {
  const step = start.parentElement?.querySelector<HTMLElement>('[data-confirm]');
  if (!step) return;
  step.hidden = !shown;
  start.setAttribute('aria-expanded', String(shown));
  (shown ? step.querySelector<HTMLButtonElement>('button[data-api]') : start)?.focus();
}

document.addEventListener('submit', (event) => {
  const form = event.target as HTMLFormElement;
  if (!form.dataset.api) return;
  event.preventDefault();
  const builder = form.dataset.build ? BUILDERS[form.dataset.build] : undefined;
  if (builder) {
    const built = builder(form);
    if ('problem' in built) showErrors(form, { ok: false, status: 400, body: { message: built.problem.message, details: [built.problem] } });
    else void act(form, built.request, form);
    return;
  }
  const { body, problem } = formBody(form);
  if (problem) {
    showErrors(form, {
      ok: false,
      status: 400,
      body: { message: `${problem} is not JSON.`, details: [{ pointer: `/${problem}`, message: 'Write JSON here.' }] },
    });
    return;
  }
  void act(form, requestOf(form, body), form);
});

/** A masked secret (ui.tsx Secret) shown or masked again; the button says what it will do next. */
function toggleSecret(button: HTMLButtonElement): void {
  const secret = document.querySelector<HTMLElement>(button.dataset.reveal as string);
  const masked = secret?.parentElement?.querySelector<HTMLElement>('.masked');
  if (!secret || !masked) return;
  const show = secret.hidden;
  secret.hidden = !show;
  masked.hidden = show;
  button.setAttribute('aria-expanded', String(show));
  button.textContent = show ? 'Hide' : 'Show';
  button.setAttribute('aria-label', `${show ? 'Hide' : 'Show'} ${button.dataset.what}`);
}

async function copyFrom(selector: string): Promise<void> {
  const source = document.querySelector<HTMLElement>(selector);
  if (!source) return;
  const text = source instanceof HTMLTextAreaElement || source instanceof HTMLInputElement ? source.value : (source.textContent ?? '');
  try {
    await navigator.clipboard.writeText(text);
    say('Copied to the clipboard.');
  } catch {
    // No clipboard (an insecure origin): select it, so that Ctrl+C copies it.
    const range = document.createRange();
    range.selectNodeContents(source);
    window.getSelection()?.removeAllRanges();
    window.getSelection()?.addRange(range);
    say('Selected: press Ctrl+C to copy.');
  }
}

void (page ? loadContent() : Promise.resolve());
