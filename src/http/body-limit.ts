// Refuses request bodies over the limit before they are buffered. A declared Content-Length is
// checked up front (Node guarantees the body is no longer than it); only a chunked body, of unknown
// length, is counted as it streams (Hono's bodyLimit, which buffers it up to the limit), and so is an
// HTTP/2 body sent without Content-Length (HTTP/2 has no chunked encoding). Requests without a body
// skip all of it: touching the body stream would make the server build a full Request object for
// every GET.
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../errors/api-error.js';
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
    name: 'body limit',
    before(call) {
      const length = call.header('content-length');
      if (length !== undefined) {
        if (Number(length) > maxBytes) throw tooLarge();
        return;
      }
      if (!call.hasBodyOfUnknownLength()) return;
      return countStreamed(call.context, done).then(() => undefined);
    },
  };
}
