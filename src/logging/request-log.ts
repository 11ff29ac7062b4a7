// One log line per request, at debug (warn for a 5xx), carrying the request id; and the request
// count the shutdown summary reports. The path is logged without its query string, which may hold a
// client session token.
import type { Logger } from 'pino';
import type { Step } from '../http/pipeline.js';

export interface RequestStats {
  requests: number;
}

/** Runs after requestId(), which notes when the request arrived. */
export function logRequests(logger: Logger, stats: RequestStats): Step {
  return {
    name: 'request log',
    requires: ['request id'],
    before() {
      stats.requests++;
    },
    after(call) {
      const status = call.res.status;
      // Building the line costs more than the request itself at these rates: only when it is logged.
      if ((status < 500 || call.scenario) && !logger.isLevelEnabled('debug')) return;
      const line = {
        requestId: call.requestId,
        method: call.method,
        path: new URL(call.url).pathname,
        status,
        ms: Math.round((performance.now() - call.receivedAt) * 10) / 10,
        namespace: call.ns?.name,
        operation: call.operation?.id,
      };
      // A 5xx the tester asked for (a scenario, Prefer: code=) is not a fault of the sandbox.
      if (status >= 500 && !call.scenario) logger.warn(line, `${line.method} ${line.path} ${status}`);
      else logger.debug(line, `${line.method} ${line.path} ${status}`);
    },
  };
}
