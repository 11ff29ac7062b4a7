// Following the journal live (GET /_sandbox/requests/stream; the console's Requests page). Every
// namespace's journal tells one feed when it adds an entry, is cleared or is replaced, but only
// while someone watches: with nobody connected, recording a request looks at one flag and nothing
// else. A follower does no work per request either: it notes which journals changed and reads
// them once per batch (at most every BATCH_MS), off the request path. Its position is an entry id,
// so the journal's own ring is its buffer; what it cannot keep up with (more than maxPerBatch
// matching entries in one batch, or entries the journal dropped before the batch came) is counted
// and reported, never queued without bound.
import type { JournalSummary, JournalView } from './entry.js';
import type { FilteredFields } from './filters.js';
import type { Journal, JournalFeedLike } from './journal.js';

/** Something following the feed. */
export interface JournalWatcher {
  /** A journal of that namespace has new entries, or was cleared or replaced. Called on the request path: keep it cheap. */
  wake(journal: Journal, namespace: string): void;
  /** The sandbox is closing. */
  close(): void;
}

export class JournalFeed implements JournalFeedLike {
  watching = false;
  private readonly watchers = new Set<JournalWatcher>();

  get watcherCount(): number {
    return this.watchers.size;
  }

  add(watcher: JournalWatcher): void {
    this.watchers.add(watcher);
    this.watching = true;
  }

  remove(watcher: JournalWatcher): void {
    this.watchers.delete(watcher);
    this.watching = this.watchers.size > 0;
  }

  changed(journal: Journal, namespace: string): void {
    for (const watcher of this.watchers) watcher.wake(journal, namespace);
  }

  /** Ends every follower (the sandbox is closing: open streams would hold the server open). */
  closeAll(): void {
    for (const watcher of [...this.watchers]) watcher.close();
  }
}

/** What a follower hands on after a batch. */
export interface FollowBatch {
  /** New matching entries, oldest first. */
  entries: JournalSummary[];
  /** Entries that may have matched but are not in `entries`: beyond the batch's cap, or dropped by the journal first. */
  missed: number;
  /** Namespaces whose journal was cleared or replaced since the last batch: what was shown of them is stale. */
  reloaded: string[];
  /** Of those, the namespaces dropped (deleted, evicted): their journal is gone; one made again under the name is followed from its first entry. */
  dropped: string[];
  /** Journals that dropped their oldest entries since the last batch (their entry count or byte budget reached). */
  full: JournalFull[];
}

/** A journal that dropped its oldest entries to make room: how many since the last batch, and since its namespace was made. */
export interface JournalFull {
  namespace: string;
  count: number;
  total: number;
}

export interface FollowOptions {
  /** Whether entries of this namespace are wanted. */
  namespace: (name: string) => boolean;
  filter: (entry: FilteredFields) => boolean;
  view: JournalView;
  /** Most entries handed on per batch: the newest matching ones. */
  maxPerBatch: number;
  /** How long changes gather before a batch is read. */
  batchMs: number;
}

interface Position {
  /** The last entry id read. */
  id: number;
  generation: number;
  /** The journal's dropped count then. */
  dropped: number;
}

/**
 * Most entries one batch reads to find its matches: under a load of thousands of requests a
 * second, the newest are read and the older ones counted as missed, so a batch costs a bounded time.
 */
export const MAX_SCAN_PER_BATCH = 5000;

export class JournalFollower implements JournalWatcher {
  private readonly positions = new WeakMap<Journal, Position>(); // a dropped namespace takes its position with it
  private readonly changed = new Map<Journal, string>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  /**
   * Follows from now on: `existing` are the journals whose entries so far are not wanted (those of
   * the namespaces that exist now); a journal seen later (a namespace made since) is read from its
   * first entry held.
   */
  constructor(
    private readonly feed: JournalFeed,
    private readonly options: FollowOptions,
    existing: Iterable<Journal>,
    private readonly deliver: (batch: FollowBatch) => void,
    private readonly onClose: () => void,
  ) {
    for (const journal of existing) this.positions.set(journal, { id: journal.lastId, generation: journal.generation, dropped: journal.dropped });
    feed.add(this);
  }

  wake(journal: Journal, namespace: string): void {
    if (this.closed || !this.options.namespace(namespace)) return;
    this.changed.set(journal, namespace);
    this.timer ??= setTimeout(() => this.read(), this.options.batchMs);
  }

  /** Stops following (the client went away, or the sandbox is closing). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.feed.remove(this);
    if (this.timer) clearTimeout(this.timer);
    this.onClose();
  }

  private read(): void {
    this.timer = null;
    if (this.closed) return;
    const matches: Match[] = [];
    const batch: FollowBatch = { entries: [], missed: 0, reloaded: [], dropped: [], full: [] };
    for (const [journal, namespace] of this.changed) batch.missed += this.readJournal(journal, namespace, matches, batch);
    this.changed.clear();
    const { maxPerBatch, view } = this.options;
    if (matches.length > maxPerBatch) batch.missed += matches.length - maxPerBatch;
    for (const { journal, id } of matches.slice(-maxPerBatch)) {
      const entry = journal.entry(id, view);
      if (entry) batch.entries.push(entry);
    }
    if (batch.entries.length || batch.missed || batch.reloaded.length || batch.full.length) this.deliver(batch);
  }

  /**
   * Adds the journal's newest matching entries since the last batch to `matches`, oldest first, at
   * most maxPerBatch of them: read newest first, it stops there, so an unfiltered follower reads
   * maxPerBatch entries a batch however many came. Returns how many new entries it did not read.
   */
  private readJournal(journal: Journal, namespace: string, matches: Match[], batch: FollowBatch): number {
    const known = this.positions.get(journal);
    const generation = journal.generation;
    const last = journal.lastId;
    this.positions.set(journal, { id: last, generation, dropped: journal.dropped });
    if (journal.disposed) {
      // Its namespace was dropped: what was shown of it is stale, whether or not it was seen before.
      batch.reloaded.push(namespace);
      batch.dropped.push(namespace);
      return 0;
    }
    if (known && known.generation !== generation) {
      // Cleared or replaced: what was shown of it is stale, and what it holds now is not news.
      batch.reloaded.push(namespace);
      return 0;
    }
    if (known && journal.dropped > known.dropped) batch.full.push({ namespace, count: journal.dropped - known.dropped, total: journal.dropped });
    const oldestHeld = last - journal.size;
    const from = known ? known.id : oldestHeld;
    const floor = Math.max(from, oldestHeld, last - MAX_SCAN_PER_BATCH);
    const found: Match[] = [];
    let id = last;
    for (; id > floor && found.length < this.options.maxPerBatch; id--) {
      if (this.options.filter(journal.filterFields(id) as FilteredFields)) found.push({ journal, id });
    }
    for (let i = found.length - 1; i >= 0; i--) matches.push(found[i]);
    return id - from;
  }
}

interface Match {
  journal: Journal;
  id: number;
}
