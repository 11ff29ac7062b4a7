// The compiled form of a scenario (see scenario-schema.ts for the format of files and of bodies
// defining one at run time: one schema for both).
import type { ErrorDetail } from '../errors/api-error.js';
import type { DeliverySteering } from '../namespace/announce.js';
import type { LifecyclePlan } from '../resources/reports/lifecycle.js';
import type { CollectionName } from '../store/records.js';

/** Where a 409's resource_id comes from: a fixed id, or a real record picked when answering. */
export type ResourceIdSource = string | { collection: CollectionName; merchant_account?: boolean };

/** An error answer: the reference's error body for the status, or a body given as it is. */
export interface RespondSpec {
  status: number;
  code?: string;
  message?: string;
  details?: ErrorDetail[];
  /** Seconds, sent as Retry-After (429 and 503-style answers; 429 defaults to 1). */
  retry_after?: number;
  resource_id?: ResourceIdSource;
  headers?: Record<string, string>;
  /** Sent as it is instead of the reference's error body (not checked against openapi.json, on purpose). */
  body?: unknown;
}

/** A delay: milliseconds, or a range drawn from the scenario's seeded random source. */
export type DelaySpec = number | { min: number; max: number };

/** "Done, but the answer is lost": the operation runs and its change is kept, then the client gets this. */
export interface LoseAnswerSpec {
  /** The 5xx the client gets instead of the answer (504 when neither this nor drop is given). */
  status?: number;
  /** The connection is closed instead. */
  drop?: true;
}

/** What one step does: at most one of respond, override, merge, drop, pass, lose_answer; delay_ms and headers go with any. */
export interface StepAction {
  delay_ms?: DelaySpec;
  respond?: RespondSpec;
  /** The whole JSON body of the normal success response is replaced by this value. */
  override?: unknown;
  /** Deep-merged into the normal success body (objects key by key, everything else replaced). */
  merge?: Record<string, unknown>;
  drop?: true;
  pass?: true;
  lose_answer?: LoseAnswerSpec;
  /** Extra headers on the answer, whatever it is. */
  headers?: Record<string, string>;
}

export interface Step extends StepAction {
  /** How many requests this step answers before the next one; the last step repeats forever. */
  times: number;
  /** With probability `share` (seeded), the nested action; otherwise the request passes through. */
  random?: StepAction & { share: number };
}

/** A condition on one value of the request: equal to a value, matching a regular expression, present or absent. */
export type ValueCondition = string | number | boolean | null | { equals: unknown } | { matches: string } | { present: boolean };

/** Which requests a scenario takes a step for, beyond its operations (all given conditions must hold). */
export interface MatchSpec {
  /** HTTP methods (narrows the operations when the scenario is compiled). */
  method?: string | string[];
  /** The request path (without /ns/{name}), `*` matching any characters. */
  path?: string;
  merchant_account_id?: string | string[];
  /** Query parameters by name. */
  query?: Record<string, ValueCondition>;
  /** Request headers by name, in any case (lower-cased when the matcher is compiled). */
  headers?: Record<string, ValueCondition>;
  /** Values of the JSON body by JSON pointer ("/name", "/spec/model"). */
  body?: Record<string, ValueCondition>;
}

/** Where a scenario comes from: the package's scenarios/, --scenarios-dir, or the control API of a namespace. */
export type ScenarioSource = 'built-in' | 'file' | 'defined';

export interface Scenario {
  name: string;
  description: string;
  source: ScenarioSource;
  /** The file it was loaded from (e.g. scenarios/rate-limited.yaml); null when defined at run time. */
  file: string | null;
  /** operationIds its steps answer (already narrowed by match.method and match.path). */
  operations: Set<string>;
  steps: Step[];
  /** Conditions on the request; null: every request of its operations. */
  match: MatchSpec | null;
  /** The path and timing of report executions created while it is selected; null: unchanged. */
  reportExecution: LifecyclePlan | null;
  /** How the deliveries of the events of the requests it takes a step for are sent; null: as the namespace's behaviour says. */
  webhooks: DeliverySteering | null;
  /** Extra seed mixed into its random choices. */
  seed: number;
  /** The file or body as written. */
  definition: unknown;
}

/** Scenarios by name. */
export interface ScenarioCatalog {
  byName: Map<string, Scenario>;
  /** Built-in scenarios a file of --scenarios-dir replaced: name -> the built-in file. */
  replaced?: Map<string, string>;
}

/** Where a request's scenario names are looked up: a namespace's own scenarios, then the files. */
export interface ScenarioLookup {
  get(name: string): Scenario | undefined;
  /** Every name it knows, sorted. */
  names(): string[];
}

/** 429 and 5xx answers may come on any operation: infrastructure (proxies, gateways) answers them whatever the reference lists. */
export function injectableEverywhere(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}
