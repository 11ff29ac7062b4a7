import type { OperationRouter } from './operation-router.js';
import type { Step } from './pipeline.js';

/** Finds the operation of the request (404/405 otherwise) before anything else looks at it. */
export function matchOperation(router: OperationRouter): Step {
  return {
    before(c) {
      const { operation, params } = router.match(c.req.method, c.req.path);
      c.set('operation', operation);
      c.set('pathParams', params);
    },
  };
}
