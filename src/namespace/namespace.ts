// One namespace: the home of everything a parallel test run has of its own. Records (its store),
// its clock, and the parts other areas keep per namespace (part.ts: journal, scenario state and
// counters, report schedules, ...). Reset, export and import act on all of them together.
import { Clock, type ClockState } from '../clock.js';
import type { CollectionName, StoreData } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { Announcement, ChangeListener, TimedChanges } from './announce.js';
import type { NamespacePart, PartKey } from './part.js';

/** A whole namespace as plain JSON (GET /_sandbox/state). */
export interface NamespaceState {
  namespace: string;
  records: StoreData;
  clock: ClockState;
  /** Each part's exported state by part name; a part that was never used is absent. */
  parts: Record<string, unknown>;
}

export class Namespace {
  readonly clock = new Clock();
  lastUsedAt = Date.now();
  /** Requests being handled in it now: a namespace in use is never evicted. */
  inFlight = 0;
  private readonly parts: (NamespacePart | undefined)[] = [];
  private changeListener: ChangeListener | null = null;
  /** What changes by itself as the clock runs (report schedules, planned approvals): each registers itself. */
  private readonly timed: TimedChanges[] = [];

  constructor(
    readonly name: string,
    readonly store: Store,
    private readonly kinds: PartKinds,
    /** Kept by the registry; false for the shared fresh state and a one-request copy (registry.ts). */
    readonly admitted = true,
  ) {
    for (const make of kinds.timed) this.addTimedChanges(make(this));
    for (const kind of kinds.kinds) if (kind.eager) this.part(kind.key);
  }

  /** Registers records that change by themselves as the clock runs (webhooks catch them up when due). */
  addTimedChanges(changes: TimedChanges): void {
    this.timed.push(changes);
  }

  /** Brings every timed change up to the namespace clock, announcing what happened. */
  catchUpTimedChanges(): void {
    for (const changes of this.timed) changes.catchUp();
  }

  /** The soonest instant a timed change comes by itself, on the namespace clock; null when none will. */
  nextTimedChangeAt(): number | null {
    let next: number | null = null;
    for (const changes of this.timed) {
      const at = changes.nextChangeAt();
      if (at !== null && (next === null || at < next)) next = at;
    }
    return next;
  }

  /** Whether a change to a record of `collection` may move nextTimedChangeAt. */
  timedChangesMovedBy(collection: CollectionName): boolean {
    return this.timed.some((changes) => changes.movedBy(collection));
  }

  /** The namespace's part of that kind, made on first use. */
  part<P extends NamespacePart>(key: PartKey<P>): P {
    const made = this.parts[key.index];
    if (made !== undefined) return made as P;
    const part = this.kinds.kindOf(key).create(this);
    this.parts[key.index] = part;
    return part;
  }

  /** The part if it was made (reading a journal must not make one). */
  existingPart<P extends NamespacePart>(key: PartKey<P>): P | undefined {
    return this.parts[key.index] as P | undefined;
  }

  /** Sets who hears announce() (the webhooks part of this namespace). */
  listenToChanges(listener: ChangeListener | null): void {
    this.changeListener = listener;
  }

  /** Whether announcing for this merchant account reaches anyone: check it before building a record view to announce. */
  wantsChanges(merchantAccountId: string): boolean {
    return this.changeListener?.wants(merchantAccountId) === true;
  }

  /**
   * Says that a record had an event (e.g. buyer.updated) in a merchant account, its deliveries
   * steered by the request's scenario when it has one. Costs a call and a check when nobody listens.
   */
  announce(announcement: Announcement): void {
    this.changeListener?.announced(announcement);
  }

  /** Replaces the records only (a snapshot import); parts that derive state from records rebuild it. */
  replaceRecords(data: StoreData): void {
    this.store.replaceAll(data);
    for (const part of this.parts) part?.recordsReplaced?.();
  }

  /** The namespace is dropped (evicted, deleted, the sandbox closing): parts stop their timers and work in progress. */
  dispose(): void {
    for (const part of this.parts) part?.dispose?.();
  }

