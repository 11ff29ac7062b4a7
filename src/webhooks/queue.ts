// The delivery queue of one namespace. Deliveries are records (webhook_deliveries), so they are
// exported, persisted and reset like any record; the queue is what is derived from the pending ones:
// when each is due on the namespace clock, which are ready, which are in flight. One timer per
// namespace waits for the next due attempt while the clock runs; a frozen clock moves only through
// /_sandbox/clock, whose every move releases what fell due, in due order. Attempts run outside any
// request (setImmediate), at most IN_FLIGHT at once; a failed one is retried after BACKOFF_MS.
import { DELIVERY_HEADER } from '../http/webhook-loop.js';
import type { Namespace } from '../namespace/namespace.js';
import type { WebhookAttempt, WebhookDeliveryRecord, WebhookDeliveryStatus, WebhookSubscriptionRecord } from '../store/records.js';
import { INBOX, isInboxUrl } from './inbox.js';
import { BACKOFF_MS, IN_FLIGHT, MAX_ATTEMPTS, MAX_FINISHED, MAX_PENDING } from './limits.js';
import type { WebhookShared } from './shared.js';
import { signatureHeader, wallClockTimestamp } from './signing.js';
import { type AttemptResult, type SentAttempt, WebhookTransport } from './transport.js';

interface Entry {
  id: string;
  due: number;
  /** Order of arrival: ties in `due` go out first come, first served (last, under reorder). */
  seq: number;
  state: 'waiting' | 'ready' | 'in-flight';
  /** Asked for by the retry route: the attempt is marked manual; a finished delivery sent again ends after it. */
  manual: boolean;
  /** A finished delivery sent again by hand: no automatic retry after it. */
  revived: boolean;
  /** A scenario asked for its deliveries newest first, one at a time (the record's `reorder`). */
  reorder: boolean;
  /** The attempt in flight, if any. */
  attempt?: SentAttempt;
}

export interface QueueHost {
  /** The subscription that receives `record` now, or null when it was deleted or made inactive. */
  subscriptionFor(record: WebhookDeliveryRecord): WebhookSubscriptionRecord | null;
  /** Whether deliveries that fall due together go out newest first, one at a time. */
  reorder(): boolean;
  /** Time-driven changes that announce events (report executions); the queue runs it when its timer fires. */
  catchUp(): void;
  /** When catchUp() next has something to do (namespace clock), or null. */
  nextChangeAt(): number | null;
}

