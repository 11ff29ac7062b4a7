// The webhook inbox of one namespace: a receiver inside the sandbox, for a tester without a server of
// their own (docs/webhooks.md#the-inbox). A subscription whose URL's host is INBOX_HOST is delivered
// here by the queue instead of over the network: the same delivery record, signing, retries and
// steering as any receiver, without a connection and without the sandbox calling itself. What
// arrived is read through GET /_sandbox/webhooks/inbox (the console, `payments-sandbox listen`).
// Bounded like the journal, in notifications and in bytes: the oldest go first, and how many went
// is counted (`dropped`) so a reader can say so. A reset empties it; it stays in this process's
// memory (not in exported state): notifications are what a receiver saw, not the namespace's state.
import type { PartKind } from '../namespace/namespace.js';
import { type NamespacePart, PartKey } from '../namespace/part.js';
import type { AttemptCallback, SentAttempt } from './transport.js';

/** The host of inbox URLs: under .invalid (RFC 2606), so it can never be a real receiver's name. */
export const INBOX_HOST = 'inbox.sandbox.invalid';
/** The URL the control API and the console suggest; any path under INBOX_HOST is the inbox too. */
export const INBOX_URL = `https://${INBOX_HOST}/`;
/** Notifications kept per namespace. */
export const INBOX_MAX_NOTIFICATIONS = 10_000;
/** Bytes of headers and bodies kept per namespace (the journal's budget). */
export const INBOX_MAX_BYTES = 16 * 1024 * 1024;

export interface InboxNotification {
  /** Increasing per namespace, never reused (a reset does not restart it): `after` in the route. */
  id: number;
  /** The namespace clock when it arrived, RFC 3339. */
  received_at: string;
  url: string;
  delivery_id: string;
  /** The delivery's attempt this was (1 for the first). */
  attempt: number;
  subscription_id: string;
  event_id: string;
  event_name: string;
  headers: Record<string, string>;
  /** The body as sent (the signed bytes). */
  body: string;
  /** What the inbox answered: 200, or the status the URL asked for (`?status=503`). */
  status_code: number;
}

export interface InboxAttempt {
  url: string;
  deliveryId: string;
  attempt: number;
  subscriptionId: string;
  eventId: string;
  eventName: string;
  at: string;
  headers: Record<string, string>;
  body: string;
}

/** Whether `url` names the inbox (its host, any scheme, port and path). */
export function isInboxUrl(url: string): boolean {
  const start = url.indexOf('://');
  if (start < 0) return false;
  const rest = url.slice(start + 3);
  const end = rest.search(/[/?#:]/);
  return (end < 0 ? rest : rest.slice(0, end)).toLowerCase().replace(/\.$/, '') === INBOX_HOST;
}

/** The status an inbox URL asks to be answered (`?status=503`: a receiver failing, to see retries), 200 by default. */
export function answerOf(url: string): number {
  const status = /[?&]status=(\d{3})(&|#|$)/.exec(url)?.[1];
  const code = status === undefined ? 200 : Number(status);
  return code >= 200 && code <= 599 ? code : 200;
}

/** Bytes a notification holds: its body, URL and headers. */
function sizeOf(n: InboxNotification): number {
  let bytes = Buffer.byteLength(n.body) + n.url.length;
  for (const name in n.headers) bytes += name.length + n.headers[name].length;
  return bytes;
}

export class WebhookInbox implements NamespacePart {
  private notifications: InboxNotification[] = [];
  /** Index of the oldest kept in `notifications` (dropped from the front lazily, in batches). */
  private head = 0;
  private bytes = 0;
  private nextId = 1;
  /** Notifications dropped past the bounds since the last reset. */
  dropped = 0;

  constructor(
    private readonly maxNotifications = INBOX_MAX_NOTIFICATIONS,
    private readonly maxBytes = INBOX_MAX_BYTES,
  ) {}

  /** Takes an attempt as a receiver would, answering at once (after this returns, as the network would). */
  receive(attempt: InboxAttempt, onResult: AttemptCallback): SentAttempt {
    const status = answerOf(attempt.url);
    this.add({
      id: this.nextId++,
      received_at: attempt.at,
      url: attempt.url,
      delivery_id: attempt.deliveryId,
      attempt: attempt.attempt,
      subscription_id: attempt.subscriptionId,
      event_id: attempt.eventId,
      event_name: attempt.eventName,
      headers: attempt.headers,
      body: attempt.body,
      status_code: status,
    });
    const excerpt = `{"received":true,"status":${status}}`;
    const error = status >= 300 ? `answered ${status}: not a 2xx (the inbox URL asks for it with ?status=${status})` : null;
    let aborted = false;
    queueMicrotask(() => {
      if (!aborted) onResult({ statusCode: status, durationMs: 0, error, excerpt });
    });
    return { abort: () => void (aborted = true) };
  }

  private add(notification: InboxNotification): void {
    this.notifications.push(notification);
    this.bytes += sizeOf(notification);
    while (this.kept > this.maxNotifications || (this.bytes > this.maxBytes && this.kept > 1)) {
      this.bytes -= sizeOf(this.notifications[this.head]);
      this.head++;
      this.dropped++;
    }
    // Compacts once the dropped front is as long as what is kept: amortized O(1) per notification.
    if (this.head > 1024 && this.head * 2 > this.notifications.length) {
      this.notifications = this.notifications.slice(this.head);
      this.head = 0;
    }
  }

  get kept(): number {
    return this.notifications.length - this.head;
  }

  get keptBytes(): number {
    return this.bytes;
  }

  /** The next id to be given: a reader that has seen everything asks `after` it minus one. */
  get lastId(): number {
    return this.nextId - 1;
  }

  /** Notifications with an id above `after`, oldest first, at most `limit`. */
  after(after: number, limit: number): InboxNotification[] {
    const list = this.notifications;
    let low = this.head;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (list[mid].id <= after) low = mid + 1;
      else high = mid;
    }
    return list.slice(low, low + limit);
  }

  /** The newest `limit`, newest first (the console). */
  newest(limit: number): InboxNotification[] {
    const from = Math.max(this.head, this.notifications.length - limit);
    return this.notifications.slice(from).reverse();
  }

  /** Empties it (DELETE /_sandbox/webhooks/inbox, a reset); ids go on. */
  clear(): void {
    this.notifications = [];
    this.head = 0;
    this.bytes = 0;
    this.dropped = 0;
  }

  reset(): void {
    this.clear();
  }

  /** Not exported: what a receiver saw is not the namespace's state (a moved namespace's inbox starts empty). */
  exportState(): null {
    return null;
  }

  prepareImport(): () => void {
    return () => this.clear();
  }
}

export const INBOX = new PartKey<WebhookInbox>('webhook-inbox');

export const inboxKind: PartKind<WebhookInbox> = { key: INBOX, create: () => new WebhookInbox() };
