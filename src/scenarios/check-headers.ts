// The sandbox's own test headers (x-sandbox-scenario, Prefer: code=) are checked before the
// request reaches its operation, like x-sandbox-namespace: a mistake in them is the tester's, so
// its 400 answers for the sandbox, not for the operation (whose contract may not list 400).
// Scenario names are looked up in the request's namespace: its own scenarios, then the files.
import { ApiError } from '../errors/api-error.js';
import type { OperationRouter } from '../http/operation-router.js';
import type { Step } from '../http/pipeline.js';
import type { Operation } from '../spec/operations.js';
import { checkScenarioNames, parseScenarioList, SCENARIO_HEADER } from './match.js';
import { parsePrefer } from './prefer.js';
import { SCENARIO_STATE } from './state.js';
import { injectableEverywhere } from './types.js';

export interface CheckHeadersDeps {
  api: { router: OperationRouter };
}

export function checkScenarioHeaders(deps: CheckHeadersDeps): Step {
  return {
    name: 'check test headers',
    requires: ['namespace'],
    before(call) {
      const header = call.header(SCENARIO_HEADER);
      if (header !== undefined) {
        checkScenarioNames(call.ns.part(SCENARIO_STATE), parseScenarioList(header), { location: 'header', pointer: `/${SCENARIO_HEADER}` });
      }
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

/** The code must be the success status, an error the operation declares, or 429 / a 5xx (which infrastructure answers on any operation). */
export function checkPreferredCode(operation: Operation, code: number): void {
  if (code === operation.successStatus || (code >= 400 && operation.declaredStatuses.includes(code)) || injectableEverywhere(code)) return;
  throw ApiError.badRequest(
    `Prefer: code=${code} cannot be answered: operation ${operation.id} declares ${operation.declaredStatuses.join(', ')} (and 429 or any 5xx may be asked for on any operation).`,
    [
      {
        location: 'header',
        pointer: '/prefer',
        type: 'undeclared_status',
        message: `Ask for one of ${operation.declaredStatuses.join(', ')}, 429 or a 5xx.`,
      },
    ],
  );
}
