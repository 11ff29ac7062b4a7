// The webhooks of one namespace: the part that hears what the API's handlers and the report
// scheduler announce, finds the active subscriptions of the merchant account (plus the
// --forward-webhooks-to one), and records one delivery per subscription for the queue (queue.ts) to
// send. With no subscription for the merchant account, an announcement costs a lookup and builds
// nothing. The event's target is serialized once, with the API's own serializers, at the moment of
// the change; the body is then the same bytes on every attempt.
import type { Announcement, ChangeListener, DeliverySteering } from '../namespace/announce.js';
import type { Namespace } from '../namespace/namespace.js';
import { type NamespacePart, PartKey } from '../namespace/part.js';
import { apiShapeOf } from '../resources/api-shapes.js';
import { storedBaseOf } from '../resources/payment-methods/approval.js';
import type { Collection } from '../store/collection.js';
import type { WebhookDeliveryRecord, WebhookSubscriptionRecord } from '../store/records.js';
import { flatUuid } from './flat-uuid.js';
import { MAX_DELAY_MS, MAX_PENDING } from './limits.js';
import { DeliveryQueue, type QueueHost } from './queue.js';
import type { WebhookShared } from './shared.js';
import { generateSecret } from './signing.js';

/** Steering of deliveries for testing a receiver's idempotency (PUT /_sandbox/webhooks/behaviour). */
export interface DeliveryBehaviour {
  /** Every new delivery is due this much later on the namespace clock. */
  delay_ms: number;
  /** Every event is delivered twice to each subscription (two deliveries, one event id). */
  duplicate: boolean;
  /** Deliveries that fall due together go out newest first, one at a time. */
  reorder: boolean;
}

export const DEFAULT_BEHAVIOUR: Readonly<DeliveryBehaviour> = Object.freeze({ delay_ms: 0, duplicate: false, reorder: false });

/** The body of every notification (openapi.json components.schemas.Event). */
export interface WebhookEvent {
  type: 'event';
  id: string;
  name: string;
  created_at: string;
  merchant_account_id: string;
  target: unknown;
}

interface WebhookState {
  behaviour: DeliveryBehaviour;
  dropped: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The JSON of an event whose target is JSON already: the same bytes as JSON.stringify of the
 * WebhookEvent (same keys, same order), without serializing the target a second time.
 */
function eventBody(id: string, name: string, createdAt: string, merchantAccountId: string, targetJson: string): string {
  return `{"type":"event","id":"${id}","name":${JSON.stringify(name)},"created_at":"${createdAt}","merchant_account_id":${JSON.stringify(merchantAccountId)},"target":${targetJson}}`;
}

export class WebhookHub implements NamespacePart, ChangeListener, QueueHost {
  readonly queue: DeliveryQueue;
  behaviour: DeliveryBehaviour = { ...DEFAULT_BEHAVIOUR };
  /** Deliveries refused past MAX_PENDING since the last reset. */
  dropped = 0;
  private indexed: Collection<WebhookSubscriptionRecord> | null = null;
  private indexedChanges = -1;
  private readonly byMerchant = new Map<string, WebhookSubscriptionRecord[]>();
  private lastQueueFullLine = 0;

  constructor(
    private readonly ns: Namespace,
    private readonly service: WebhookShared,
  ) {
    this.queue = new DeliveryQueue(ns, service, this);
    // The shared fresh state and one-request copies are never written: they deliver nothing.
    if (!ns.admitted) return;
    service.register(this);
    ns.listenToChanges(this);
    ns.clock.onChange(() => this.queue.tick());
    this.refresh();
    this.queue.rebuild(); // deliveries left pending in a data file go out again
  }

  /** Whether anything in the namespace receives events (then report statuses are watched too). */
  get receiving(): boolean {
    this.refresh();
    return this.byMerchant.size > 0 || this.service.forward !== null;
  }

  wants(merchantAccountId: string): boolean {
    this.refresh();
    return this.byMerchant.has(merchantAccountId) || this.service.forward !== null;
  }

  announced({ name, merchantAccountId, collection, record, atMs = Number.NaN, steering = null, targetJson }: Announcement): void {
    if (!this.wants(merchantAccountId)) return;
    const id = flatUuid();
    const createdAt = Number.isNaN(atMs) ? this.ns.clock.nowIso() : iso(atMs);
    const target = targetJson ?? JSON.stringify(apiShapeOf(this.ns.store.collections, collection, record, storedBaseOf(this.ns.name)));
    this.deliver(name, merchantAccountId, id, eventBody(id, name, createdAt, merchantAccountId, target), steering);
    if (this.ns.timedChangesMovedBy(collection)) this.queue.rearmSoon(); // their next change may have moved
  }

