// The control API under /_sandbox: matched, validated and dispatched from openapi.admin.json with
// the same machinery as the main API, behind the admin token when one is required.
import { timingSafeEqual } from 'node:crypto';
import type { Handler } from 'hono';
import { ApiError } from '../http/api-error.js';
import { whenRecorded, writeResult } from '../http/dispatch.js';
import type { SandboxEnv } from '../http/env.js';
import { readJsonBody } from '../http/validate.js';
import type { SandboxDeps } from '../sandbox.js';
import { validateRequest } from '../spec/operations.js';

export const ADMIN_TOKEN_HEADER = 'x-sandbox-admin-token';

export function adminRoutes(deps: SandboxDeps): Handler<SandboxEnv> {
  const { router, handlers } = deps.admin;
  return async function handleAdminRequest(c) {
    checkAdminToken(deps.config.adminToken, c.req.header(ADMIN_TOKEN_HEADER) ?? bearer(c.req.header('authorization')));
    const { operation, params } = router.match(c.req.method, c.req.path);
    c.set('operation', operation);
    const body = operation.hasBody ? await readJsonBody(c.req.header('content-type') ?? null, await c.req.text(), operation.bodyRequired) : undefined;
    const query: Record<string, unknown> = Object.fromEntries(new URL(c.req.url).searchParams);
    const headers = Object.fromEntries(c.req.raw.headers);
    validateRequest(operation, { path: params, query, header: headers, body });
    const result = await handlers[operation.id]({ deps, ns: c.get('ns'), params, query, headers, body, requestId: c.get('requestId') });
    // Reset, import and the records API change the default namespace's file-backed store too (?all=true).
    return whenRecorded(deps.namespaces.get().store, writeResult(c, result, deps.config.validateResponses));
  };
}

function bearer(header: string | undefined): string | undefined {
  const match = header && /^Bearer\s+(\S+)$/i.exec(header);
  return match ? match[1] : undefined;
}

/** No token configured (loopback bind): open. Otherwise the exact token, compared in constant time. */
function checkAdminToken(expected: string | null, given: string | undefined): void {
  if (!expected) return;
  if (!given) throw ApiError.unauthorized(`The control API needs the admin token: send ${ADMIN_TOKEN_HEADER} or Authorization: Bearer <admin token>.`);
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw ApiError.forbidden('The admin token is wrong.');
}
