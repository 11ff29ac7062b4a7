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

/** The top-level field an error item names: a 400 detail's pointer /field/..., a 422 detail's loc ['body', field, ...]. */
function fieldOf(item: any): string | null {
  if (typeof item?.pointer === 'string' && item.pointer.startsWith('/'))
    return decodeURIComponent(item.pointer.split('/')[1]).replace(/~1/g, '/').replace(/~0/g, '~');
  if (Array.isArray(item?.loc) && item.loc[0] === 'body' && item.loc.length > 1) return String(item.loc[1]);
  return null;
}

export function clearErrors(form: HTMLElement): void {
  for (const el of form.querySelectorAll<HTMLElement>('[data-error-for], [data-errors]')) el.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** Puts an error answer's messages next to the fields of `form` they name, the rest in its alert line; focuses the first field in error. */
export function showErrors(form: HTMLElement, answer: Answer): void {
  clearErrors(form);
  const items: any[] = Array.isArray(answer.body?.details) ? answer.body.details : Array.isArray(answer.body?.detail) ? answer.body.detail : [];
  const unplaced: string[] = [];
  let first: HTMLElement | null = null;
  for (const item of items) {
    const field = fieldOf(item);
    const slot = field === null ? null : form.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(field)}"]`);
    const text = String(item.message ?? item.msg ?? '');
    if (!slot) {
      unplaced.push(text);
      continue;
    }
    slot.textContent = slot.textContent ? `${slot.textContent} ${text}` : text;
    const input = form.querySelector<HTMLElement>(`[name="${CSS.escape(field as string)}"]`);
    input?.setAttribute('aria-invalid', 'true');
    first ??= input;
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
