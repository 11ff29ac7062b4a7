// The control API under /_sandbox is served by the same pipeline as the API (app.ts), with its
// own document (openapi.admin.json), handlers and this step in place of authentication: the admin
// token, when one is required.
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { Call } from '../http/call.js';
import type { Step } from '../http/pipeline.js';
import type { AdminContext, AdminDeps } from './types.js';

export const ADMIN_TOKEN_HEADER = 'x-sandbox-admin-token';

/** No token configured (loopback bind): open. Otherwise the exact token, compared in constant time. */
export function requireAdminToken(expected: string | null): Step {
  return {
    name: 'admin token',
    before(call) {
      if (!expected) return;
      const given = call.header(ADMIN_TOKEN_HEADER) ?? bearer(call.header('authorization'));
      if (!given) throw ApiError.unauthorized(`The control API needs the admin token: send ${ADMIN_TOKEN_HEADER} or Authorization: Bearer <admin token>.`);
      const a = Buffer.from(expected);
      const b = Buffer.from(given);
      if (a.length !== b.length || !timingSafeEqual(a, b)) throw ApiError.forbidden('The admin token is wrong.');
    },
  };
}

/** What a control-API handler is given of its call. */
export function adminContextOf(deps: AdminDeps): (call: Call) => AdminContext {
  return (call) => ({ deps, ns: call.ns, params: call.pathParams, query: call.query, headers: call.headers, body: call.body, requestId: call.requestId });
}

function bearer(header: string | undefined): string | undefined {
  const match = header && /^Bearer\s+(\S+)$/i.exec(header);
  return match ? match[1] : undefined;
}
