// Reads for the console's pages, through the control API's handlers with the page request's
// namespace: what a page shows is what the same GET to /_sandbox would answer.
import type { AdminContext } from '../admin/types.js';
import { sandboxBaseOf } from '../http/base-url.js';
import type { ConsoleView } from './types.js';

/** The body the control operation answers for this view's namespace (no side effect beyond what that GET has). */
export async function controlRead<T = any>(
  view: ConsoleView,
  operationId: string,
  input: { params?: Record<string, string>; query?: Record<string, unknown> } = {},
): Promise<T> {
  const { call, deps } = view;
  const ctx: AdminContext = {
    deps: deps.control.deps,
    ns: call.ns,
    scoped: call.namespaceNamed,
    params: input.params ?? {},
    query: input.query ?? {},
    headers: {},
    body: undefined,
    requestId: call.requestId,
    sandboxBase: sandboxBaseOf(call),
  };
  const result = await deps.control.handlers[operationId](ctx);
  return result.body as T;
}

/** The ids of the namespace's merchant accounts (the records API's list). */
export async function merchantAccountIds(view: ConsoleView): Promise<string[]> {
  const list = await controlRead(view, 'listRecords', { params: { collection: 'merchant_accounts' }, query: { limit: 1000, offset: 0 } });
  return list.items.map((m: { id: string }) => m.id);
}

/** The address of a control route for this view: /_sandbox/... at the root, /ns/{name}/_sandbox/... through a namespace. */
export const controlPath = (view: ConsoleView, path: string) => `${view.base}/_sandbox${path}`;

/** The address of a console page or part. */
export const consolePath = (view: ConsoleView, path: string) => `${view.base}/_sandbox/console${path}`;
