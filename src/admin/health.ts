import { namespaceCounts } from './namespaces.js';
import type { AdminHandlerMap } from './types.js';

const startedAt = Date.now();

export const healthHandlers: AdminHandlerMap = {
  getHealth({ deps, ns }) {
    return {
      body: {
        status: 'ok',
        version: deps.version,
        seed: deps.seed,
        namespace: ns.name,
        uptime_seconds: (Date.now() - startedAt) / 1000,
        namespaces: namespaceCounts(deps),
      },
    };
  },
};
