// The one clock every timestamp the sandbox writes comes from. Real time by default; tests and QA
// freeze it, set it or move it forward through the control API. Each namespace has its own.

export interface ClockState {
  mode: 'real' | 'frozen';
  /** frozen: the frozen instant; real: offset in ms added to the wall clock. */
  frozenAt: number | null;
  offsetMs: number;
}

export class Clock {
  private state: ClockState = { mode: 'real', frozenAt: null, offsetMs: 0 };
  private listeners: Array<(now: number) => void> = [];

  constructor(private readonly wallClock: () => number = Date.now) {}

  now(): number {
    return this.state.mode === 'frozen' ? (this.state.frozenAt as number) : this.wallClock() + this.state.offsetMs;
  }

  /** RFC 3339 of now; formatted once per millisecond (several writers often ask within one). */
  nowIso(): string {
    const now = this.now();
    if (now !== this.lastIsoMs) {
      this.lastIsoMs = now;
      this.lastIso = new Date(now).toISOString();
    }
    return this.lastIso;
  }

  private lastIsoMs = Number.NaN;
  private lastIso = '';

  freeze(at: number = this.now()): void {
    this.state = { mode: 'frozen', frozenAt: at, offsetMs: 0 };
    this.notify();
  }

  /** Back to running in real time, from the current instant on. */
  unfreeze(): void {
    const now = this.now();
    this.state = { mode: 'real', frozenAt: null, offsetMs: now - this.wallClock() };
    this.notify(); // time runs again: what waits for an instant (webhook retries) arms its timer
  }

  set(at: number): void {
    if (this.state.mode === 'frozen') this.state = { ...this.state, frozenAt: at };
    else this.state = { ...this.state, offsetMs: at - this.wallClock() };
    this.notify();
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }

  reset(): void {
    this.state = { mode: 'real', frozenAt: null, offsetMs: 0 };
    this.notify();
  }

  snapshot(): ClockState {
    return { ...this.state };
  }

  /** Takes a state snapshot() gave (an imported namespace); time-driven state then catches up. */
  restore(state: ClockState): void {
    this.state =
      state.mode === 'frozen'
        ? { mode: 'frozen', frozenAt: state.frozenAt ?? this.now(), offsetMs: 0 }
        : { mode: 'real', frozenAt: null, offsetMs: state.offsetMs };
    this.notify();
  }

  /** Called after every set/advance/freeze/unfreeze, so time-driven state (report schedules, webhook timers) can catch up. */
  onChange(listener: (now: number) => void): void {
    this.listeners.push(listener);
  }

  private notify(): void {
    const now = this.now();
    for (const l of this.listeners) l(now);
  }
}
