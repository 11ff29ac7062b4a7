import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { SandboxEnv } from './env.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes the caller's x-request-id (when it is a sane token) or makes one, on every response. */
export function requestId(): MiddlewareHandler<SandboxEnv> {
  return async function assignRequestId(c, next) {
    const given = c.req.header('x-request-id');
    const id = given && SAFE_ID.test(given) ? given : randomUUID();
    c.set('requestId', id);
    c.set('scenario', null);
    // Set before the response exists, so every response (errors included) is made with it: a header
    // added after would make Hono rebuild the finished response.
    c.header('x-request-id', id);
    await next();
  };
}
