// Which scenarios a namespace has active, per merchant account or for every account, as set
// through PUT /_sandbox/scenarios/active: for clients that cannot set headers. An activation may
// end by itself: after `ttl` seconds of the namespace's clock (so a test moves it with the clock
// API, and a frozen clock keeps it on), or once its scenarios have taken `max_calls` calls.
import type { Clock } from '../clock.js';

export interface Activation {
  /** null: every merchant account. */
  merchantAccountId: string | null;
  /** Names, in precedence order. */
  scenarios: string[];
  ttlSeconds: number | null;
  /** Namespace clock (ms) at which it ends; null: until changed. */
  expiresAt: number | null;
  maxCalls: number | null;
  /** Calls a scenario of this activation took a step for. */
  calls: number;
}

/** An activation as the control API shows and exports it (the limits only when given). */
export interface ActiveEntry {
  merchant_account_id: string | null;
  scenarios: string[];
  ttl?: number;
  expires_at?: string;
  max_calls?: number;
  calls?: number;
}

export interface ActivationLimits {
  ttlSeconds?: number | null;
  maxCalls?: number | null;
}

const EVERY_ACCOUNT = '\u0000*';
const NONE: readonly Activation[] = Object.freeze([]);

export class Activations {
  private readonly byScope = new Map<string, Activation>();

  constructor(private readonly clock: Clock) {}

  /** Whether any activation exists (checked first by every request: most find none). */
  get any(): boolean {
    return this.byScope.size > 0;
  }

  /** Replaces the activation of one scope (null: every account); an empty list removes it. */
  set(names: string[], merchantAccountId: string | null, limits: ActivationLimits = {}): void {
    const key = merchantAccountId ?? EVERY_ACCOUNT;
    if (!names.length) {
      this.byScope.delete(key);
      return;
    }
    const ttlSeconds = limits.ttlSeconds ?? null;
    this.byScope.set(key, {
      merchantAccountId,
      scenarios: [...names],
      ttlSeconds,
      expiresAt: ttlSeconds === null ? null : this.clock.now() + ttlSeconds * 1000,
      maxCalls: limits.maxCalls ?? null,
      calls: 0,
    });
  }

  /** The activations that apply to a merchant account: its own first, then the one for every account. */
  forAccount(merchantAccountId: string): readonly Activation[] {
    const own = this.live(merchantAccountId);
    const every = this.live(EVERY_ACCOUNT);
    if (own && every) return [own, every];
    return own ? [own] : every ? [every] : NONE;
  }

  /** Whether it has ended since it was handed out (another request took its last call, its time ran out). */
  ended(activation: Activation): boolean {
    const key = activation.merchantAccountId ?? EVERY_ACCOUNT;
    return this.live(key) !== activation;
  }

  /** One more call taken by a scenario of the activation: the last one allowed ends it. */
  used(activation: Activation): void {
    activation.calls++;
    if (activation.maxCalls !== null && activation.calls >= activation.maxCalls) this.end(activation);
  }

  /** Takes names that no longer exist out of every activation (an activation left empty ends). */
  forget(isKnown: (name: string) => boolean): void {
    for (const activation of [...this.byScope.values()]) {
      activation.scenarios = activation.scenarios.filter(isKnown);
      if (!activation.scenarios.length) this.end(activation);
    }
  }

  clear(): void {
    this.byScope.clear();
  }

  list(): ActiveEntry[] {
    for (const key of [...this.byScope.keys()]) this.live(key);
    return [...this.byScope.values()].map((a) => this.entryOf(a)).sort((a, b) => (a.merchant_account_id ?? '').localeCompare(b.merchant_account_id ?? ''));
  }

  /** An activation as the control API shows it, with its limits (the state export keeps them). */
  entryOf(a: Activation): ActiveEntry {
    const entry: ActiveEntry = { merchant_account_id: a.merchantAccountId, scenarios: [...a.scenarios] };
    if (a.ttlSeconds !== null) {
      entry.ttl = a.ttlSeconds;
      entry.expires_at = new Date(a.expiresAt as number).toISOString();
    }
    if (a.maxCalls !== null) entry.max_calls = a.maxCalls;
    if (a.ttlSeconds !== null || a.maxCalls !== null) entry.calls = a.calls;
    return entry;
  }

  /** Puts back activations a state export listed (already checked). */
  restore(entries: ActiveEntry[]): void {
    this.byScope.clear();
    for (const e of entries) {
      this.byScope.set(e.merchant_account_id ?? EVERY_ACCOUNT, {
        merchantAccountId: e.merchant_account_id,
        scenarios: [...e.scenarios],
        ttlSeconds: e.ttl ?? null,
        expiresAt: e.expires_at === undefined ? null : Date.parse(e.expires_at),
        maxCalls: e.max_calls ?? null,
        calls: e.calls ?? 0,
      });
    }
  }

  /** The activation of a scope unless its time is up (then it is removed). */
  private live(key: string): Activation | undefined {
    const activation = this.byScope.get(key);
    if (activation?.expiresAt != null && this.clock.now() >= activation.expiresAt) {
      this.byScope.delete(key);
      return undefined;
    }
    return activation;
  }

  private end(activation: Activation): void {
    const key = activation.merchantAccountId ?? EVERY_ACCOUNT;
    if (this.byScope.get(key) === activation) this.byScope.delete(key);
  }
}

/** Throws naming what is wrong when `entries` is not a list of activations as exported. */
export function checkActiveEntries(entries: unknown): ActiveEntry[] {
  const count = (n: unknown) => n === undefined || (Number.isInteger(n) && (n as number) >= 0);
  const ok =
    Array.isArray(entries) &&
    entries.every(
      (a) =>
        a &&
        (a.merchant_account_id === null || typeof a.merchant_account_id === 'string') &&
        Array.isArray(a.scenarios) &&
        a.scenarios.every((n: unknown) => typeof n === 'string') &&
        count(a.ttl) &&
        count(a.max_calls) &&
        count(a.calls) &&
        (a.expires_at === undefined || (typeof a.expires_at === 'string' && Number.isFinite(Date.parse(a.expires_at)))) &&
        (a.ttl === undefined) === (a.expires_at === undefined),
    );
  if (!ok) throw new Error('active: expected [{merchant_account_id, scenarios, ttl?, expires_at?, max_calls?, calls?}]');
  return entries as ActiveEntry[];
}
