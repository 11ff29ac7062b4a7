// Requests naming a namespace that does not exist yet, and refused before it could be created (a
// bad token, an unknown path), or answered from a copy (an operation without credentials): no
// namespace was made for them, yet a tester debugging a client wants to see them. They are set
// aside here, by name, bounded (the newest names and entries), and become the first entries of
// that namespace's journal if it is created. Nothing here is a namespace: dropping an entry resets
// no one, so strangers naming new namespaces cannot push anyone's state out.
import { Journal } from './journal.js';

/** Names kept at most, and entries per name. */
const NAMES = 100;
const ENTRIES_PER_NAME = 50;

export class PendingJournals {
  private readonly byName = new Map<string, Journal>();

  /** Where a request to the not-yet-created namespace `name` is recorded. */
  journalFor(name: string): Journal {
    let journal = this.byName.get(name);
    if (journal)
      this.byName.delete(name); // most recently used last
    else journal = new Journal(ENTRIES_PER_NAME, 1024 * 1024);
    this.byName.set(name, journal);
    if (this.byName.size > NAMES) this.byName.delete(this.byName.keys().next().value as string);
    return journal;
  }

  /** Moves what was set aside for `name` into its new namespace's journal. */
  handOver(name: string, journal: Journal): void {
    const pending = this.byName.get(name);
    if (!pending) return;
    this.byName.delete(name);
    journal.prepareImport(pending.exportState())();
  }
}