  /**
   * Builds the event once and records a delivery of it per receiving subscription (more while
   * duplicating): as the request's scenario steers them, else as the namespace's behaviour says.
   */
  emit({ name, merchantAccountId, collection, record, atMs = Number.NaN, steering = null }: Omit<Announcement, 'targetJson'>): {
    event: WebhookEvent;
    deliveries: WebhookDeliveryRecord[];
  } {
    const event: WebhookEvent = {
      type: 'event',
      id: flatUuid(),
      name,
      created_at: Number.isNaN(atMs) ? this.ns.clock.nowIso() : iso(atMs),
      merchant_account_id: merchantAccountId,
      target: apiShapeOf(this.ns.store.collections, collection, record, storedBaseOf(this.ns.name)),
    };
    return { event, deliveries: this.deliver(name, merchantAccountId, event.id, JSON.stringify(event), steering) };
  }

  /** Records a delivery of the event (`body`, its bytes on every attempt) per receiving subscription. */
  private deliver(name: string, merchantAccountId: string, eventId: string, body: string, steering: DeliverySteering | null): WebhookDeliveryRecord[] {
    const problem = this.service.options.validate ? this.service.catalog.problemWith(JSON.parse(body)) : null;
    if (problem) {
      this.service.logger.error(
        { event: 'webhook-self-check', namespace: this.ns.name, event_name: name, event_id: eventId, problem },
        `webhook self-check: ${problem}`,
      );
    }
    const deliveries: WebhookDeliveryRecord[] = [];
    const copies = steering?.copies ?? (this.behaviour.duplicate ? 2 : 1);
    const receivers = this.byMerchant.get(merchantAccountId) ?? [];
    const forward = this.service.forwardSubscription(merchantAccountId);
    for (const subscription of forward ? [...receivers, forward] : receivers) {
      for (let copy = 0; copy < copies; copy++) {
        deliveries.push(this.record(subscription, merchantAccountId, eventId, name, body, problem && `self-check: ${problem}`, steering));
      }
    }
    return deliveries;
  }

  private record(
    subscription: WebhookSubscriptionRecord,
    merchantAccountId: string,
    eventId: string,
    eventName: string,
    body: string,
    failure: string | null,
    steering: DeliverySteering | null,
  ): WebhookDeliveryRecord {
    const now = this.ns.clock.now();
    const full = failure === null && this.queue.full;
    if (full) this.refused();
    const ended = failure ?? (full ? `queue_full: ${MAX_PENDING} deliveries are already waiting in this namespace; this one was not sent` : null);
    const at = this.ns.clock.nowIso();
    const due = now + (steering?.delay_ms ?? this.behaviour.delay_ms);
    const delivery = this.ns.store.collections.webhook_deliveries.insert({
      type: 'webhook-delivery',
      id: flatUuid(),
      merchant_account_id: merchantAccountId,
      subscription_id: subscription.id,
      event_id: eventId,
      event_name: eventName,
      body,
      status: ended ? 'failed' : 'pending',
      attempts: [],
      next_attempt_at: ended ? null : due === now ? at : iso(due),
      error: ended,
      created_at: at,
      updated_at: at,
      // Only on the deliveries a scenario steered: the others keep their shape.
      ...(steering ? { scenario: steering.scenario, ...(steering.reorder ? { reorder: true as const } : {}) } : {}),
    });
    if (ended) this.queue.prune();
    else this.queue.add(delivery, due);
    return delivery;
  }

  private refused(): void {
    this.dropped++;
    const now = Date.now();
    if (now - this.lastQueueFullLine < 10_000) return;
    this.lastQueueFullLine = now;
    this.service.logger.warn(
      { event: 'webhook-queue-full', namespace: this.ns.name, pending: this.queue.pending, dropped: this.dropped },
      `webhooks of namespace '${this.ns.name}': ${MAX_PENDING} deliveries are waiting, new ones are recorded failed (queue_full) and not sent`,
    );
  }

  /** The subscription that receives `record` now: an active record, or the forward target; null otherwise. */
  subscriptionFor(record: WebhookDeliveryRecord): WebhookSubscriptionRecord | null {
    this.refresh();
    const forward = this.service.forwardSubscription(record.merchant_account_id);
    if (forward && forward.id === record.subscription_id) return forward;
    const subscription = this.ns.store.collections.webhook_subscriptions.get(record.subscription_id);
    return subscription?.active && subscription.merchant_account_id === record.merchant_account_id ? subscription : null;
  }

  reorder(): boolean {
    return this.behaviour.reorder;
  }

  catchUp(): void {
    if (this.receiving) this.ns.catchUpTimedChanges(); // report statuses and planned approvals announce what they went through
  }

  nextChangeAt(): number | null {
    return this.receiving ? this.ns.nextTimedChangeAt() : null;
  }

