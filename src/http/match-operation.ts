import type { OperationRouter } from './operation-router.js';
import type { Step } from './pipeline.js';

/** Finds the operation of the request in one document (404/405 otherwise) before anything else looks at it. */
export function matchOperation(router: OperationRouter): Step {
  return {
    name: 'match operation',
    provides: ['operation'],
    before(call) {
      const { operation, params } = router.match(call.method, call.path);
      call.operation = operation;
      call.pathParams = params;
    },
  };
}
