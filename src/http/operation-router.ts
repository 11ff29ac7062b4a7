// Matches a request to an operation of the spec: static path segments win over templated ones
// (so /buyers/payment-methods is never read as /buyers/{buyer_id}); an unknown path is 404 and a
// known path with another method is 405.
import type { Operation } from '../spec/operations.js';
import { ApiError } from './api-error.js';

interface Route {
  segments: string[];
  staticCount: number;
  byMethod: Map<string, Operation>;
}

export interface Match {
  operation: Operation;
  params: Record<string, string>;
}

export class OperationRouter {
  private readonly routes: Route[] = [];
  /** Templates without parameters, by path: most calls are answered by one map lookup. */
  private readonly staticRoutes = new Map<string, Route>();

  constructor(operations: Operation[]) {
    const byPath = new Map<string, Route>();
    for (const op of operations) {
      let route = byPath.get(op.path);
      if (!route) {
        route = { segments: op.segments, staticCount: op.segments.filter((s) => !isParam(s)).length, byMethod: new Map() };
        byPath.set(op.path, route);
        this.routes.push(route);
      }
      route.byMethod.set(op.method, op);
    }
    // Most static segments first: the most specific template wins.
    this.routes.sort((a, b) => b.staticCount - a.staticCount);
    for (const route of this.routes) if (route.staticCount === route.segments.length) this.staticRoutes.set(`/${route.segments.join('/')}`, route);
  }

  /**
   * The most specific template matching the path decides: its operation for the method, else 405.
   * A less specific template is never tried for another method, so PUT /buyers/payment-methods is a
   * 405 (Allow: GET) rather than an update of a buyer whose id is "payment-methods".
   */
  match(method: string, path: string): Match {
    const exact = this.staticRoutes.get(path);
    if (exact) return this.operationOf(exact, method, path, {});
    const segments = splitPath(path);
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (params) return this.operationOf(route, method, path, params);
    }
    throw ApiError.notFound(`No operation is served at ${path}.`);
  }

  private operationOf(route: Route, method: string, path: string, params: Record<string, string>): Match {
    const operation = route.byMethod.get(method);
    if (operation) return { operation, params };
    throw ApiError.methodNotAllowed(method, path, [...route.byMethod.keys()]);
  }
}

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}

function matchSegments(template: string[], actual: string[]): Record<string, string> | null {
  if (template.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i];
    if (isParam(t)) {
      if (!actual[i]) return null;
      params[t.slice(1, -1)] = safeDecode(actual[i]);
    } else if (t !== actual[i]) {
      return null;
    }
  }
  return params;
}

function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape stays as sent, and fails the parameter's schema
  }
}
