// A typed collection over one array of the lowdb data, with an id index so lookups do not scan,
// and cached ordered views (rebuilt only after a change) so cursors do not re-sort per request.
// A durable store (data file, Redis) passes the sink of its current state (state-sink.ts), told
// exactly what changed (the whole record inserted or changed, or the id deleted), which its
// persistence writes; a memory-only store passes none and pays nothing.

/** Where a record counts its in-place updates: not enumerable, so copies, JSON and data files never carry it. */
const REVISION = Symbol('revision');

/**
 * How many times update() has changed this record object in place. With the object's identity, it
 * tells whether something derived from the record (its kept JSON) is still current: an inserted,
 * replaced or reset record is another object.
 */
export function revisionOf(record: object): number {
  return (record as { [REVISION]?: number })[REVISION] ?? 0;
}

function countUpdate(record: object): void {
  const counted = record as { [REVISION]?: number };
  // Defined once (not enumerable); after that a plain store, which keeps the attributes and costs a
  // fraction of defineProperty (a busy client updates the same record on every request).
  if (counted[REVISION] === undefined) Object.defineProperty(record, REVISION, { value: 1, writable: true, configurable: true, enumerable: false });
  else counted[REVISION] += 1;
}

/** Told of every change, after it is made in memory. */
export interface CollectionListener {
  /** `row` was added at the end of the collection. */
  ins(collection: string, row: { id: string }): void;
  /**
   * `row` was replaced or updated in place: the whole record as it now is. `incidental`: no answer
   * needs to wait for this change to be durable (see Collection.update).
   */
  put(collection: string, row: { id: string }, incidental?: boolean): void;
  /** The record `id` was removed. */
  del(collection: string, id: string): void;
}

export class Collection<T extends { id: string }> {
  private byId = new Map<string, T>();
  private views = new Map<string, { version: number; rows: T[] }>();
  private groupings = new Map<string, { version: number; within: readonly T[]; groups: Map<string, T[]> }>();
  private version = 0;
  /**
   * Copy on write. A collection made by sharing() starts on its template's rows (the seeded fixtures
   * every new namespace starts from, never written), their index and their views: a namespace that
   * only reads copies nothing. Its first change copies the row array and the index (not the records),
   * and a record still the template's is copied on its first update, alone: records keep their
   * identity otherwise, so JSON cached for them (resources/json-cache) stays valid.
   */
  private template: Collection<T> | null = null;
  /** Whether the rows array and index are this collection's own (always, without a template). */
  private ownsRows = true;
  /** Told the new rows array when a shared collection makes its own copy (the store's data follows it). */
  private onOwn: ((rows: T[]) => void) | null = null;
  /** For a template: each id's position, to find a shared record in a copy without a scan. */
  private positions: Map<string, number> | null = null;

  constructor(
    readonly name: string,
    private rows: T[],
    private readonly listener: CollectionListener | null = null,
  ) {
    for (const row of rows) this.byId.set(row.id, row);
  }

  /** A collection that reads `template`'s rows until its first change, then works on a deep copy of them. */
  static sharing<T extends { id: string }>(template: Collection<T>, listener: CollectionListener | null, onOwn: (rows: T[]) => void): Collection<T> {
    const shared = new Collection<T>(template.name, [], listener);
    shared.rows = template.rows;
    shared.byId = template.byId;
    shared.template = template;
    shared.ownsRows = false;
    shared.onOwn = onOwn;
    return shared;
  }

  /** Whether it still reads the template's rows (no change made yet). */
  get isShared(): boolean {
    return !this.ownsRows;
  }

  /** Grows on every change: lets derived values cached elsewhere know they are stale. */
  get changeCount(): number {
    return this.version;
  }

