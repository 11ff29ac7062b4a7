import type { MiddlewareHandler } from 'hono';
import type { SandboxEnv } from './env.js';
import type { OperationRouter } from './operation-router.js';

/** Finds the operation of the request (404/405 otherwise) before anything else looks at it. */
export function matchOperation(router: OperationRouter): MiddlewareHandler<SandboxEnv> {
  return async function matchRequestToOperation(c, next) {
    const { operation, params } = router.match(c.req.method, c.req.path);
    c.set('operation', operation);
    c.set('pathParams', params);
    await next();
  };
}
