import { randomUUID } from 'node:crypto';
import { requestHeader } from './headers.js';
import { REQUEST_ID_HEADER, sentBody } from './json-response.js';
import type { Step } from './pipeline.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes the caller's x-request-id (when it is a sane token) or makes one, on every response. */
export function requestId(): Step {
  return {
    before(c) {
      const given = requestHeader(c, 'x-request-id');
      c.set('requestId', given && SAFE_ID.test(given) ? given : randomUUID());
      c.set('receivedAt', performance.now());
      c.set('scenario', null);
    },
    after(c) {
      // API answers carry it already (json-response.ts); others (docs, scenario rewrites) get it here.
      if (sentBody(c) === undefined) c.res.headers.set(REQUEST_ID_HEADER, c.get('requestId'));
    },
  };
}
