import { randomUUID } from 'node:crypto';
import { REQUEST_ID_HEADER, sentBody } from './json-response.js';
import type { Step } from './pipeline.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes the caller's x-request-id (when it is a sane token) or makes one, on every response. */
export function requestId(): Step {
  return {
    name: 'request id',
    provides: ['request id'],
    before(call) {
      const given = call.header(REQUEST_ID_HEADER);
      call.requestId = given && SAFE_ID.test(given) ? given : randomUUID();
    },
    after(call) {
      // Our own answers carry it already (json-response.ts); others (docs, scenario rewrites) get it here.
      if (sentBody(call) === undefined) call.res.headers.set(REQUEST_ID_HEADER, call.requestId);
    },
  };
}
