// A scenario's `webhooks` field: how the deliveries of the events caused by the requests it takes a
// step for are sent (due later on the namespace clock, several copies of one event, newest first),
// compiled once into the DeliverySteering the API's handlers pass along with what they announce.
// A scenario with `webhooks` and nothing else passes every request it matches; without operations
// or match.method / match.path it matches the operations that announce events (openapi.json
// webhooks' x-sandbox-emitted-by), so that activating it steers every notification a request
// causes and touches no other call.
import type { DeliverySteering } from '../namespace/announce.js';
import type { SpecIndex } from '../spec/operations.js';

/** The field as written (scenario-schema.ts). */
export interface WebhooksSpec {
  delay_ms?: number;
  duplicate?: boolean | number;
  reorder?: boolean;
}

/** The steering a scenario's deliveries get: only the fields it gives (the others follow the namespace's behaviour). */
export function compileSteering(scenario: string, spec: WebhooksSpec): DeliverySteering {
  const steering: DeliverySteering = { scenario };
  if (spec.delay_ms !== undefined) steering.delay_ms = spec.delay_ms;
  if (spec.duplicate !== undefined) steering.copies = spec.duplicate === true ? 2 : spec.duplicate === false ? 1 : spec.duplicate;
  if (spec.reorder !== undefined) steering.reorder = spec.reorder;
  return Object.freeze(steering);
}

/** The steering as the control API shows a scenario's: what it sets, without its name. */
export function steeringView(steering: DeliverySteering | null): Omit<DeliverySteering, 'scenario'> | null {
  if (!steering) return null;
  const { scenario: _scenario, ...view } = steering;
  return view;
}

/** The operationIds whose calls announce events: those x-sandbox-emitted-by names as "METHOD /path ...", sorted. */
export function operationsAnnouncingEvents(spec: SpecIndex): string[] {
  const webhooks = (spec.doc as { webhooks?: Record<string, { post?: { 'x-sandbox-emitted-by'?: string | null } }> }).webhooks ?? {};
  const ids = new Set<string>();
  for (const item of Object.values(webhooks)) {
    const by = /^([A-Z]+) (\/\S*)/.exec(item.post?.['x-sandbox-emitted-by'] ?? '');
    const operation = by && spec.operations.find((o) => o.method === by[1] && o.path === by[2]);
    if (operation) ids.add(operation.id);
  }
  return [...ids].sort();
}
