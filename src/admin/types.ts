import type { Namespace } from '../namespace/namespace.js';
import type { HandlerResult } from '../resources/types.js';
import type { SandboxDeps } from '../sandbox.js';

/** What a control-API handler receives: the whole sandbox and the namespace of the request. */
export interface AdminContext {
  deps: SandboxDeps;
  ns: Namespace;
  params: Record<string, string>;
  query: Record<string, any>;
  headers: Record<string, any>;
  body: any;
  requestId: string;
}

export type AdminHandler = (ctx: AdminContext) => HandlerResult | Promise<HandlerResult>;
export type AdminHandlerMap = Record<string, AdminHandler>;
