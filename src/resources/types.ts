// What an operation handler receives and returns. Handlers are plain functions keyed by the
// operationId of openapi.json; they read and write the namespace's store and throw ApiError.

import type { Clock } from '../clock.js';
import type { Principal } from '../http/env.js';
import type { SentBody } from '../http/json-response.js';
import type { Namespace } from '../namespace/namespace.js';
import type { Operation } from '../spec/operations.js';
import type { CollectionMap } from '../store/store.js';
import type { RequestLifecycle } from './reports/scheduler.js';

export interface HandlerContext {
  ns: Namespace;
  db: CollectionMap;
  clock: Clock;
  /** The current instant of the namespace clock, RFC 3339. */
  now: string;
  merchantAccountId: string;
  principal: Principal;
  operation: Operation;
  params: Record<string, string>;
  query: Record<string, any>;
  /** The declared header parameters the request carried (lower-case names), validated and coerced. */
  headers: Record<string, any>;
  body: any;
  services: HandlerServices;
  /** The report lifecycle this request's x-sandbox-scenario header asks for; null without one. */
  requestLifecycle: RequestLifecycle | null;
}

/** Shared services some handlers need (signing keys and the like), built once at boot. */
export interface HandlerServices {
  /** Signs a JWT with the sandbox's own key (Google Pay session tokens). */
  signSandboxJwt(claims: Record<string, unknown>): Promise<string>;
}

export interface HandlerResult {
  /** Defaults to the operation's success status from openapi.json. */
  status?: number;
  body?: unknown;
  /** The body as JSON text or UTF-8 bytes already, instead of `body` (a list page assembled from kept record bytes). */
  json?: SentBody;
  headers?: Record<string, string>;
}

export type OperationHandler = (ctx: HandlerContext) => HandlerResult | Promise<HandlerResult>;
export type HandlerMap = Record<string, OperationHandler>;
