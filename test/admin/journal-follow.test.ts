// The journal feed and its followers, on journals directly with the test's own timers: a batch
// hands on the newest matching entries up to its cap and counts the rest; a long burst is read
// only MAX_SCAN_PER_BATCH deep; clears say reload; nothing is asked of the feed while nobody
// watches.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FollowBatch, JournalFeed, JournalFollower, MAX_SCAN_PER_BATCH } from '../../src/journal/feed.js';
import { entryFilter } from '../../src/journal/filters.js';
import { Journal } from '../../src/journal/journal.js';
import { rawEntry } from '../support/journal.js';

const entry = (path: string, status = 200) => rawEntry(path, { namespace: 'ns', status, responseText: '{"ok":true}', responseContentType: 'application/json' });

describe('following journals', () => {
  let feed: JournalFeed;
  let batches: FollowBatch[];
  const follow = (journals: Journal[], options: Partial<ConstructorParameters<typeof JournalFollower>[1]> = {}) =>
    new JournalFollower(
      feed,
      { namespace: () => true, filter: () => true, view: 'summary', maxPerBatch: 100, batchMs: 100, ...options },
      journals,
      (batch) => batches.push(batch),
      () => {},
    );

  beforeEach(() => {
    vi.useFakeTimers();
    feed = new JournalFeed();
    batches = [];
  });
  afterEach(() => vi.useRealTimers());

  it('asks nothing of the feed while nobody watches', () => {
    const journal = new Journal(100);
    journal.announceTo(feed, 'ns');
    const changed = vi.spyOn(feed, 'changed');
    journal.add(entry('/a'));
    expect(changed).not.toHaveBeenCalled();
    const follower = follow([journal]);
    journal.add(entry('/b'));
    expect(changed).toHaveBeenCalledTimes(1);
    follower.close();
    expect(feed.watching).toBe(false);
    journal.add(entry('/c'));
    expect(changed).toHaveBeenCalledTimes(1);
  });

  it('hands on what came since it started, once per batch, and the newest up to its cap', () => {
    const journal = new Journal(1000);
    journal.announceTo(feed, 'ns');
    journal.add(entry('/before'));
    follow([journal]);
    for (let i = 1; i <= 150; i++) journal.add(entry(`/p${i}`));
    expect(batches).toEqual([]); // nothing on the request path
    vi.advanceTimersByTime(100);
    expect(batches).toHaveLength(1);
    expect(batches[0].missed).toBe(50);
    expect(batches[0].reloaded).toEqual([]);
    expect(batches[0].entries.map((e) => e.path)).toEqual(Array.from({ length: 100 }, (_, i) => `/p${i + 51}`));
    expect(batches[0].entries[0]).not.toHaveProperty('response_body');
    journal.add(entry('/later'));
    vi.advanceTimersByTime(100);
    expect(batches[1]).toEqual({ entries: [expect.objectContaining({ id: 152, path: '/later' })], missed: 0, reloaded: [], dropped: [], full: [] });
  });

  it('filters before the cap, and gives whole entries when asked', () => {
    const journal = new Journal(1000);
    journal.announceTo(feed, 'ns');
    follow([journal], { filter: entryFilter({ status: '5xx' }), view: 'full' });
    for (let i = 1; i <= 300; i++) journal.add(entry(`/p${i}`, i % 50 === 0 ? 500 : 200));
    vi.advanceTimersByTime(100);
    expect(batches[0].missed).toBe(0);
    expect(batches[0].entries.map((e) => [e.path, e.status])).toEqual([50, 100, 150, 200, 250, 300].map((i) => [`/p${i}`, 500]));
    expect(batches[0].entries[0]).toMatchObject({ response_body: { ok: true }, headers: {} });
  });

  it('reads a long burst only so deep, and counts what it did not read or the journal dropped', () => {
    const journal = new Journal(MAX_SCAN_PER_BATCH + 2000);
    journal.announceTo(feed, 'ns');
    follow([journal]);
    for (let i = 1; i <= MAX_SCAN_PER_BATCH + 1000; i++) journal.add(entry(`/p${i}`));
    vi.advanceTimersByTime(100);
    expect(batches[0].missed).toBe(MAX_SCAN_PER_BATCH + 1000 - 100);
    expect(batches[0].entries.at(-1)?.path).toBe(`/p${MAX_SCAN_PER_BATCH + 1000}`);

    const small = new Journal(10);
    small.announceTo(feed, 'small');
    const onlySmall = new JournalFeed();
    batches = [];
    new JournalFollower(
      onlySmall,
      { namespace: (n) => n === 'small', filter: () => true, view: 'summary', maxPerBatch: 100, batchMs: 100 },
      [small],
      (b) => batches.push(b),
      () => {},
    );
    small.announceTo(onlySmall, 'small');
    for (let i = 1; i <= 25; i++) small.add(entry(`/s${i}`));
    vi.advanceTimersByTime(100);
    // Not sent, and dropped by the journal (10 entries at most): both said.
    expect(batches).toEqual([{ entries: expect.any(Array), missed: 15, reloaded: [], dropped: [], full: [{ namespace: 'small', count: 15, total: 15 }] }]);
    expect(batches[0].entries.map((e) => e.path)).toEqual(Array.from({ length: 10 }, (_, i) => `/s${i + 16}`));
  });

  it('says reload when a journal is cleared or replaced, and reads a journal made later from its first entry', () => {
    const journal = new Journal(100);
    journal.announceTo(feed, 'old');
    follow([journal], { namespace: (n) => n !== 'other' });
    journal.add(entry('/a'));
    journal.clear();
    vi.advanceTimersByTime(100);
    expect(batches).toEqual([{ entries: [], missed: 0, reloaded: ['old'], dropped: [], full: [] }]);
    journal.add(entry('/b'));
    vi.advanceTimersByTime(100);
    expect(batches[1].entries.map((e) => e.path)).toEqual(['/b']);

    const made = new Journal(100);
    made.prepareImport({ last_id: 7, dropped: 0, entries: [entry('/x'), entry('/y')] })();
    made.announceTo(feed, 'new');
    made.add(entry('/z'));
    const other = new Journal(100);
    other.announceTo(feed, 'other');
    other.add(entry('/not-wanted'));
    vi.advanceTimersByTime(100);
    expect(batches[2].entries.map((e) => [e.id, e.path])).toEqual([
      [6, '/x'],
      [7, '/y'],
      [8, '/z'],
    ]);
  });

  it('ends every follower when the feed is closed', () => {
    const closed: string[] = [];
    new JournalFollower(
      feed,
      { namespace: () => true, filter: () => true, view: 'summary', maxPerBatch: 1, batchMs: 1 },
      [],
      () => {},
      () => closed.push('a'),
    );
    new JournalFollower(
      feed,
      { namespace: () => true, filter: () => true, view: 'summary', maxPerBatch: 1, batchMs: 1 },
      [],
      () => {},
      () => closed.push('b'),
    );
    expect(feed.watcherCount).toBe(2);
    feed.closeAll();
    expect(closed).toEqual(['a', 'b']);
    expect(feed.watching).toBe(false);
  });
});
