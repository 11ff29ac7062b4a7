// The record editor of the Records page: saves the changed fields through PATCH
// /_sandbox/records/{collection}/{id} and deletes through DELETE, showing the API's 400 and 422
// messages next to the fields they name.
import { api, clearErrors, messageOf, say, showErrors } from './api.js';

type FieldElement = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The changed fields as the stored shape wants them, or the name of a field whose text is not JSON. */
function changes(form: HTMLFormElement): { patch: Record<string, unknown>; notJson: string | null } {
  const patch: Record<string, unknown> = {};
  for (const el of form.querySelectorAll<FieldElement>('[data-kind]')) {
    if (el.hasAttribute('readonly') || el.hasAttribute('disabled') || el.value === el.dataset.original) continue;
    const kind = el.dataset.kind;
    if (kind === 'number') patch[el.name] = el.value.trim() === '' ? null : Number(el.value);
    else if (kind === 'boolean') patch[el.name] = el.value === 'true';
    else if (kind === 'json') {
      try {
        patch[el.name] = JSON.parse(el.value);
      } catch {
        return { patch, notJson: el.name };
      }
    } else patch[el.name] = el.value;
  }
  return { patch, notJson: null };
}

export function initRecordEditor(form: HTMLFormElement): void {
  const path = form.dataset.recordPath as string;
  const confirm = form.querySelector<HTMLElement>('[data-delete-confirm]') as HTMLElement;
  const start = form.querySelector<HTMLButtonElement>('[data-delete-start]') as HTMLButtonElement;

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const { patch, notJson } = changes(form);
    if (notJson) {
      showErrors(form, {
        ok: false,
        status: 400,
        body: {
          message: `${notJson} is not JSON.`,
          details: [{ pointer: `/${notJson}`, message: 'This is not JSON: write null, "text", a number, an object or a list.' }],
        },
      });
      return;
    }
    if (!Object.keys(patch).length) {
      say('Nothing changed.');
      return;
    }
    const answer = await api('PATCH', path, patch);
    if (!answer.ok) {
      showErrors(form, answer);
      say(messageOf(answer), true);
      return;
    }
    say(`Saved ${Object.keys(patch).join(', ')}.`);
    document.body.dispatchEvent(new CustomEvent('sandbox:saved'));
  });

  start.addEventListener('click', () => {
    confirm.hidden = false;
    confirm.querySelector<HTMLButtonElement>('[data-delete]')?.focus();
  });
  confirm.querySelector('[data-delete-cancel]')?.addEventListener('click', () => {
    confirm.hidden = true;
    start.focus();
  });
  confirm.querySelector('[data-delete]')?.addEventListener('click', async () => {
    clearErrors(form);
    const answer = await api('DELETE', path);
    if (!answer.ok) {
      confirm.hidden = true;
      showErrors(form, answer);
      say(messageOf(answer), true);
      return;
    }
    say('Record deleted.');
    const here = new URL(location.href);
    here.searchParams.delete('id');
    location.assign(here.toString());
  });
}
