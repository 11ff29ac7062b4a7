// Sends one attempt of a notification: a POST through the webhook HTTP client (http-client.ts:
// kept-alive connections, attempts that are ready together written together, no redirect
// followed, one timer for every attempt's timeout), answered by an AttemptResult that never
// throws. Names under the reserved .example, .invalid and .test domains (RFC 2606, the seeded
// subscriptions' URLs) fail at once, without a DNS query.
import { Exchange, HttpClient, targetOf } from './http-client.js';
import type { HttpTarget } from './http-connection.js';

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

const RESERVED = /(^|\.)(example|invalid|test)\.?$/i;
const STOPPED = 'stopped: the subscription was deleted or made inactive, or the namespace was reset or dropped';
/** Parsed URLs kept (subscriptions rarely change theirs): forgotten all at once past this many. */
const MAX_TARGETS = 1_000;

class Attempt extends Exchange implements SentAttempt {
  constructor(
    head: string,
    body: string,
    bodyBytes: number,
    startedAt: number,
    private readonly onResult: AttemptCallback,
  ) {
    super(head, body, bodyBytes, startedAt);
  }

  protected ended(error: string | null): void {
    const status = this.statusCode;
    let failure = error;
    if (failure === null && status !== null && (status < 200 || status >= 300)) {
      const location = this.location;
      failure =
        status >= 300 && status < 400
          ? `answered ${status}${location ? ` (Location: ${location.slice(0, 200)})` : ''}: redirects are not followed`
          : `answered ${status}: not a 2xx`;
    }
    this.onResult({ statusCode: status, durationMs: Math.round(performance.now() - this.startedAt), error: failure, excerpt: this.excerpt() });
  }

  abort(): void {
    this.stop(STOPPED);
  }
}

/**
 * One namespace's connections: each namespace has its own client (made on its first attempt), so one
 * namespace's attempts hanging on a receiver never hold up another's to the same address.
 */
export class WebhookTransport {
  private client: HttpClient | null = null;
  private readonly targets = new Map<string, HttpTarget | string>();

  constructor(private readonly timeoutMs: number) {}

  /** Sends the attempt with the next batch; `onResult` is told its result (never before this returns). */
  send(url: string, headers: Record<string, string>, body: string, onResult: AttemptCallback): SentAttempt {
    const target = this.targetOf(url);
    if (typeof target === 'string') return settled({ statusCode: null, durationMs: 0, error: target, excerpt: null }, onResult);
    const bodyBytes = Buffer.byteLength(body);
    let head = target.requestLine;
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    head += `content-length: ${bodyBytes}\r\n\r\n`;
    const attempt = new Attempt(head, body, bodyBytes, performance.now(), onResult);
    this.client ??= new HttpClient({ timeoutMs: this.timeoutMs, timeoutError: `no answer within ${this.timeoutMs} ms (--webhook-timeout-ms)` });
    this.client.send(target, attempt);
    return attempt;
  }

  /** The parsed URL, or why it cannot receive (kept: every attempt to a subscription names the same URL). */
  private targetOf(url: string): HttpTarget | string {
    let target = this.targets.get(url);
    if (target === undefined) {
      target = targetOf(url);
      if (typeof target !== 'string' && RESERVED.test(target.host)) {
        target = `${target.host} is a reserved name (RFC 2606) that never resolves: point the subscription at your receiver`;
      }
      if (this.targets.size >= MAX_TARGETS) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  /** Closes the connections; a later attempt opens new ones. */
  async close(): Promise<void> {
    this.client?.close();
    this.client = null;
  }
}

function settled(result: AttemptResult, onResult: AttemptCallback): SentAttempt {
  queueMicrotask(() => onResult(result));
  return { abort: () => undefined };
}
