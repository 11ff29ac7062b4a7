// Everything one request gathers on its way through the pipeline, as one typed object: the steps
// write their part (the namespace step `ns`, the matcher `operation`, authentication `principal`
// and `merchantAccountId`, validation the parsed input) and later steps, the handler and the
// journal read it. Areas with state of their own per request (scenarios, reports) keep it in a
// slot they declare (CallSlot), so this layer does not need to know about them.
//
// Headers for the answer go through addResponseHeader(), never c.header(): the answer is built
// with a plain header object, which @hono/node-server writes straight to the socket (json-response.ts).
import type { Context } from 'hono';
import { decodeUtf8, invalidUtf8Text } from '../errors/utf8-text.js';
import type { Namespace } from '../namespace/namespace.js';
import type { Operation } from '../spec/operations.js';
import type { ApiKeyPairRecord } from '../store/records.js';
import {
  destroySocket,
  findHeaderName,
  http2BodyOfUnknownLength,
  isHttp2,
  onResponseClosed,
  onResponseWritten,
  requestCutOff,
  requestHeader,
  requestHeaders,
} from './node-bindings.js';

export interface Principal {
  /** `key-pair`: a verified token; `anonymous`: an operation without security; `auth-off`: --auth none. */
  kind: 'key-pair' | 'anonymous' | 'auth-off';
  keyPair: ApiKeyPairRecord | null;
  /** The token's scopes (empty when anonymous). */
  scopes: string[];
  claims: Record<string, unknown>;
}

/** JSON text already encoded as UTF-8, with its length in characters, which the journal's limits count in. */
export interface JsonBytes {
  bytes: Buffer<ArrayBuffer>;
  chars: number;
  /** Not given back to the answer pool once written: someone keeps them (keepSentBytes). */
  kept?: boolean;
}

/** What an answer carried: its JSON text, its JSON bytes, or '' for no body. */
export type SentBody = string | JsonBytes;

let nextSlot = 0;

/** Per-request state an area keeps on the call; declared by that area as a module constant. */
export class CallSlot<T> {
  readonly index = nextSlot++;
  declare readonly type?: T; // carries the type only

  constructor(readonly name: string) {}
}

export class Call {
  /** performance.now() when the request arrived (request log, journal duration). */
  readonly receivedAt = performance.now();
  /** x-request-id: the caller's when it is a sane token, else a new uuid (request-id.ts). */
  requestId = '';
  /** x-sandbox-node: the id of the process answering (request-id.ts). */
  node = '';
  /** Set by the namespace step; every later step may rely on it. */
  ns!: Namespace;
  /** The namespace the request names (default when none), and whether it named one at all. */
  namespaceName = '';
  namespaceNamed = false;
  /** Set by the operation matcher; undefined on the answers of unknown paths. */
  operation: Operation | undefined = undefined;
  pathParams: Record<string, string> = {};
  /** Set by authentication. */
  principal: Principal | undefined = undefined;
  merchantAccountId: string | undefined = undefined;
  /** The alias (--merchant-account-header) that chose the merchant account; undefined: x-service-merchant-account-id or none. */
  merchantAccountHeader: string | undefined = undefined;
  /** Validated input (validate.ts): query and declared headers coerced by their schemas. */
  query: Record<string, unknown> = {};
  headers: Record<string, unknown> = {};
  /** The parsed JSON body (undefined when none was sent). */
  body: unknown = undefined;
  /** The body's text once validation has read it: the journal keeps it without reading again. */
  bodyText: string | undefined = undefined;
  /** Once the body is read: what is wrong with its first byte that is not well-formed UTF-8 (null: none). Validation refuses such a body. */
  bodyNotUtf8: string | null = null;
  private bodyRead: Promise<string> | undefined = undefined;
  /** The scenario that answered or shaped the response (journal, log, x-sandbox-scenario). */
  scenario: string | null = null;
  /** Headers every answer to this request carries, whoever writes it. */
  responseHeaders: Record<string, string> | undefined = undefined;
  /** The JSON body (text or bytes) last written by json-response.ts, with the Response carrying it and its headers. */
  sent: { res: Response; body: SentBody; headers: Record<string, string> } | undefined = undefined;
  private slots: unknown[] | undefined = undefined;

  constructor(readonly context: Context) {}

  get method(): string {
    return this.context.req.method;
  }

  /** The API path, without the /ns/{name} prefix. */
  get path(): string {
    return this.context.req.path;
  }

  get url(): string {
    return this.context.req.url;
  }

  /** The answer so far (set by the pipeline). */
  get res(): Response {
    return this.context.res;
  }

  set res(response: Response) {
    this.context.res = response;
  }

  /** Another answer instead of the one made (Hono would otherwise merge the old one's headers into it). */
  replaceResponse(response: Response): void {
    this.context.res = undefined;
    this.context.res = response;
  }

  header(name: string): string | undefined {
    return requestHeader(this.context, name);
  }

  /** A query parameter as sent (its first value), for a step before validation; handlers read `query`. */
  queryParam(name: string): string | undefined {
    return this.context.req.query(name);
  }

  allHeaders(): ReturnType<typeof requestHeaders> {
    return requestHeaders(this.context);
  }

  /** The first header whose name `test` accepts, lower-cased (node-bindings.ts). */
  findHeaderName(test: (name: string) => boolean): string | undefined {
    return findHeaderName(this.context, test);
  }

  /** The body as text, read once; bytes that are not UTF-8 are U+FFFD in it (what the journal shows) and noted in bodyNotUtf8. */
  readBody(): Promise<string> {
    this.bodyRead ??= this.context.req.arrayBuffer().then((buffer) => {
      const bytes = new Uint8Array(buffer);
      const { text, invalidAt } = decodeUtf8(bytes);
      if (invalidAt !== null) this.bodyNotUtf8 = invalidUtf8Text(bytes, invalidAt);
      return text;
    });
    return this.bodyRead;
  }

  addResponseHeader(name: string, value: string): void {
    (this.responseHeaders ??= {})[name] = value;
  }

  get<T>(slot: CallSlot<T>): T | undefined {
    return this.slots?.[slot.index] as T | undefined;
  }

  set<T>(slot: CallSlot<T>, value: T): void {
    (this.slots ??= [])[slot.index] = value;
  }

  /** Ends the request without an answer (HTTP/1.1: the connection; HTTP/2: its stream); false when there is no socket (in process). */
  dropConnection(): boolean {
    return destroySocket(this.context);
  }

  get http2(): boolean {
    return isHttp2(this.context);
  }

  /** An HTTP/2 body sent without Content-Length (HTTP/2 has no chunked encoding). */
  hasBodyOfUnknownLength(): boolean {
    return this.header('transfer-encoding') !== undefined || http2BodyOfUnknownLength(this.context);
  }

  /** Whether the client stopped sending its request before it was all read. */
  requestCutOff(): boolean {
    return requestCutOff(this.context);
  }

  /** `done` once the answer is over: written whole, or its connection gone; false when nothing will say so. */
  onClosed(done: () => void): boolean {
    return onResponseClosed(this.context, done);
  }

  /** `done` once the answer has been handed to the operating system; false when nothing will say so. */
  onWritten(done: () => void): boolean {
    return onResponseWritten(this.context, done);
  }
}

/** The Hono environment of the sandbox's routes: the request's Call, made by its first step. */
export interface SandboxEnv {
  Variables: { call: Call };
}

/** The call of a Hono route's request (docs pages, the app's error handler). */
export function callOf(c: Context<SandboxEnv>): Call {
  let call = c.get('call');
  if (!call) {
    call = new Call(c);
    c.set('call', call);
  }
  return call;
}