  /**
   * Brings the index of active subscriptions up to the records (only when they changed): gives a
   * secret to any that has none (and active: true to any that does not say), and ends at once the
   * deliveries of any deleted or made inactive.
   */
  refresh(): void {
    const subscriptions = this.ns.store.collections.webhook_subscriptions;
    if (subscriptions === this.indexed && subscriptions.changeCount === this.indexedChanges) return;
    // A subscription from a fixtures file or an older data file may lack both: active unless it says otherwise.
    for (const s of subscriptions.all()) {
      if (!s.secret || s.active === undefined) subscriptions.update(s.id, { secret: s.secret || generateSecret(), active: s.active ?? true });
    }
    this.byMerchant.clear();
    for (const s of subscriptions.all()) {
      if (!s.active) continue;
      const list = this.byMerchant.get(s.merchant_account_id);
      if (list) list.push(s);
      else this.byMerchant.set(s.merchant_account_id, [s]);
    }
    this.indexed = subscriptions;
    this.indexedChanges = subscriptions.changeCount;
    this.queue.cancelUnreceived();
    this.queue.rearm();
  }

  /** Sends a delivery again now: a pending one keeps its schedule after; a finished one ends after this attempt. */
  sendAgain(delivery: WebhookDeliveryRecord): WebhookDeliveryRecord {
    const revived = delivery.status !== 'pending';
    const now = this.ns.clock.nowIso();
    const db = this.ns.store.collections.webhook_deliveries;
    const updated = db.update(delivery.id, {
      status: 'pending',
      next_attempt_at: now,
      error: revived ? null : delivery.error,
      updated_at: now,
    }) as WebhookDeliveryRecord;
    this.queue.add(updated, this.ns.clock.now(), true, revived);
    return updated;
  }

  /** A new secret (given or generated); the old one keeps signing too for `keepSeconds` of namespace time (0: not at all). */
  rotateSecret(subscription: WebhookSubscriptionRecord, secret: string | undefined, keepSeconds: number): WebhookSubscriptionRecord {
    const now = this.ns.clock.now();
    return this.ns.store.collections.webhook_subscriptions.update(subscription.id, {
      secret: secret ?? generateSecret(),
      previous_secret: keepSeconds > 0 ? (subscription.secret ?? null) : null,
      previous_secret_expires_at: keepSeconds > 0 ? iso(now + keepSeconds * 1000) : null,
      updated_at: iso(now),
    }) as WebhookSubscriptionRecord;
  }

  setBehaviour(behaviour: Partial<DeliveryBehaviour>): DeliveryBehaviour {
    this.behaviour = { ...this.behaviour, ...behaviour };
    return this.behaviour;
  }

  /** A reset: default behaviour, and the queue follows the fixtures' deliveries (none). */
  reset(): void {
    this.behaviour = { ...DEFAULT_BEHAVIOUR };
    this.dropped = 0;
    this.recordsReplaced();
  }

  recordsReplaced(): void {
    if (!this.ns.admitted) return;
    this.refresh();
    this.queue.rebuild();
  }

  dispose(): Promise<void> {
    this.service.unregister(this);
    this.ns.listenToChanges(null);
    return this.queue.dispose();
  }

  exportState(): WebhookState {
    return { behaviour: { ...this.behaviour }, dropped: this.dropped };
  }

  prepareImport(state: unknown): () => void {
    const checked = state === null ? { behaviour: { ...DEFAULT_BEHAVIOUR }, dropped: 0 } : checkState(state);
    return () => {
      this.behaviour = checked.behaviour;
      this.dropped = checked.dropped;
      this.recordsReplaced(); // the records were replaced before the parts' commits
    };
  }
}

function checkState(state: unknown): WebhookState {
  const s = state as Partial<WebhookState> | null;
  const b = s?.behaviour as Partial<DeliveryBehaviour> | undefined;
  const ok =
    b &&
    Number.isSafeInteger(b.delay_ms) &&
    (b.delay_ms as number) >= 0 &&
    (b.delay_ms as number) <= MAX_DELAY_MS &&
    typeof b.duplicate === 'boolean' &&
    typeof b.reorder === 'boolean' &&
    Number.isSafeInteger(s?.dropped) &&
    (s?.dropped as number) >= 0;
  if (!ok) throw new Error(`expected {behaviour: {delay_ms: 0..${MAX_DELAY_MS}, duplicate: boolean, reorder: boolean}, dropped: count}`);
  return { behaviour: { delay_ms: b.delay_ms as number, duplicate: b.duplicate as boolean, reorder: b.reorder as boolean }, dropped: s?.dropped as number };
}

/** Every namespace's webhooks: made with the namespace, since it listens to the clock and to announcements. */
export const WEBHOOKS = new PartKey<WebhookHub>('webhooks');
