// Every webhook delivery the sandbox sends carries DELIVERY_HEADER, and every route of every node
// refuses a request carrying it: a delivery that comes back to the sandbox is a loop. A subscription
// aimed at the sandbox through a proxy (a shared sandbox's HAProxy, whose address no node knows, so
// the target rules cannot refuse it) at its own delivery's retry route would otherwise start the
// next attempt from inside the current one, thousands a second. Refused, the attempt ends with this
// 403, is recorded like any failed attempt, and is retried on the usual backoff. One header lookup
// per request.
import { ApiError } from '../errors/api-error.js';
import type { Step } from './pipeline.js';

/** The header of every delivery attempt: the delivery's id. */
export const DELIVERY_HEADER = 'x-sandbox-webhook-delivery';

export function refuseOwnDeliveries(): Step {
  return {
    name: 'refuse own deliveries',
    before(call) {
      const delivery = call.header(DELIVERY_HEADER);
      if (delivery !== undefined) throw loop(delivery);
    },
  };
}

function loop(delivery: string): ApiError {
  return ApiError.ofStatus(
    403,
    `This request is webhook delivery ${delivery.slice(0, 80)} of a payments sandbox (header ${DELIVERY_HEADER}): a subscription's URL leads back to a sandbox, which would deliver in a loop. Point the subscription at your receiver.`,
    [{ location: 'header', pointer: `/${DELIVERY_HEADER}`, type: 'webhook_loop', message: 'A webhook delivery of the sandbox is never served by a sandbox.' }],
    { outsideContract: true },
  );
}
