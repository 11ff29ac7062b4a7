// What every namespace's webhooks share, built once at boot (sandbox.ts): the event catalog from
// openapi.json, the options, the --forward-webhooks-to target, and the logger.
// Each namespace's WebhookHub (hub.ts) is the part that delivers its events.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Namespace, PartKind } from '../namespace/namespace.js';
import type { SpecIndex } from '../spec/operations.js';
import type { WebhookSubscriptionRecord } from '../store/records.js';
import { EventCatalog } from './catalog.js';
import { WEBHOOKS, WebhookHub } from './hub.js';
import type { ForwardTarget, WebhookOptions, WebhookShared } from './shared.js';
import { generateSecret, refusedTarget, urlProblem } from './signing.js';
import { TargetPolicy } from './targets.js';

export class WebhookService implements WebhookShared {
  readonly catalog: EventCatalog;
  readonly forward: ForwardTarget | null;
  readonly targets: TargetPolicy;
  private readonly hubs = new Set<{ dispose(): Promise<void> }>();
  private readonly forwardSubscriptions = new Map<string, WebhookSubscriptionRecord>();

  constructor(
    spec: SpecIndex,
    readonly options: WebhookOptions,
    readonly logger: Logger,
  ) {
    this.catalog = new EventCatalog(spec);
    this.targets = new TargetPolicy(options.targets);
    this.checkForward();
    this.forward = options.forwardTo === null ? null : { url: options.forwardTo, secret: generateSecret(), since: new Date().toISOString() };
  }

  /** The sandbox listens at `address` on `port` (start.ts, once listening): deliveries never go there. */
  listeningOn(address: string, port: number): void {
    this.targets.listeningOn(address, port);
    this.checkForward();
  }

  /** Refuses a --forward-webhooks-to URL no delivery could go to, or that the target rules refuse. */
  private checkForward(): void {
    const url = this.options.forwardTo;
    if (url === null) return;
    const problem = urlProblem(url) ?? refusedTarget(url, this.targets);
    if (problem) throw new Error(`--forward-webhooks-to: ${problem}`);
  }

  /** The namespace part that delivers a namespace's events (inert in the shared fresh state and throwaway copies). */
  partKind(): PartKind<WebhookHub> {
    return { key: WEBHOOKS, eager: true, create: (ns: Namespace) => new WebhookHub(ns, this) };
  }

  /** The --forward-webhooks-to subscription of a merchant account, or undefined without the option. */
  forwardSubscription(merchantAccountId: string): WebhookSubscriptionRecord | undefined {
    if (!this.forward) return undefined;
    let subscription = this.forwardSubscriptions.get(merchantAccountId);
    if (!subscription) {
      subscription = {
        type: 'webhook-subscription',
        id: forwardSubscriptionId(this.forward.url, merchantAccountId),
        merchant_account_id: merchantAccountId,
        url: this.forward.url,
        active: true,
        secret: this.forward.secret,
        created_at: this.forward.since,
        updated_at: this.forward.since,
      };
      this.forwardSubscriptions.set(merchantAccountId, subscription);
    }
    return subscription;
  }

  register(hub: { dispose(): Promise<void> }): void {
    this.hubs.add(hub);
  }

  unregister(hub: { dispose(): Promise<void> }): void {
    this.hubs.delete(hub);
  }

  /** Stops every namespace's timers and attempts in flight, then closes the connections (the sandbox is closing). */
  async close(): Promise<void> {
    await Promise.all([...this.hubs].map((hub) => hub.dispose()));
  }
}

/** A stable uuid for the forward subscription of one URL and merchant account, so deliveries kept in a data file still name it after a restart. */
export function forwardSubscriptionId(url: string, merchantAccountId: string): string {
  const hex = createHash('sha256').update(`payments-sandbox forward ${url} ${merchantAccountId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