let lastIsoMs = Number.NaN;
let lastIso = '';
/** RFC 3339 of `ms`, formatted once while the same instant repeats (attempts started or due together). */
function iso(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIsoMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

const CANCELLED = 'cancelled: the subscription was deleted or made inactive';

const isFinished = (record: WebhookDeliveryRecord) => record.status !== 'pending';

export class DeliveryQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly waiting = new Set<Entry>();
  private ready: Entry[] = [];
  private inFlight = 0;
  private seq = 0;
  /** Grows on every rebuild: results of attempts started before it are dropped. */
  private generation = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private releaseScheduled = false;
  /** The time-driven changes' next instant may have moved: the timer is armed again at the next release. */
  private rearmDue = false;
  private disposed = false;
  /** This namespace's own connections (see WebhookTransport). */
  private readonly transport: WebhookTransport;

  constructor(
    private readonly ns: Namespace,
    private readonly service: WebhookShared,
    private readonly host: QueueHost,
  ) {
    const { timeoutMs, pipelining } = service.options;
    this.transport = new WebhookTransport({ timeoutMs, pipelining, targets: service.targets });
  }

  /** Deliveries not finished: waiting, ready or in flight. */
  get pending(): number {
    return this.entries.size;
  }

  get full(): boolean {
    return this.entries.size >= MAX_PENDING;
  }

  private get db() {
    return this.ns.store.collections.webhook_deliveries;
  }

  /** Queues a stored pending delivery for its due time (its next_attempt_at, in ms). */
  add(record: WebhookDeliveryRecord, due: number, manual = false, revived = false): void {
    const entry = this.entryFor(record, due, manual, revived);
    const now = this.ns.clock.now();
    const last = this.ready.length > 0 ? this.ready[this.ready.length - 1].due : Number.NEGATIVE_INFINITY;
    if (due <= now && due >= last && this.waiting.size === 0 && !this.host.reorder() && !entry.reorder) {
      // Due now, and after everything in the ready line: where the release would put it, unsorted.
      entry.state = 'ready';
      this.ready.push(entry);
    } else {
      this.waiting.add(entry);
      if (due > now && due < this.timerAt) this.armTimer(); // due now: the release takes it
    }
    this.scheduleRelease();
  }

  private entryFor(record: WebhookDeliveryRecord, due: number, manual: boolean, revived: boolean): Entry {
    const entry: Entry = { id: record.id, due, seq: this.seq++, state: 'waiting', manual, revived, reorder: record.reorder === true };
    this.drop(record.id);
    this.entries.set(record.id, entry);
    return entry;
  }

  /** Forgets every entry and queues the pending deliveries the records hold now (start, reset, import), released in due order. */
  rebuild(): void {
    this.abortAll();
    const now = this.ns.clock.now();
    for (const record of this.db.all()) {
      if (record.status !== 'pending') continue;
      this.waiting.add(this.entryFor(record, record.next_attempt_at === null ? now : Date.parse(record.next_attempt_at), false, false));
    }
    this.armTimer(); // schedules the release of what is due now
  }

  /** Ends the deliveries whose subscription no longer receives (deleted or inactive), in flight or not. */
  cancelUnreceived(): void {
    for (const entry of [...this.entries.values()]) {
      const record = this.db.get(entry.id);
      if (!record) this.drop(entry.id);
      else if (!this.host.subscriptionFor(record)) this.finish(record, 'cancelled', null, CANCELLED);
    }
  }

  /** The clock moved or the timer fired: time-driven events first, then everything due, in due order. */
  tick(): void {
    if (this.disposed) return;
    this.host.catchUp();
    this.release();
    this.armTimer();
  }

  /** Stops the timers and the attempts in flight; the promise settles once the connections are closed. */
  dispose(): Promise<void> {
    this.disposed = true;
    this.abortAll();
    return this.transport.close();
  }

  /** Forgets every entry and aborts the attempts in flight: a new generation first, so that their results (told at once) are dropped. */
  private abortAll(): void {
    this.generation++;
    for (const entry of this.entries.values()) entry.attempt?.abort();
    this.entries.clear();
    this.waiting.clear();
    this.ready = [];
    this.inFlight = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /** Forgets a delivery's entry; an attempt of it in flight is aborted (its record is gone or finished). */
  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.waiting.delete(entry);
    if (entry.state === 'ready') this.ready = this.ready.filter((e) => e !== entry);
    // Forgotten first: an aborted attempt tells its result at once, and it must not be recorded.
    entry.attempt?.abort();
  }

  /** After the request that queued them: never inside it. */
  private scheduleRelease(): void {
    if (this.releaseScheduled || this.disposed) return;
    this.releaseScheduled = true;
    setImmediate(() => {
      this.releaseScheduled = false;
      if (this.disposed) return;
      this.release();
      if (this.rearmDue) this.armTimer();
    });
  }

  /** Moves what is due to the ready line (due order; newest first under reorder) and starts attempts. */
  private release(): void {
    const now = this.ns.clock.now();
    const due: Entry[] = [];
    for (const entry of this.waiting) if (entry.due <= now) due.push(entry);
    if (due.length) {
      due.sort((a, b) => a.due - b.due || a.seq - b.seq);
      if (this.host.reorder()) due.reverse();
      else reverseReordered(due);
      for (const entry of due) {
        this.waiting.delete(entry);
        entry.state = 'ready';
        this.ready.push(entry);
      }
    }
    this.pump();
  }

  private pump(): void {
    const limit = this.host.reorder() ? 1 : IN_FLIGHT;
    // A reordered delivery starts alone, so that the receiver gets them in the order they left.
    while (this.ready.length > 0 && this.inFlight < (this.ready[0].reorder ? 1 : limit)) this.start(this.ready.shift() as Entry);
  }

  private start(entry: Entry): void {
    const record = this.db.get(entry.id);
    if (record?.status !== 'pending') {
      this.entries.delete(entry.id);
      return;
    }
    const subscription = this.host.subscriptionFor(record);
    if (!subscription) {
      this.finish(record, 'cancelled', null, CANCELLED);
      return;
    }
    const at = this.ns.clock.nowIso();
    const wallClock = Date.now();
    const timestamp = wallClockTimestamp(wallClock);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'payments-sandbox-webhooks',
      'x-service-timestamp': timestamp,
      'x-service-signature': signatureHeader(this.secretsOf(subscription), timestamp, record.body), // signed once per attempt
      [DELIVERY_HEADER]: record.id, // every sandbox refuses it: a subscription aimed back at one cannot loop
    };
    entry.state = 'in-flight';
    this.inFlight++;
    const generation = this.generation;
    const onResult = (result: AttemptResult) => {
      if (generation !== this.generation || this.disposed) return;
      this.inFlight--;
      entry.attempt = undefined;
      this.attempted(entry, at, iso(wallClock), subscription.url, result);
      this.pump();
    };
    entry.attempt = isInboxUrl(subscription.url)
      ? this.toInbox(record, subscription, at, headers, onResult)
      : this.transport.send(subscription.url, headers, record.body, onResult);
  }

  /** The namespace's own inbox receives it: no connection, the same headers and result as a receiver's. */
  private toInbox(
    record: WebhookDeliveryRecord,
    subscription: WebhookSubscriptionRecord,
    at: string,
    headers: Record<string, string>,
    onResult: (result: AttemptResult) => void,
  ): SentAttempt {
    const attempt = {
      url: subscription.url,
      deliveryId: record.id,
      attempt: record.attempts.length + 1,
      subscriptionId: subscription.id,
      eventId: record.event_id,
      eventName: record.event_name,
      at,
      headers,
      body: record.body,
    };
    return this.ns.part(INBOX).receive(attempt, onResult);
  }

  /** The current secret, and the previous one until it expires (namespace clock). */
  private secretsOf(subscription: WebhookSubscriptionRecord): string[] {
    const secrets = [subscription.secret as string];
    const previous = subscription.previous_secret;
    const expires = subscription.previous_secret_expires_at;
    if (previous && (!expires || Date.parse(expires) > this.ns.clock.now())) secrets.push(previous);
    return secrets;
  }

  private attempted(entry: Entry, at: string, wallClockAt: string, url: string, result: AttemptResult): void {
    const record = this.db.get(entry.id);
    if (record?.status !== 'pending' || this.entries.get(entry.id) !== entry) return; // deleted, cancelled or queued again meanwhile
    const attempt: WebhookAttempt = {
      number: record.attempts.length + 1,
      at,
      wall_clock_at: wallClockAt,
      url,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      error: result.error,
      response_excerpt: result.excerpt,
      manual: entry.manual,
    };
    const attempts = record.attempts.length === 0 ? [attempt] : [...record.attempts, attempt];
    this.log(record, attempt);
    let automatic = 0;
    for (const a of attempts) if (!a.manual) automatic++;
    if (result.error === null || entry.revived || automatic >= MAX_ATTEMPTS) {
      this.finish(record, result.error === null ? 'succeeded' : 'failed', attempts, result.error);
      return;
    }
    const due = this.ns.clock.now() + BACKOFF_MS[automatic - 1];
    this.db.update(record.id, { attempts, next_attempt_at: iso(due), error: result.error, updated_at: this.ns.clock.nowIso() });
    entry.state = 'waiting';
    entry.manual = false;
    entry.due = due;
    this.waiting.add(entry);
    if (due < this.timerAt) this.armTimer();
  }

  /** Ends a delivery; the oldest finished ones beyond MAX_FINISHED are removed. */
  finish(record: WebhookDeliveryRecord, status: Exclude<WebhookDeliveryStatus, 'pending'>, attempts: WebhookAttempt[] | null, error: string | null): void {
    this.drop(record.id);
    this.db.update(record.id, { status, attempts: attempts ?? record.attempts, next_attempt_at: null, error, updated_at: this.ns.clock.nowIso() });
    this.prune();
  }

  /**
   * Keeps the collection within MAX_PENDING + MAX_FINISHED records: the oldest finished go, a tenth
   * of MAX_FINISHED more than needed at once, so that removing is not on every new delivery.
   */
  prune(): void {
    const db = this.db;
    const excess = db.size - (MAX_PENDING + MAX_FINISHED);
    if (excess <= 0) return;
    db.removeWhere(isFinished, excess + Math.floor(MAX_FINISHED / 10)); // records are in the order they were made
  }

  /** Arms the one timer for the next due attempt or time-driven change; none while the clock is frozen. */
  private armTimer(): void {
    this.rearmDue = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.disposed) return;
    const now = this.ns.clock.now();
    let next = this.host.nextChangeAt() ?? Number.POSITIVE_INFINITY;
    for (const entry of this.waiting) {
      if (entry.due <= now) this.scheduleRelease();
      else if (entry.due < next) next = entry.due;
    }
    this.timerAt = next; // also while frozen: what falls due before it is all that needs arming again
    if (!Number.isFinite(next) || this.ns.clock.snapshot().mode === 'frozen') return;
    const delay = Math.min(Math.max(0, next - now), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.tick();
    }, delay);
    this.timer.unref(); // a pending retry never keeps the process alive
  }

  /** Re-arms after the time-driven changes' next instant may have moved (a report created or changed). */
  rearm(): void {
    if (!this.disposed) this.armTimer();
  }

  /** The same, once after the current request or clock move (which may announce thousands of report runs). */
  rearmSoon(): void {
    this.rearmDue = true;
    this.scheduleRelease();
  }

  private log(record: WebhookDeliveryRecord, attempt: WebhookAttempt): void {
    if (!this.service.logger.isLevelEnabled('debug')) return;
    this.service.logger.debug(
      {
        event: 'webhook-attempt',
        namespace: this.ns.name,
        delivery: record.id,
        event_name: record.event_name,
        url: attempt.url,
        attempt: attempt.number,
        status: attempt.status_code,
        ms: attempt.duration_ms,
        error: attempt.error,
      },
      `webhook ${record.event_name} -> ${attempt.url}: ${attempt.error ?? attempt.status_code}`,
    );
  }
}

/** Reverses, in place, the order of the entries a scenario reorders among themselves; the others keep their places. */
function reverseReordered(due: Entry[]): void {
  const places: number[] = [];
  for (let i = 0; i < due.length; i++) if (due[i].reorder) places.push(i);
  if (places.length < 2) return;
  const entries = places.map((i) => due[i]).reverse();
  places.forEach((place, k) => {
    due[place] = entries[k];
  });
}
