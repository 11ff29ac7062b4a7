// What the Scenarios page reads through the control API, as its sections use it.
import type { ActiveEntry } from '../../scenarios/activations.js';

export interface ScenarioItem {
  name: string;
  description: string;
  source: 'built-in' | 'file' | 'defined';
  file: string | null;
  replaces: string | null;
  operations: string[];
  steps: Array<Record<string, any>>;
  /** The path report executions take while the scenario is active (report scenarios). */
  report_execution?: { path: string[] } | null;
  /** How it steers the webhook deliveries of the requests it matches (its webhooks field). */
  webhooks?: { delay_ms?: number; copies?: number; reorder?: boolean } | null;
}

/** GET /_sandbox/scenarios/{name}: the definition as written and the counters. */
export interface ScenarioDetail extends ScenarioItem {
  definition: unknown;
  counters: {
    matched: number;
    answered: number;
    merchant_accounts: Array<{ merchant_account_id: string; step: number; matched: number; answered: number }>;
  };
}

/** An activation as GET /_sandbox/scenarios/active shows it. */
export type Activation = ActiveEntry;

export interface ActiveBody {
  active: Activation[];
}

/** What the page's sections are given: read once for all of them. */
export interface ScenarioData {
  catalog: ScenarioDetail[];
  active: ActiveBody;
  merchantAccounts: string[];
  /** The merchant account the page activates for ('' for every merchant account). */
  target: string;
  /** The namespace clock when the page was read. */
  nowMs: number;
}

/** How the page names where an activation applies. */
export const targetLabel = (id: string | null) => (id ? `merchant account ${id}` : 'every merchant account');
