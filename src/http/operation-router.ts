// Matches a request to an operation of the spec: static path segments win over templated ones
// (so /buyers/payment-methods is never read as /buyers/{buyer_id}); an unknown path is 404 and a
// known path with another method is 405.

import { ApiError } from '../errors/api-error.js';
import type { Operation } from '../spec/operations.js';

interface Route {
  /** The path as the document writes it, e.g. /buyers/{buyer_id}. */
  template: string;
  segments: string[];
  /** The parameter name of each segment, null for a static one. */
  paramNames: (string | null)[];
  staticCount: number;
  byMethod: Map<string, Operation>;
}

export interface Match {
  operation: Operation;
  params: Record<string, string>;
}

export class OperationRouter {
  /** Templates without parameters, by path: most calls are answered by one map lookup. */
  private readonly staticRoutes = new Map<string, Route>();
  /** Templates by their number of segments, most static segments first: the most specific wins. */
  private readonly routesByLength = new Map<number, Route[]>();

  /** `servedBy` names the document in 405 messages: "The API reference serves only PUT on /buyers/{buyer_id}, not POST." */
  constructor(
    operations: Operation[],
    private readonly servedBy = 'The API reference',
  ) {
    const byPath = new Map<string, Route>();
    for (const op of operations) {
      let route = byPath.get(op.path);
      if (!route) {
        const paramNames = op.segments.map((s) => (isParam(s) ? s.slice(1, -1) : null));
        route = { template: op.path, segments: op.segments, paramNames, staticCount: paramNames.filter((n) => n === null).length, byMethod: new Map() };
        byPath.set(op.path, route);
      }
      route.byMethod.set(op.method, op);
    }
    const routes = [...byPath.values()].sort((a, b) => b.staticCount - a.staticCount);
    for (const route of routes) {
      if (route.staticCount === route.segments.length) this.staticRoutes.set(`/${route.segments.join('/')}`, route);
      const sameLength = this.routesByLength.get(route.segments.length) ?? [];
      sameLength.push(route);
      this.routesByLength.set(route.segments.length, sameLength);
    }
  }

  /**
   * The most specific template matching the path decides: its operation for the method, else 405.
   * A less specific template is never tried for another method, so PUT /buyers/payment-methods is a
   * 405 (Allow: GET) rather than an update of a buyer whose id is "payment-methods".
   */
  match(method: string, path: string): Match {
    const exact = this.staticRoutes.get(path);
    if (exact) return this.operationOf(exact, method, {});
    const segments = splitPath(path);
    for (const route of this.routesByLength.get(segments.length) ?? []) {
      const params = matchSegments(route, segments);
      if (params) return this.operationOf(route, method, params);
    }
    throw ApiError.notFound(`No operation is served at ${path}.`);
  }

  private operationOf(route: Route, method: string, params: Record<string, string>): Match {
    const operation = route.byMethod.get(method);
    if (operation) return { operation, params };
    throw ApiError.methodNotAllowed(method, route.template, [...route.byMethod.keys()], this.servedBy);
  }
}

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/** The segments after the leading '/', one trailing '/' ignored. */
function splitPath(path: string): string[] {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  const segments: string[] = [];
  let start = 1;
  // indexOf and slice: String.prototype.split costs several times as much on the request path.
  for (let slash = path.indexOf('/', start); slash >= 0 && slash < end; slash = path.indexOf('/', start)) {
    segments.push(path.slice(start, slash));
    start = slash + 1;
  }
  segments.push(path.slice(start, end));
  return segments;
}

/** `actual` has as many segments as the route. */
function matchSegments(route: Route, actual: string[]): Record<string, string> | null {
  const { segments, paramNames } = route;
  for (let i = 0; i < segments.length; i++) {
    if (paramNames[i] === null ? segments[i] !== actual[i] : !actual[i]) return null;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const name = paramNames[i];
    if (name !== null) params[name] = safeDecode(actual[i]);
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
