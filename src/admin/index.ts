// Every handler of openapi.admin.json, keyed by operationId. Boot fails if they disagree.
import { healthHandlers } from './health.js';
import type { AdminHandlerMap } from './types.js';

export const adminHandlers: AdminHandlerMap = {
  ...healthHandlers,
};
