// What an API operation handler receives and returns. Handlers are plain functions keyed by the
// operationId of openapi.json; they read and write the namespace's store and throw ApiError.
import type { Handler, HandlerTable, OperationContext } from '../http/handler.js';

export type { HandlerResult } from '../http/handler.js';

/** Shared services some handlers need (signing keys and the like), built once at boot. */
export interface HandlerServices {
  /** Signs a JWT with the sandbox's own key (Google Pay session tokens). */
  signSandboxJwt(claims: Record<string, unknown>): Promise<string>;
}

export type HandlerContext = OperationContext<HandlerServices>;
export type OperationHandler = Handler<HandlerContext>;
export type HandlerMap = HandlerTable<HandlerContext>;
