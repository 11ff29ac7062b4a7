// Sends one attempt of a notification: a POST through undici (a Pool per namespace and receiver
// origin, made by the namespace's Agent; kept-alive connections, pipelined when the receiver
// keeps up), answered by an AttemptResult that never throws. No redirect is followed. Names under
// the reserved .example, .invalid and .test domains (RFC 2606, the seeded subscriptions' URLs)
// fail at once, without a DNS query; so do targets the policy refuses (targets.ts), checked again
// against the address a name resolves to when connecting.
import type { Agent, Dispatcher } from 'undici';
import { loadUndici } from '../http/load-undici.js';
import { CONCURRENCY, EXCERPT_BYTES, MAX_ANSWER_BYTES } from './limits.js';
import type { TargetPolicy } from './targets.js';
import { coalescingWrites } from './write-coalescing.js';

export interface AttemptResult {
  /** The receiver's status; null when no answer came. */
  statusCode: number | null;
  durationMs: number;
  /** Why the attempt failed; null for a 2xx. */
  error: string | null;
  /** The first EXCERPT_BYTES of the answer's body. */
  excerpt: string | null;
}

export interface SentAttempt {
  /** Ends the attempt now (its subscription was deleted, the namespace reset); its result is then an error. */
  abort(): void;
}

/** Told the result of an attempt, once, after send() returned (no promise per attempt). */
export type AttemptCallback = (result: AttemptResult) => void;

export interface TransportOptions {
  /** Most time a receiver may take: to its answer's head, and again to the end of its body. */
  timeoutMs: number;
  /** Requests written on one connection before their answers come (1: no pipelining). */
  pipelining: number;
  /** Where deliveries may go. */
  targets: TargetPolicy;
}

const STOPPED = 'stopped: the subscription was deleted or made inactive, or the namespace was reset or dropped';
/** Parsed URLs kept (subscriptions rarely change theirs): forgotten all at once past this many. */
const MAX_TARGETS = 1_000;
/** A connection ended (closed, reset) after the request went out: the request is sent once more. */
const CONNECTION_LOST = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

interface Target {
  origin: string;
  path: string;
}

/** One attempt: undici's handler of its request, sent once more if the connection is lost before the answer ends. */
class Attempt implements SentAttempt, Dispatcher.DispatchHandler {
  private statusCode: number | null = null;
  private location: string | undefined;
  private parts: Buffer[] | null = null;
  private kept = 0;
  private bodyBytes = 0;
  private headAt = 0;
  private controller: Dispatcher.DispatchController | null = null;
  private stopReason: string | null = null;
  private ended = false;
  private resent = false;

  constructor(
    private readonly transport: WebhookTransport,
    private readonly options: Dispatcher.DispatchOptions,
    private readonly startedAt: number,
    private readonly onResult: AttemptCallback,
  ) {}

