// A scenario's `webhooks` field: how the deliveries of the events caused by the requests it takes a
// step for are sent (due later on the namespace clock, several copies of one event, newest first),
// compiled once into the DeliverySteering the API's handlers pass along with what they announce.
// A scenario with `webhooks` and nothing else passes every request it matches; without operations
// or match.method / match.path it matches the operations that announce events (openapi.json
// webhooks' x-sandbox-emitted-by), so that activating it steers every notification a request
// causes and touches no other call. Steering that could never act (steps that only fail, operations
// none of which announces) is refused when the scenario is compiled.
import type { DeliverySteering } from '../namespace/announce.js';
import type { Operation, SpecIndex } from '../spec/operations.js';
import type { Step } from './types.js';

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

/** Whether a step can let the operation run to success (and announce): respond and drop never do. */
function mayRun(step: Step): boolean {
  if (step.respond !== undefined || step.drop) return false;
  const hit = step.random;
  return !(hit && hit.share >= 1 && (hit.respond !== undefined || hit.drop));
}

/**
 * Steering that could never act is refused: steps that only fail (a failed request announces
 * nothing), or operations none of which announces an event. A scenario with webhooks alone is
 * narrowed to its operations that announce (as "*" is); one naming others explicitly is refused.
 * The operations the scenario applies to are returned.
 */
export function checkSteeringReach(
  operations: Operation[],
  given: { steeringOnly: boolean; named: '*' | string[] | undefined; steps: Step[] },
  spec: SpecIndex,
  at: (p: string, m: string) => void,
): Operation[] {
  const announcing = new Set(operationsAnnouncingEvents(spec));
  const announcers = `events are announced by ${[...announcing].join(', ')}`;
  if (!given.steps.some(mayRun)) {
    at(
      '/webhooks',
      'every step answers an error or drops the connection: a failed request announces no event, so there is no delivery to steer; let a step pass, or leave webhooks out',
    );
    return operations;
  }
  const reached = operations.filter((op) => announcing.has(op.id));
  if (!reached.length) {
    const ids = operations.map((op) => op.id).sort();
    const shown = ids.length > 5 ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more` : ids.join(', ');
    at('/webhooks', `none of the operations it applies to (${shown}) announces an event, so there is no delivery to steer; ${announcers}`);
    return operations;
  }
  if (!given.steeringOnly) return operations;
  const silent = operations.filter((op) => !announcing.has(op.id)).map((op) => op.id);
  if (Array.isArray(given.named) && silent.length) {
    at(
      '/operations',
      `${silent.join(', ')} announce${silent.length === 1 ? 's' : ''} no event: with webhooks alone the scenario only steers deliveries, so it would do nothing there; ${announcers}`,
    );
  }
  return reached;
}
