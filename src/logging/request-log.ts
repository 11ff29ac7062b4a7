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
    before() {
      stats.requests++;
    },
    after(c) {
      const status = c.res.status;
      // Building the line costs more than the request itself at these rates: only when it is logged.
      if ((status < 500 || c.get('scenario')) && !logger.isLevelEnabled('debug')) return;
      const line = {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: new URL(c.req.url).pathname,
        status,
        ms: Math.round((performance.now() - c.get('receivedAt')) * 10) / 10,
        namespace: c.get('ns')?.name,
        operation: c.get('operation')?.id,
      };
      // A 5xx the tester asked for (a scenario, Prefer: code=) is not a fault of the sandbox.
      if (status >= 500 && !c.get('scenario')) logger.warn(line, `${line.method} ${line.path} ${status}`);
      else logger.debug(line, `${line.method} ${line.path} ${status}`);
    },
  };
}
