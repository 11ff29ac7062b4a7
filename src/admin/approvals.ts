// POST /_sandbox/payment-service-tokens/{token_id}/approval: the buyer's decision on a token's
// approval page, for CI without a browser; with `after`, planned on the namespace clock (approval
// that comes by itself, or never comes and the token fails). The same functions as the page's.
import { catchUpApprovals, type Decision, decide, OUTCOME_OF, planDecision } from '../resources/payment-methods/approval.js';
import { serializePaymentServiceToken } from '../resources/payment-methods/serialize.js';
import { parseDuration } from '../scenarios/duration.js';
import { WEBHOOKS } from '../webhooks/hub.js';
import type { AdminHandlerMap } from './types.js';

export const approvalHandlers: AdminHandlerMap = {
  decideTokenApproval(ctx) {
    const { decision, after } = ctx.body as { decision: Decision; after?: string };
    catchUpApprovals(ctx.ns); // a plan already due happens first, as a read would see it
    if (after === undefined) {
      const token = decide(ctx.ns, ctx.params.token_id, decision);
      return { body: { decision, outcome: OUTCOME_OF[decision], due_at: null, token: serializePaymentServiceToken(token, ctx.sandboxBase) } };
    }
    // The schema's pattern admits only durations; one too long for a safe integer is null.
    const ms = parseDuration(after) ?? Number.MAX_SAFE_INTEGER;
    const dueMs = Math.min(ctx.ns.clock.now() + ms, 8.64e15);
    const token = planDecision(ctx.ns, ctx.params.token_id, decision, dueMs);
    ctx.ns.part(WEBHOOKS).queue.rearm(); // its notification goes out when the clock reaches it
    return {
      body: { decision, outcome: null, due_at: token.approval_plan?.due_at ?? null, token: serializePaymentServiceToken(token, ctx.sandboxBase) },
    };
  },
};
