// What a namespace's webhooks (hub.ts, queue.ts) use of the sandbox-wide webhook service
// (service.ts, which makes them): declared here so that neither imports the other.
import type { Logger } from 'pino';
import type { WebhookSubscriptionRecord } from '../store/records.js';
import type { EventCatalog } from './catalog.js';
import type { TargetPolicy } from './targets.js';

export interface WebhookOptions {
  /** Most time a receiver may take to answer an attempt. */
  timeoutMs: number;
  /** --webhook-pipelining: requests on one connection before their answers come (1: none). */
  pipelining: number;
  /** --forward-webhooks-to: a subscription to this URL for every merchant account of every namespace. */
  forwardTo: string | null;
  /** --webhook-target: the only hosts and ranges deliveries may go to (empty: any but the refused ones). */
  targets: readonly string[];
  /** Self-check mode: every notification body is checked against openapi.json before it is sent. */
  validate: boolean;
}

/** The subscription --forward-webhooks-to stands for in every merchant account: not a record, so never persisted nor reset away. */
export interface ForwardTarget {
  url: string;
  /** One per process, made at boot; shown by GET /_sandbox/webhooks and the start banner. */
  secret: string;
  since: string;
}

export interface WebhookShared {
  readonly catalog: EventCatalog;
  readonly forward: ForwardTarget | null;
  readonly options: WebhookOptions;
  /** Where deliveries may go (--webhook-target, and never the sandbox itself). */
  readonly targets: TargetPolicy;
  readonly logger: Logger;
  /** The --forward-webhooks-to subscription of a merchant account, or undefined without the option. */
  forwardSubscription(merchantAccountId: string): WebhookSubscriptionRecord | undefined;
  /** A live namespace's webhooks, stopped when the sandbox closes. */
  register(hub: { dispose(): Promise<void> }): void;
  unregister(hub: { dispose(): Promise<void> }): void;
}
