// One log line per request, at debug (warn for a 5xx), carrying the request id; and the request
// count the shutdown summary reports. The path is logged without its query string, which may hold a
// client session token.
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { SandboxEnv } from '../http/env.js';

export interface RequestStats {
  requests: number;
}

export function logRequests(logger: Logger, stats: RequestStats): MiddlewareHandler<SandboxEnv> {
  return async function logRequest(c, next) {
    const started = performance.now();
    stats.requests++;
    await next();
    const status = c.res.status;
    // Building the line costs more than the request itself at these rates: only when it is logged.
    if (status < 500 && !logger.isLevelEnabled('debug')) return;
    const line = {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      namespace: c.get('ns')?.name,
      operation: c.get('operation')?.id,
    };
    if (status >= 500) logger.warn(line, `${line.method} ${line.path} ${status}`);
    else logger.debug(line, `${line.method} ${line.path} ${status}`);
  };
}
