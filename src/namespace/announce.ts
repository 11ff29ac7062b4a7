// What the API's handlers and the report scheduler say happened to a record ("buyer.updated"), for
// whoever listens: the webhooks layer, which sits above them and so cannot be imported by them. A
// namespace holds at most one listener; with none, or one that has no subscription for the merchant
// account, announcing is a call and a check, with nothing built.
import type { CollectionName } from '../store/records.js';

/** One thing that happened to a record: what is announced, by name, from the caller to the listener. */
export interface Announcement {
  /** The event: `<resource type>.<what happened>` (buyer.updated). */
  name: string;
  merchantAccountId: string;
  collection: CollectionName;
  /** The stored record, or a view of it as it was at `atMs`; the listener reads it before returning and keeps nothing. */
  record: object;
  /** When it happened on the namespace clock; absent or NaN: now. */
  atMs?: number;
  /** How its deliveries are sent (the request's scenario's); absent or null: as the namespace's behaviour says. */
  steering?: DeliverySteering | null;
  /** The record's API JSON when the caller made it already (the answer it sends): the event embeds it instead of serializing the record again. */
  targetJson?: string;
}

export interface ChangeListener {
  /** Whether an announcement for this merchant account would be delivered anywhere (build nothing when not). */
  wants(merchantAccountId: string): boolean;
  announced(announcement: Announcement): void;
}

/**
 * How the deliveries of one request's events are sent, from the `webhooks` field of the scenario
 * that took a step for the request (compiled once with the scenario). A field left out follows the
 * namespace's behaviour (PUT /_sandbox/webhooks/behaviour).
 */
export interface DeliverySteering {
  /** The scenario that gave it (shown on each delivery it steered). */
  scenario: string;
  /** Each delivery is due this much later on the namespace clock. */
  delay_ms?: number;
  /** Deliveries of each event to each subscription (one event id): 2 for a duplicate. */
  copies?: number;
  /** Its deliveries that fall due together go out newest first, one at a time. */
  reorder?: boolean;
}

/**
 * Records that change by themselves as the namespace clock runs (report schedules), yet only when
 * asked: whoever must hear of those changes on time (webhooks) catches them up when they fall due.
 */
export interface TimedChanges {
  /** Brings them up to the namespace clock, announcing what happened. */
  catchUp(): void;
  /** When they next change by themselves, on the namespace clock; null when nothing will. */
  nextChangeAt(): number | null;
  /** Whether a change to a record of `collection` may move nextChangeAt. */
  movedBy(collection: CollectionName): boolean;
}
