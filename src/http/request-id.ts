import { randomUUID } from 'node:crypto';
import { NODE_HEADER, REQUEST_ID_HEADER, sentBody } from './json-response.js';
import type { Step } from './pipeline.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Which process answers: its id, known once it listens (--node-id, default host:port). */
export interface NodeName {
  id: string;
}

/**
 * Echoes the caller's x-request-id (when it is a sane token) or makes one, on every response, and
 * names the node that answered (x-sandbox-node: behind a proxy, which process served the namespace).
 */
export function requestId(node: NodeName = { id: '' }): Step {
  return {
    name: 'request id',
    provides: ['request id'],
    before(call) {
      const given = call.header(REQUEST_ID_HEADER);
      call.requestId = given && SAFE_ID.test(given) ? given : randomUUID();
      call.node = node.id;
    },
    after(call) {
      // Our own answers carry them already (json-response.ts); others (docs, scenario rewrites) get them here.
      if (sentBody(call) === undefined) {
        call.res.headers.set(REQUEST_ID_HEADER, call.requestId);
        if (call.node) call.res.headers.set(NODE_HEADER, call.node);
      }
    },
  };
}