  /** Each time undici writes the request (again, when a pipeline it was behind broke). */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopReason !== null) {
      controller.abort(new Error(this.stopReason));
      return;
    }
    this.statusCode = null;
    this.location = undefined;
    this.parts = null;
    this.kept = 0;
    this.bodyBytes = 0;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // informational: the real answer follows
    this.statusCode = statusCode;
    this.headAt = performance.now();
    const location = headers.location;
    const text = Array.isArray(location) ? location[0] : location;
    this.location = text === undefined ? undefined : Buffer.from(text, 'latin1').toString('utf8'); // undici reads header bytes as Latin-1
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.ended) return;
    this.bodyBytes += chunk.length;
    if (this.kept < EXCERPT_BYTES) {
      const piece = Buffer.from(chunk.subarray(0, EXCERPT_BYTES - this.kept)); // a copy: the chunk may view a whole read
      (this.parts ??= []).push(piece);
      this.kept += piece.length;
    }
    // What is past the excerpt is read and dropped, up to a bound in bytes and in time: a body that
    // goes on (or drips) past it ends its connection, and the attempt is what its status says.
    const timeoutMs = this.transport.timeoutMs;
    if (this.bodyBytes > MAX_ANSWER_BYTES) this.stop(controller, null);
    else if (performance.now() - this.headAt > timeoutMs)
      this.stop(controller, `answered ${this.statusCode} but its body did not end within ${timeoutMs} ms (--webhook-timeout-ms)`);
  }

  onResponseEnd(): void {
    this.end(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.ended) return;
    const code = errorCode(error);
    if (this.stopReason === null && !this.resent && code !== undefined && CONNECTION_LOST.has(code) && !this.transport.closed) {
      this.resent = true;
      this.transport.dispatch(this.options, this);
    } else this.end(this.stopReason ?? this.transport.describe(error, this.statusCode !== null));
  }

  abort(): void {
    if (this.ended) return;
    this.stopReason = STOPPED;
    const controller = this.controller;
    this.end(STOPPED); // told at once: the queue forgot the attempt first
    if (controller !== null && !controller.aborted) controller.abort(new Error(STOPPED));
  }

  /** Stops reading the answer: the attempt ends with `error`, or (null) with what its status says. */
  private stop(controller: Dispatcher.DispatchController, error: string | null): void {
    this.end(error);
    this.stopReason = 'stopped reading the answer';
    controller.abort(new Error(this.stopReason));
  }

  private end(error: string | null): void {
    if (this.ended) return;
    this.ended = true;
    const status = this.statusCode;
    let failure = error;
    if (failure === null && status !== null && (status < 200 || status >= 300)) {
      failure =
        status >= 300 && status < 400
          ? `answered ${status}${this.location ? ` (Location: ${this.location.slice(0, 200)})` : ''}: redirects are not followed`
          : `answered ${status}: not a 2xx`;
    }
    const excerpt = status === null ? null : this.excerpt();
    this.parts = null;
    this.onResult({ statusCode: status, durationMs: Math.round(performance.now() - this.startedAt), error: failure, excerpt });
  }

  /** The first EXCERPT_BYTES of the body as text, without a character the cut split. */
  private excerpt(): string {
    const parts = this.parts;
    if (parts === null) return '';
    const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    return bytes.toString('utf8', 0, wholeCharacters(bytes));
  }
}

/**
 * One namespace's connections: each namespace has its own Agent (made on its first attempt), so one
 * namespace's attempts hanging on a receiver never hold up another's to the same address.
 */
export class WebhookTransport {
  private agent: Agent | null = null;
  private readonly targets = new Map<string, Target | string>();
  closed = false;

  constructor(private readonly options: TransportOptions) {}

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** Sends the attempt; `onResult` is told its result (never before this returns). */
  send(url: string, headers: Record<string, string>, body: string, onResult: AttemptCallback): SentAttempt {
    const target = this.targetOf(url);
    if (typeof target === 'string') return settled({ statusCode: null, durationMs: 0, error: target, excerpt: null }, onResult);
    const options: Dispatcher.DispatchOptions = {
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers,
      body,
      // Deliveries are at least once, and sent again once already: undici pipelines only these.
      idempotent: true,
      blocking: false,
    };
    const attempt = new Attempt(this, options, performance.now(), onResult);
    this.dispatch(options, attempt);
    return attempt;
  }

  /** Hands the request to the namespace's Agent (made on the first attempt); after close(), the attempt ends as stopped. */
  dispatch(options: Dispatcher.DispatchOptions, attempt: Attempt): void {
    if (this.closed) {
      queueMicrotask(() => attempt.onResponseError(null as never, new Error('stopped: the sandbox is closing')));
      return;
    }
    if (this.agent) {
      this.agent.dispatch(options, attempt);
      return;
    }
    // Made on the first attempt (undici is loaded then); the attempts until it exists wait for it.
    loadUndici().then(
      ({ Agent, buildConnector }) => {
        const { timeoutMs, pipelining, targets } = this.options;
        if (!this.closed)
          this.agent ??= new Agent({
            connections: CONCURRENCY,
            pipelining,
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
            maxHeaderSize: 65_536,
            keepAliveTimeout: 4_000,
            keepAliveMaxTimeout: 10_000,
            connect: coalescingWrites(targets.connector(timeoutMs, buildConnector)),
          });
        this.dispatch(options, attempt);
      },
      (err: Error) => attempt.onResponseError(null as never, err),
    );
  }