  get size(): number {
    return this.rows.length;
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  all(): readonly T[] {
    return this.rows;
  }

  find(predicate: (row: T) => boolean): T | undefined {
    return this.rows.find(predicate);
  }

  where(predicate: (row: T) => boolean): T[] {
    return this.rows.filter(predicate);
  }

  insert(row: T): T {
    this.ownRows();
    if (this.byId.has(row.id)) throw new Error(`${this.name}: a record with id ${row.id} exists`);
    this.rows.push(row);
    this.byId.set(row.id, row);
    this.touch();
    this.listener?.ins(this.name, row);
    return row;
  }

  /**
   * Merges fields into a record in place; undefined when there is no such record. `incidental`: a
   * change made in passing that no answer shows or needs kept through a crash (a key pair's
   * last_used_at on every authenticated request): a file-backed store writes it with the next
   * append, but answers do not wait for it, so a read costs no wait for the disk.
   */
  update(id: string, patch: Partial<T>, options?: { incidental?: boolean }): T | undefined {
    let row = this.byId.get(id);
    if (!row) return undefined;
    if (this.template && this.template.byId.get(id) === row) row = this.ownRecord(row); // the template's: copy it first
    Object.assign(row, patch);
    countUpdate(row);
    this.touch();
    this.listener?.put(this.name, row, options?.incidental ?? false); // mutated in place: the whole record after the merge
    return row;
  }

  /** Replaces a whole record, keeping its place in the collection. */
  replace(row: T): T {
    this.ownRows();
    const existing = this.byId.get(row.id);
    if (!existing) return this.insert(row);
    this.rows[this.rows.indexOf(existing)] = row;
    this.byId.set(row.id, row);
    this.touch();
    this.listener?.put(this.name, row);
    return row;
  }

  remove(id: string): boolean {
    this.ownRows();
    const row = this.byId.get(id);
    if (!row) return false;
    this.rows.splice(this.rows.indexOf(row), 1);
    this.byId.delete(id);
    this.touch();
    this.listener?.del(this.name, id);
    return true;
  }

  /**
   * Removes every matching record (the first `limit` only, when given) in one pass over the rows,
   * not one splice each: webhook pruning removes a hundred at a time. Past the limit the rest are
   * moved down without asking `predicate`.
   */
  removeWhere(predicate: (row: T) => boolean, limit = Number.POSITIVE_INFINITY): number {
    const first = limit > 0 ? this.rows.findIndex(predicate) : -1;
    if (first < 0) return 0;
    this.ownRows(); // removes from this collection's own array, never the template's (same order)
    const rows = this.rows;
    let kept = first;
    const removed: string[] = [];
    for (let i = first; i < rows.length; i++) {
      const row = rows[i];
      if (removed.length < limit && (i === first || predicate(row))) removed.push(row.id);
      else rows[kept++] = row;
    }
    rows.length = kept; // in place: the array is the store's own data
    for (const id of removed) {
      this.byId.delete(id);
      this.listener?.del(this.name, id);
    }
    this.touch();
    return removed.length;
  }

  /**
   * The rows matching `key`'s filter in `compare` order, cached until the collection changes:
   * a list endpoint pays the sort once per change, not once per request.
   */
  view(key: string, filter: (row: T) => boolean, compare: (a: T, b: T) => number): readonly T[] {
    if (!this.ownsRows) return (this.template as Collection<T>).view(key, filter, compare); // one view for every namespace that has not written
    const cached = this.views.get(key);
    if (cached && cached.version === this.version) return cached.rows;
    const rows = this.rows.filter(filter).sort(compare);
    this.views.set(key, { version: this.version, rows });
    return rows;
  }

  /**
   * The rows of `within` (a view, or all rows) grouped by `groupOf`, each group in `within`'s order,
   * cached until the collection changes: a filter on a field looks up its group instead of
   * scanning every row on every request.
   */
  groupedBy(key: string, groupOf: (row: T) => string | null | undefined, within: readonly T[] = this.rows): ReadonlyMap<string, readonly T[]> {
    if (!this.ownsRows) return (this.template as Collection<T>).groupedBy(key, groupOf, within);
    const cached = this.groupings.get(key);
    if (cached && cached.version === this.version && cached.within === within) return cached.groups;
    const groups = new Map<string, T[]>();
    for (const row of within) {
      const group = groupOf(row);
      if (group === null || group === undefined) continue;
      const rows = groups.get(group);
      if (rows) rows.push(row);
      else groups.set(group, [row]);
    }
    this.groupings.set(key, { version: this.version, within, groups });
    return groups;
  }

  private touch(): void {
    this.version++;
  }

  /** Before the first change of a shared collection: its own row array and index, holding the same records. */
  private ownRows(): void {
    if (this.ownsRows) return;
    this.rows = this.rows.slice();
    this.byId = new Map(this.byId);
    this.ownsRows = true;
    this.onOwn?.(this.rows);
    this.onOwn = null;
  }

  /** A record still the template's, replaced by a copy of its own before it is changed in place. */
  private ownRecord(shared: T): T {
    this.ownRows();
    const template = this.template as Collection<T>;
    template.positions ??= new Map(template.rows.map((r, i) => [r.id, i]));
    const hint = template.positions.get(shared.id);
    // Where it stood in the template, unless rows were inserted or removed before it since.
    const at = hint !== undefined && this.rows[hint] === shared ? hint : this.rows.indexOf(shared);
    const copy = structuredClone(shared);
    this.rows[at] = copy;
    this.byId.set(copy.id, copy);
    return copy;
  }
}
