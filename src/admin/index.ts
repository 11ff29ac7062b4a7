// Every handler of openapi.admin.json, keyed by operationId. Boot fails if they disagree.
import { clockHandlers } from './clock.js';
import { healthHandlers } from './health.js';
import { journalHandlers } from './journal-routes.js';
import { namespaceHandlers } from './namespaces.js';
import { recordHandlers } from './records.js';
import { resetHandlers } from './reset.js';
import { scenarioHandlers } from './scenarios.js';
import { snapshotHandlers } from './snapshot.js';
import { tokenHandlers } from './tokens.js';
import type { AdminHandlerMap } from './types.js';

export const adminHandlers: AdminHandlerMap = {
  ...healthHandlers,
  ...resetHandlers,
  ...snapshotHandlers,
  ...recordHandlers,
  ...tokenHandlers,
  ...journalHandlers,
  ...namespaceHandlers,
  ...scenarioHandlers,
  ...clockHandlers,
};
