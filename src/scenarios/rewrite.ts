// override / merge steps: the normal handler runs, then its JSON success body is replaced or has
// fields merged in. Error answers and bodiless responses pass unchanged. The rewritten body is not
// checked against openapi.json on purpose: it is how testers send a client what the contract forbids.
import type { Call } from '../http/call.js';
import type { StepAction } from './types.js';

export async function rewriteBody(call: Call, action: StepAction): Promise<void> {
  const res = call.res;
  if (res.status < 200 || res.status >= 300 || !/json/i.test(res.headers.get('content-type') ?? '')) return;
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  const rewritten = action.override !== undefined ? action.override : onePageWhenEmpty(deepMerge(body, action.merge), action.merge);
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  call.replaceResponse(new Response(JSON.stringify(rewritten), { status: res.status, headers }));
}

/**
 * An empty list has one page: a merge that leaves a list's `items` empty (empty-lists) leaves no
 * page to go to, so its cursors become null, unless the merge sets them itself. An override is
 * written exactly as given: it is how a tester sends what the contract forbids.
 */
function onePageWhenEmpty(body: unknown, patch: unknown): unknown {
  if (!isPlainObject(body) || !Array.isArray(body.items) || body.items.length > 0) return body;
  for (const cursor of ['next_cursor', 'previous_cursor']) {
    if (Object.hasOwn(body, cursor) && !(isPlainObject(patch) && Object.hasOwn(patch, cursor))) body[cursor] = null;
  }
  return body;
}

/** Objects merge key by key (recursively); anything else in `patch` replaces what was there. */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (key === '__proto__') continue; // a file's "__proto__" key must not reach the prototype
    out[key] = Object.hasOwn(out, key) ? deepMerge(out[key], value) : structuredClone(value);
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
