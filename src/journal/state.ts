// A journal as a namespace's exported state carries it, and the checks an imported one passes.
import type { RawJournalEntry } from './entry.js';

/** A journal as exported: its entries oldest first, as stored (secrets the client sent already gone: see Journal.add). */
export interface JournalState {
  /** The id of the newest entry (ids are consecutive). */
  last_id: number;
  dropped: number;
  entries: RawJournalEntry[];
}

export function checkJournalState(state: unknown): JournalState {
  const s = state as Partial<JournalState> | null;
  if (!s || typeof s !== 'object' || !Array.isArray(s.entries) || !Number.isInteger(s.last_id) || !Number.isInteger(s.dropped)) {
    throw new Error('expected {last_id, dropped, entries: [...]}');
  }
  if ((s.last_id as number) < s.entries.length) throw new Error('last_id is smaller than the number of entries');
  for (const [i, entry] of s.entries.entries()) {
    const e = entry as Partial<RawJournalEntry> | null;
    if (
      !e ||
      typeof e !== 'object' ||
      typeof e.method !== 'string' ||
      typeof e.path !== 'string' ||
      typeof e.url !== 'string' ||
      typeof e.status !== 'number'
    ) {
      throw new Error(`entries[${i}] is not a recorded request`);
    }
  }
  return s as JournalState;
}