  /** The parsed URL, or why it cannot receive (kept: every attempt to a subscription names the same URL). */
  private targetOf(url: string): Target | string {
    let target = this.targets.get(url);
    if (target === undefined) {
      target = parseTarget(url, this.options.targets);
      if (this.targets.size >= MAX_TARGETS) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  /** Why an attempt failed, said for people (undici's own error classes named by what they mean here). */
  describe(error: Error, answered: boolean): string {
    const code = errorCode(error);
    const timeoutMs = this.options.timeoutMs;
    switch (code) {
      case 'ERR_WEBHOOK_TARGET':
        return error.message;
      case 'UND_ERR_HEADERS_TIMEOUT':
        return `no answer within ${timeoutMs} ms (--webhook-timeout-ms)`;
      case 'UND_ERR_BODY_TIMEOUT':
        return `the answer's body stopped for ${timeoutMs} ms (--webhook-timeout-ms)`;
      case 'UND_ERR_HEADERS_OVERFLOW':
        return 'not a valid HTTP/1.1 answer: status line and headers longer than 65536 bytes';
      case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
        return 'not a valid HTTP/1.1 answer: its body does not match its Content-Length (or it gives both Content-Length and Transfer-Encoding)';
      case 'UND_ERR_SOCKET':
      case 'ECONNRESET':
      case 'EPIPE':
        return answered
          ? 'the receiver closed the connection in the middle of its answer'
          : `the receiver closed the connection before answering (${error.message})`;
    }
    if (error.name === 'HTTPParserError')
      return `not a valid HTTP/1.1 answer: ${error.message.replace(/^Response does not match the HTTP\/1\.1 protocol \((.*)\)$/, '$1')}`;
    if (this.closed) return 'stopped: the sandbox is closing';
    const cause = error.cause as Error | undefined;
    const message = cause?.message ?? error.message;
    return code && !message.includes(code) ? `${code}: ${message}` : message;
  }

  /** Closes the connections; the attempts in flight end. */
  async close(): Promise<void> {
    this.closed = true;
    const agent = this.agent;
    this.agent = null;
    await agent?.destroy();
  }
}

const RESERVED = /(^|\.)(example|invalid|test)\.?$/i;

/** What `url` names, or why it cannot receive. */
function parseTarget(url: string, policy: TargetPolicy): Target | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a URL: ${url.slice(0, 200)}`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `not an http or https URL: ${url.slice(0, 200)}`;
  if (RESERVED.test(parsed.hostname)) {
    return `${parsed.hostname} is a reserved name (RFC 2606) that never resolves: point the subscription at your receiver`;
  }
  const refused = policy.urlProblem(parsed);
  if (refused !== null) return refused;
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

function errorCode(error: Error): string | undefined {
  const own = (error as Error & { code?: string }).code;
  return own ?? (error.cause as (Error & { code?: string }) | undefined)?.code;
}

/** How many of `bytes` end on a whole UTF-8 character: a sequence cut short at the end is left out. */
function wholeCharacters(bytes: Buffer): number {
  let lead = bytes.length - 1;
  while (lead >= 0 && bytes.length - lead <= 3 && (bytes[lead] & 0xc0) === 0x80) lead--; // continuation bytes
  if (lead < 0) return bytes.length;
  const byte = bytes[lead];
  const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return bytes.length - lead < size ? lead : bytes.length;
}

function settled(result: AttemptResult, onResult: AttemptCallback): SentAttempt {
  queueMicrotask(() => onResult(result));
  return { abort: () => undefined };
}
