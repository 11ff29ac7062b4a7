import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { SandboxEnv } from './env.js';
import { REQUEST_ID_HEADER, sentJsonText } from './json-response.js';
import { requestHeader } from './headers.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes the caller's x-request-id (when it is a sane token) or makes one, on every response. */
export function requestId(): MiddlewareHandler<SandboxEnv> {
  return async function assignRequestId(c, next) {
    const given = requestHeader(c, 'x-request-id');
    const id = given && SAFE_ID.test(given) ? given : randomUUID();
    c.set('requestId', id);
    c.set('scenario', null);
    await next();
    // API answers carry it already (json-response.ts); others (docs, scenario rewrites) get it here.
    if (sentJsonText(c) === undefined) c.res.headers.set(REQUEST_ID_HEADER, id);
  };
}
