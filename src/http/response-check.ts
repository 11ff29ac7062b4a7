// Response self-check (--validate-responses, config.validateResponses; always on in the test
// suite): every answer is checked against the contract before it leaves, so a handler or an error
// path that drifts from openapi.json fails the tests instead of a user's client.
//
// - An answer of a matched operation (success or error) must have a status the operation declares
//   and a body matching that status's schema.
// - Every error body must also match the document's error schemas: `Error`, or `ValidationError`
//   for 422.
// - Errors raised before any operation is known (404 unknown path, 405 other method, 413 body too
//   large, 400 bad namespace, 401/403 of the control API's token) belong to no operation: their
//   body is checked against `Error`, their status is not (openapi.json
//   `x-sandbox-errors-outside-operations`). So are the errors marked `outsideContract` that any
//   operation may give: the sandbox's own (503 at the namespace cap or when the change log cannot
//   be written) and what a tester injects (429, 5xx: `x-sandbox-errors-of-every-operation`). The
//   error handler passes them without their operation.
// A failed check is logged at error level and answered as a 500 naming the problem: loud, never a
// silently wrong answer.
import type { ValidateFunction } from 'ajv';
import { ApiError } from '../errors/api-error.js';
import type { Operation, SpecIndex } from '../spec/operations.js';

/** The 500 of a failed self-check; never checked again (it may itself be undeclared). */
export class SelfCheckError extends ApiError {
  constructor(problem: string) {
    super(500, 'server_error', `Response self-check: ${problem}`);
  }
}

export interface ErrorContract {
  /** The problem with an error answer, or null when it keeps the contract. */
  problemWithError(operation: Operation | undefined, status: number, body: unknown): string | null;
}

/** Compiles the error schemas of openapi.json once, at boot. */
export function errorContract(spec: SpecIndex): ErrorContract {
  const errorSchema = spec.compiler.compile({ $ref: '#/components/schemas/Error' });
  const validationSchema = spec.compiler.compile({ $ref: '#/components/schemas/ValidationError' });
  return {
    problemWithError(operation, status, body) {
      const generic = status === 422 ? validationSchema : errorSchema;
      const name = status === 422 ? 'ValidationError' : 'Error';
      if (!generic(body)) return `the ${status} error body does not match openapi.json ${name}: ${errorsOf(generic)}`;
      if (!operation) return null; // raised before an operation was matched, or outside the operation's contract
      return problemWithAnswer(operation, status, body);
    },
  };
}

/** The status must be declared by the operation and the body must match that status's schema. */
export function problemWithAnswer(operation: Operation, status: number, body: unknown): string | null {
  if (!operation.declaredStatuses.includes(status)) {
    return `${operation.id} answered ${status}, which openapi.json does not declare (it declares ${operation.declaredStatuses.join(', ')}).`;
  }
  const validate = operation.responseValidators.get(status);
  if (validate && !validate(body)) return `the ${status} body of ${operation.id} does not match openapi.json: ${errorsOf(validate)}`;
  return null;
}

function errorsOf(validate: ValidateFunction): string {
  return JSON.stringify(validate.errors).slice(0, 500);
}
