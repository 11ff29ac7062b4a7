// The sandbox's own test headers (x-sandbox-scenario, Prefer: code=) are checked before the
// request reaches its operation, like x-sandbox-namespace: a mistake in them is the tester's, so
// its 400 answers for the sandbox, not for the operation (whose contract may not list 400).
import { ApiError } from '../errors/api-error.js';
import type { OperationRouter } from '../http/operation-router.js';
import type { Step } from '../http/pipeline.js';
import type { Operation } from '../spec/operations.js';
import { checkScenarioNames, parseScenarioList, SCENARIO_HEADER } from './match.js';
import { parsePrefer } from './prefer.js';
import type { ScenarioCatalog } from './types.js';

export interface CheckHeadersDeps {
  scenarios: ScenarioCatalog;
  api: { router: OperationRouter };
}

export function checkScenarioHeaders(deps: CheckHeadersDeps): Step {
  return {
    name: 'check test headers',
    before(call) {
      const header = call.header(SCENARIO_HEADER);
      if (header !== undefined) checkScenarioNames(deps.scenarios, parseScenarioList(header), { location: 'header', pointer: `/${SCENARIO_HEADER}` });
      const { code } = parsePrefer(call.header('prefer'));
      if (code !== null) {
        const operation = operationOf(deps.api.router, call.method, call.path);
        // Unknown path or method: the operation matcher answers 404/405 next.
        if (operation) checkPreferredCode(operation, code);
      }
    },
  };
}

function operationOf(router: OperationRouter, method: string, path: string): Operation | null {
  try {
    return router.match(method, path).operation;
  } catch {
    return null;
  }
}

/** The code must be one the operation declares: its success status, or one of its errors. */
export function checkPreferredCode(operation: Operation, code: number): void {
  if (code === operation.successStatus || (code >= 400 && operation.declaredStatuses.includes(code))) return;
  throw ApiError.badRequest(`Prefer: code=${code} cannot be answered: operation ${operation.id} declares ${operation.declaredStatuses.join(', ')}.`, [
    { location: 'header', pointer: '/prefer', type: 'undeclared_status', message: `Ask for one of ${operation.declaredStatuses.join(', ')}.` },
  ]);
}
