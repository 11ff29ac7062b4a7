// The compiled form of a scenario file (see scenario-schema.ts for the file format).
import type { ErrorDetail } from '../errors/api-error.js';
import type { LifecyclePlan } from '../resources/reports/lifecycle.js';
import type { CollectionName } from '../store/records.js';

/** Where a 409's resource_id comes from: a fixed id, or a real record picked when answering. */
export type ResourceIdSource = string | { collection: CollectionName; merchant_account?: boolean };

/** An error answer of the reference. */
export interface RespondSpec {
  status: number;
  code?: string;
  message?: string;
  details?: ErrorDetail[];
  /** Seconds, sent as Retry-After (429 and 503-style answers; 429 defaults to 1). */
  retry_after?: number;
  resource_id?: ResourceIdSource;
  headers?: Record<string, string>;
}

/** What one step does: at most one of respond, override, merge, drop, pass; delay_ms goes with any. */
export interface StepAction {
  delay_ms?: number;
  respond?: RespondSpec;
  /** The whole JSON body of the normal success response is replaced by this value. */
  override?: unknown;
  /** Deep-merged into the normal success body (objects key by key, everything else replaced). */
  merge?: Record<string, unknown>;
  drop?: true;
  pass?: true;
}

export interface Step extends StepAction {
  /** How many requests this step answers before the next one; the last step repeats forever. */
  times: number;
  /** With probability `share` (seeded), the nested action; otherwise the request passes through. */
  random?: StepAction & { share: number };
}

export interface Scenario {
  name: string;
  description: string;
  /** Where it came from, for messages (e.g. scenarios/rate-limited.yaml). */
  file: string;
  /** operationIds it answers for. */
  operations: Set<string>;
  steps: Step[];
  /** The path and timing of report executions created while it is selected; null: unchanged. */
  reportExecution: LifecyclePlan | null;
  /** Extra seed mixed into its random choices. */
  seed: number;
}

export interface ScenarioCatalog {
  byName: Map<string, Scenario>;
}

export function scenarioNames(catalog: ScenarioCatalog): string[] {
  return [...catalog.byName.keys()].sort();
}
