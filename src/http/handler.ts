// What an operation's handler receives and returns, for both documents (the API and the control
// API): a plain function keyed by operationId, given a context made from the call.
import type { Clock } from '../clock.js';
import type { Announcement, DeliverySteering } from '../namespace/announce.js';
import type { Namespace } from '../namespace/namespace.js';
import type { Operation } from '../spec/operations.js';
import type { CollectionMap } from '../store/store.js';
import { sandboxBaseOf } from './base-url.js';
import { type Call, CallSlot, type Principal } from './call.js';
import type { JsonPieces } from './json-response.js';

export interface HandlerResult {
  /** Defaults to the operation's success status from the document. */
  status?: number;
  body?: unknown;
  /** The body as JSON text already, or as pieces of cached JSON (a list page), instead of `body`. */
  json?: string | JsonPieces;
  headers?: Record<string, string>;
  /** An answer the handler made itself (a stream of events), written as it is. */
  response?: Response;
}

export type Handler<C> = (ctx: C) => HandlerResult | Promise<HandlerResult>;

/** Where the scenario that took a step for a request (scenarios/apply-step.ts) leaves how its events' deliveries go. */
export const DELIVERY_STEERING = new CallSlot<DeliverySteering>('webhook delivery steering');
export type HandlerTable<C> = Record<string, Handler<C>>;

/**
 * What an API operation's handler sees of its request, with the sandbox's shared `services`. A
 * class, not an object literal: one shape, and `now` on the prototype.
 */
export class OperationContext<S> {
  readonly ns: Namespace;
  readonly db: CollectionMap;
  readonly clock: Clock;
  readonly merchantAccountId: string;
  readonly principal: Principal;
  readonly operation: Operation;
  readonly params: Record<string, string>;
  readonly query: Record<string, any>;
  /** The declared header parameters the request carried (lower-case names), validated and coerced. */
  readonly headers: Record<string, any>;
  readonly body: any;
  private instant: string | undefined;

  constructor(
    private readonly call: Call,
    readonly services: S,
  ) {
    this.ns = call.ns;
    this.db = this.ns.store.collections;
    this.clock = this.ns.clock;
    this.merchantAccountId = call.merchantAccountId as string;
    this.principal = call.principal as Principal;
    this.operation = call.operation as Operation;
    this.params = call.pathParams;
    this.query = call.query;
    this.headers = call.headers;
    this.body = call.body;
  }

  /**
   * Read once, on first use: one instant for every timestamp a handler writes, and no clock read
   * (with its Date formatting) for the handlers that write none.
   */
  get now(): string {
    return (this.instant ??= this.ns.clock.nowIso());
  }

  /**
   * Says what the handler changed (ns.announce: an event for webhooks) in the request's merchant
   * account, now, with the delivery steering the request's scenario gave, if any.
   */
  announce(what: Omit<Announcement, 'merchantAccountId' | 'atMs' | 'steering'>): void {
    this.ns.announce({ ...what, merchantAccountId: this.merchantAccountId, steering: this.call.get(DELIVERY_STEERING) ?? null });
  }

  /** Where the client reached the sandbox (origin, and /ns/{name} in a namespace): the base of hosted pages' links. */
  get sandboxBase(): string {
    return sandboxBaseOf(this.call);
  }

  /** Per-request state another step left for the handler (say, the report lifecycle a scenario chose). */
  slot<T>(slot: CallSlot<T>): T | undefined {
    return this.call.get(slot);
  }
}