  /** Back to the seeded fixtures (`reseed` puts them in the store), then every part's declared reset, then the clock. */
  reset(reseed: (store: Store) => void): void {
    reseed(this.store);
    // Parts first: the clock's change listeners (report schedules) then see the cleared state.
    for (const part of this.parts) part?.reset();
    this.clock.reset();
  }

  exportState(): NamespaceState {
    return { namespace: this.name, records: this.store.data, clock: this.clock.snapshot(), parts: this.exportParts() };
  }

  /** Each part's exported state by name, but those named in `without` (a shared sandbox sends the journal apart). */
  exportParts(without: readonly string[] = []): Record<string, unknown> {
    const parts: Record<string, unknown> = {};
    for (const kind of this.kinds.kinds) {
      if (without.includes(kind.key.name)) continue;
      const part = this.existingPart(kind.key);
      if (part) parts[kind.key.name] = part.exportState();
    }
    return parts;
  }

  /**
   * Makes this namespace what `state` describes (its records already checked by the caller); a part
   * the state does not name starts fresh. Every part checks its state before anything changes: an
   * Error naming the part and the problem leaves the namespace as it was.
   */
  importState(state: Omit<NamespaceState, 'namespace'>): void {
    this.importParts(state, () => this.store.replaceAll(state.records));
  }

  /**
   * Makes the clock and the parts what `state` describes (a part it does not name starts fresh),
   * after `setRecords` (if given) has put the records in place: every part is checked first, and
   * an Error naming the part leaves the namespace as it was. A shared sandbox loads a namespace
   * this way, its records already in the store (cluster/).
   */
  importParts(state: Pick<NamespaceState, 'clock' | 'parts'>, setRecords?: () => void): void {
    const clock = checkClockState(state.clock);
    const commits: Array<() => void> = [];
    for (const kind of this.kinds.kinds) {
      const value = state.parts[kind.key.name];
      if (value === undefined && !this.existingPart(kind.key)) continue;
      try {
        commits.push(this.part(kind.key).prepareImport(value ?? null));
      } catch (err) {
        throw new Error(`parts.${kind.key.name}: ${(err as Error).message}`);
      }
    }
    const unknown = Object.keys(state.parts).filter((name) => !this.kinds.byName(name));
    if (unknown.length) throw new Error(`parts: no part is named ${unknown.join(', ')}; known: ${this.kinds.kinds.map((k) => k.key.name).join(', ')}`);
    setRecords?.();
    for (const commit of commits) commit();
    this.clock.restore(clock);
  }
}

function checkClockState(state: unknown): ClockState {
  const s = state as Partial<ClockState> | null;
  const frozen = s?.mode === 'frozen' && Number.isFinite(s.frozenAt);
  const real = s?.mode === 'real' && Number.isFinite(s.offsetMs);
  if (!frozen && !real) throw new Error('clock: expected {mode: "real", offsetMs} or {mode: "frozen", frozenAt}');
  return s as ClockState;
}

export interface PartKind<P extends NamespacePart = NamespacePart> {
  key: PartKey<P>;
  create: (ns: Namespace) => P;
  /** Made with the namespace (it reacts to the clock or other parts), not on first use. */
  eager?: boolean;
}

/** The part kinds of one sandbox, by key index. */
export class PartKinds {
  private readonly byIndex: (PartKind | undefined)[] = [];

  constructor(
    readonly kinds: readonly PartKind[],
    /** What else changes by itself on the clock, made with each namespace (it keeps no state of its own). */
    readonly timed: readonly ((ns: Namespace) => TimedChanges)[] = [],
  ) {
    for (const kind of kinds) this.byIndex[kind.key.index] = kind as PartKind;
  }

  kindOf<P extends NamespacePart>(key: PartKey<P>): PartKind<P> {
    const kind = this.byIndex[key.index];
    if (!kind) throw new Error(`namespace part '${key.name}' was not registered with the namespace registry`);
    return kind as unknown as PartKind<P>;
  }

  byName(name: string): PartKind | undefined {
    return this.kinds.find((kind) => kind.key.name === name);
  }
}
