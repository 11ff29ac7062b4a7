// The control API under /_sandbox: every handler of openapi.admin.json, keyed by operationId (boot
// fails if they disagree), and what each is given of its call. It is served by the same pipeline as
// the API (app.ts), with the admin token step in place of authentication.

import { sandboxBaseOf } from '../http/base-url.js';
import type { Call } from '../http/call.js';
import { approvalHandlers } from './approvals.js';
import { clockHandlers } from './clock.js';
import { healthHandlers } from './health.js';
import { journalHandlers } from './journal.js';
import { journalStreamHandlers } from './journal-stream.js';
import { metricsHandlers } from './metrics.js';
import { namespaceHandlers } from './namespaces.js';
import { recordHandlers } from './records.js';
import { resetHandlers } from './reset.js';
import { scenarioHandlers } from './scenarios.js';
import { snapshotHandlers } from './snapshot.js';
import { tokenHandlers } from './tokens.js';
import type { AdminContext, AdminDeps, AdminHandlerMap } from './types.js';
import { upstreamHandlers } from './upstream.js';
import { webhookInboxHandlers } from './webhook-inbox.js';
import { webhookHandlers } from './webhooks.js';

export const adminHandlers: AdminHandlerMap = {
  ...healthHandlers,
  ...resetHandlers,
  ...snapshotHandlers,
  ...recordHandlers,
  ...tokenHandlers,
  ...journalHandlers,
  ...journalStreamHandlers,
  ...namespaceHandlers,
  ...scenarioHandlers,
  ...clockHandlers,
  ...webhookHandlers,
  ...webhookInboxHandlers,
  ...approvalHandlers,
  ...metricsHandlers,
  ...upstreamHandlers,
};

/** What a control-API handler is given of its call. */
export function adminContextOf(deps: AdminDeps): (call: Call) => AdminContext {
  return (call) => ({
    deps,
    ns: call.ns,
    scoped: call.namespaceNamed,
    params: call.pathParams,
    query: call.query,
    headers: call.headers,
    body: call.body,
    requestId: call.requestId,
    sandboxBase: sandboxBaseOf(call),
  });
}
