// The address a client reached the sandbox at, for links the sandbox hands out (hosted pages): the
// scheme, host and port of the request (Host or :authority, and the connection's TLS) and, in a
// namespace other than default, its /ns/{name} prefix, since a browser opening the link cannot send
// the x-sandbox-namespace header.
import { DEFAULT_NAMESPACE } from '../namespace/registry.js';
import type { Call } from './call.js';

export function sandboxBaseOf(call: Pick<Call, 'url' | 'namespaceName'>): string {
  const origin = new URL(call.url).origin;
  const name = call.namespaceName;
  return name && name !== DEFAULT_NAMESPACE ? `${origin}/ns/${name}` : origin;
}
