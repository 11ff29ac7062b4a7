// Refuses request bodies over the limit before they are buffered. A declared Content-Length is
// checked up front (Node guarantees the body is no longer than it); only a chunked body, of unknown
// length, is counted as it streams (Hono's bodyLimit, which buffers it up to the limit), and so is an
// HTTP/2 body sent without Content-Length (HTTP/2 has no chunked encoding). Requests without a body
// skip all of it: touching the body stream would make the server build a full Request object for
// every GET.
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './api-error.js';
import { requestHeader } from './headers.js';
import type { Step } from './pipeline.js';

export function limitBodySize(maxBytes: number): Step {
  const tooLarge = () => new ApiError(413, 'payload_too_large', `The request body is larger than ${maxBytes} bytes; send a smaller body.`);
  const countStreamed = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  const done = async () => {};
  return {
    before(c) {
      const length = requestHeader(c, 'content-length');
      if (length !== undefined) {
        if (Number(length) > maxBytes) throw tooLarge();
        return;
      }
      if (requestHeader(c, 'transfer-encoding') === undefined && !http2Body(c)) return;
      return countStreamed(c, done).then(() => undefined);
    },
  };
}

/** An HTTP/2 request whose HEADERS frame did not end the stream: a body follows, of a length nobody declared. */
function http2Body(c: Context): boolean {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming as { httpVersionMajor?: number; stream?: { endAfterHeaders?: boolean } } | undefined;
  return incoming?.httpVersionMajor === 2 && incoming.stream?.endAfterHeaders === false;
}
