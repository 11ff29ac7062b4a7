// The console's requests to the control API, from the browser: the admin token from this tab's
// sessionStorage on every one, answers read as JSON, and an error answer's messages put next to
// the fields they name (400 details by pointer, 422 detail by loc).

export const TOKEN_KEY = 'payments-sandbox-admin-token';

export function adminToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Headers for a control request: the admin token when one was given. */
export function controlHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const token = adminToken();
  return token ? { ...extra, 'x-sandbox-admin-token': token } : extra;
}

export interface Answer {
  ok: boolean;
  status: number;
  body: any;
}

/** Whether an answer says the admin token is missing or wrong (the control API's 401 and 403 of its token step). */
export function isTokenProblem(status: number, body: any): boolean {
  const message = typeof body?.message === 'string' ? body.message : '';
  return status === 401 || (status === 403 && /admin token/i.test(message));
}

export async function api(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(path, {
    method,
    headers: controlHeaders(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (isTokenProblem(res.status, parsed)) document.body.dispatchEvent(new CustomEvent('sandbox:login', { detail: { status: res.status, body: parsed } }));
  return { ok: res.ok, status: res.status, body: parsed };
}

/** A line in the status area (read out by screen readers). */
export function say(message: string, error = false): void {
  const status = document.getElementById('status');
  if (!status) return;
  status.classList.toggle('error', error);
  status.textContent = message;
  window.clearTimeout(Number(status.dataset.timer));
  status.dataset.timer = String(window.setTimeout(() => (status.textContent = ''), error ? 10_000 : 4000));
}

/** The message of an error answer, in one line. */
export function messageOf(answer: Answer): string {
  const body = answer.body;
  if (body && typeof body.message === 'string') return `${answer.status}: ${body.message}`;
  if (body && Array.isArray(body.detail)) return `${answer.status}: ${body.detail.map((d: any) => d.msg).join(' ')}`;
  return `${answer.status}: ${typeof body === 'string' ? body.slice(0, 200) : 'the request failed'}`;
}

/** Where an error item points in the body: a 400 detail's pointer, or a 422 detail's loc ['body', field, ...] as a pointer. */
function pointerOf(item: any): string | null {
  if (typeof item?.pointer === 'string' && item.pointer.startsWith('/')) return item.pointer;
  if (Array.isArray(item?.loc) && item.loc[0] === 'body' && item.loc.length > 1) {
    return item.loc
      .slice(1)
      .map((part: unknown) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`)
      .join('');
  }
  return null;
}

/**
 * The error slots of a form by the pointers they take. A slot's data-error-for lists pointers
 * ("/respond/status /respond") or top-level field names ("display_name", the same as
 * "/display_name"); "*" takes what no other slot does.
 */
function slotsOf(form: HTMLElement): Map<string, HTMLElement> {
  const slots = new Map<string, HTMLElement>();
  for (const slot of form.querySelectorAll<HTMLElement>('[data-error-for]')) {
    for (const key of (slot.dataset.errorFor as string).split(/\s+/)) {
      if (key) slots.set(key === '*' || key.startsWith('/') ? key : `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, slot);
    }
  }
  return slots;
}

/** The slot for a pointer: the one naming it or its nearest parent. */
function slotFor(slots: Map<string, HTMLElement>, pointer: string): HTMLElement | null {
  for (let at = pointer; at; at = at.slice(0, at.lastIndexOf('/'))) {
    const slot = slots.get(at) ?? slots.get(safeDecode(at));
    if (slot) return slot;
  }
  return null;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The control a slot reports on: the one it describes (aria-describedby), else the field it is named after. */
function controlOf(form: HTMLElement, slot: HTMLElement): HTMLElement | null {
  if (slot.id) {
    const described = form.querySelector<HTMLElement>(`[aria-describedby~="${CSS.escape(slot.id)}"]`);
    if (described) return described;
  }
  const name = (slot.dataset.errorFor as string).split(/\s+/)[0].replace(/^\//, '').split('/')[0];
  return name ? form.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`) : null;
}

export function clearErrors(form: HTMLElement): void {
  for (const el of form.querySelectorAll<HTMLElement>('[data-error-for], [data-errors]')) el.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** Puts an error answer's messages next to the fields of `form` they point at, the rest in its alert line; focuses the first field in error. */
export function showErrors(form: HTMLElement, answer: Answer): void {
  clearErrors(form);
  const items: any[] = Array.isArray(answer.body?.details) ? answer.body.details : Array.isArray(answer.body?.detail) ? answer.body.detail : [];
  const slots = slotsOf(form);
  const unplaced: string[] = [];
  let first: HTMLElement | null = null;
  for (const item of items) {
    const pointer = pointerOf(item);
    const text = String(item.message ?? item.msg ?? '');
    let slot = pointer === null ? null : slotFor(slots, pointer);
    const catchAll = !slot && slots.get('*');
    if (catchAll) slot = catchAll;
    if (!slot) {
      unplaced.push(text);
      continue;
    }
    const line = catchAll && pointer ? `${pointer}: ${text}` : text;
    slot.textContent = slot.textContent ? `${slot.textContent} ${line}` : line;
    const control = controlOf(form, slot);
    control?.setAttribute('aria-invalid', 'true');
    first ??= control;
  }
  const alert = form.querySelector<HTMLElement>('[data-errors]');
  const summary = items.length && !unplaced.length ? `${answer.status}: ${answer.body?.message ?? 'see the fields marked'}` : messageOf(answer);
  if (alert) alert.textContent = [summary, ...unplaced.filter((t) => !summary.includes(t))].join(' ');
  if (first) first.focus();
  else if (alert) {
    alert.setAttribute('tabindex', '-1');
    alert.focus();
  }
}
