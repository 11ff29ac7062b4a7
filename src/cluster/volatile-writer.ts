// The journal entries and scenario step counters of the namespaces a node owns follow in Redis
// asynchronously, a few times a second (owner.ts calls send() one write at a time per namespace):
// they are not acknowledged writes, and sending them with every answer would cost the answers.
import { JOURNAL } from '../journal/journal.js';
import type { Namespace } from '../namespace/namespace.js';
import { nsKeys, type SandboxRedis } from './redis.js';
import type { LeaseHandle, StoreCounters } from './redis-persistence.js';
import { packRecords, partsOf } from './state-codec.js';

/**
 * The journal follows in Redis within JOURNAL_BYTES_PER_S per node: a node answering thousands of
 * requests a second would otherwise send every entry (2 KB and more each), tens of MB a second,
 * which costs its answers a third of their speed. Past the budget a namespace's new entries wait,
 * at most JOURNAL_MAX_DEFER_MS, and are then sent (the newest the journal still holds).
 */
const JOURNAL_BYTES_PER_S = 4 * 1024 * 1024;
export const JOURNAL_MAX_DEFER_MS = 5_000;

/** What a namespace's owner keeps of what it sent (owner.ts's Owned). */
export interface Shipped extends LeaseHandle {
  /** A request used it since the last volatile write. */
  touched: boolean;
  persistence: { gen: number } | null;
  /** The journal's last id and generation written to Redis, how many entries and bytes its chunks hold there, and when they were last sent. */
  journalSent: number;
  journalGeneration: number;
  journalInRedis: number;
  journalBytesInRedis: number;
  journalShippedAt: number;
  /** The volatile parts last written (without their time). */
  volatileSent: string;
}

export class VolatileWriter {
  /** Bytes of journal this node may still send now (refilled at JOURNAL_BYTES_PER_S, at most a second's worth). */
  private journalBudget = JOURNAL_BYTES_PER_S;
  private journalBudgetAt = performance.now();

  constructor(
    private readonly redis: SandboxRedis,
    /** The journal's size in entries (--journal-size): its chunks in Redis are written again whole past twice it. */
    private readonly journalSize: number,
    private readonly counters: StoreCounters,
  ) {}

  /** `force`: the whole journal now, whatever the budget (a handover, a stop). */
  async send(owned: Shipped, force: boolean, ns: Namespace | undefined): Promise<void> {
    if (!ns || owned.lost) return;
    const journal = ns.existingPart(JOURNAL);
    let records = journal ? journal.recordsAfter(owned.journalSent) : [];
    let bytes = sizeOf(records);
    const regenerated = journal !== undefined && journal.generation !== owned.journalGeneration;
    // Cleared or imported since, or its chunks in Redis hold twice what it keeps: written again whole.
    const oversized =
      journal !== undefined &&
      (owned.journalInRedis + records.length > 2 * Math.max(1, this.journalSize) || owned.journalBytesInRedis + bytes > 2 * Math.max(1 << 20, journal.bytes));
    let cleared = regenerated || oversized;
    if (cleared && journal) {
      records = journal.recordsAfter(0);
      bytes = sizeOf(records);
    }
    const now = performance.now();
    this.journalBudget = Math.min(JOURNAL_BYTES_PER_S, this.journalBudget + ((now - this.journalBudgetAt) / 1000) * JOURNAL_BYTES_PER_S);
    this.journalBudgetAt = now;
    if (!force && !regenerated && bytes > this.journalBudget && now - owned.journalShippedAt < JOURNAL_MAX_DEFER_MS) {
      records = []; // over the budget: these entries wait (the counters below still go)
      bytes = 0;
      cleared = false;
      owned.touched = true;
    }
    this.journalBudget -= bytes;
    const gen = owned.persistence?.gen ?? 0;
    const volatile = JSON.stringify({ gen, parts: partsOf(ns) });
    const changed = volatile !== owned.volatileSent;
    if (!changed && records.length === 0 && !cleared) return;
    const keys = nsKeys(owned.name);
    // What was sent: the newest id only when the entries went (deferred ones are sent later).
    const lastId = records.length > 0 || cleared ? (journal?.lastId ?? 0) : owned.journalSent;
    const meta = JSON.stringify({ last_id: lastId, dropped: journal?.dropped ?? 0 });
    const text = changed ? `${volatile.slice(0, -1)},"at":"${new Date().toISOString()}"}` : '';
    const generation = journal?.generation ?? 0;
    this.counters.roundTrips++;
    try {
      await this.redis.runAfterPush(
        keys.journalStaging,
        records.length ? packRecords(records) : null, // packed now, synchronously: the journal's views are valid until its next entry
        'volatileCommit',
        [keys.lease, keys.volatile, keys.journal, keys.journalMeta, keys.journalStaging],
        [owned.holder, text, meta, cleared ? '1' : '0'],
      );
    } catch (err) {
      this.counters.failures++;
      throw err;
    }
    owned.volatileSent = volatile;
    owned.journalSent = lastId;
    owned.journalGeneration = generation;
    owned.journalInRedis = (cleared ? 0 : owned.journalInRedis) + records.length;
    owned.journalBytesInRedis = (cleared ? 0 : owned.journalBytesInRedis) + bytes;
    if (records.length > 0 || cleared) owned.journalShippedAt = performance.now();
  }
}

function sizeOf(records: readonly Buffer[]): number {
  let bytes = 0;
  for (const record of records) bytes += record.length;
  return bytes;
}
