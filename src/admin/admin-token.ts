// The control API's step in place of the API's authentication: the admin token, when one is
// required (any bind off loopback: admin/exposure.ts).
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { Step } from '../http/pipeline.js';

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

function bearer(header: string | undefined): string | undefined {
  const match = header && /^Bearer\s+(\S+)$/i.exec(header);
  return match ? match[1] : undefined;
}
