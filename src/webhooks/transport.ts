// Sends one attempt of a notification: a POST over pooled keep-alive connections (undici, which
// follows no redirect unless told to), ended by a timer after the timeout, answered by an
// AttemptResult that never throws. Names under the reserved .example, .invalid and .test domains
// (RFC 2606, the seeded subscriptions' URLs) fail at once, without a DNS query.
import { Agent, type Dispatcher } from 'undici';
import { CONCURRENCY, EXCERPT_BYTES } from './limits.js';

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
  done: Promise<AttemptResult>;
  /** Ends the attempt now (its subscription was deleted, the namespace reset); its result is then an error. */
  abort(): void;
}

const RESERVED = /(^|\.)(example|invalid|test)\.?$/i;

/**
 * One namespace's connections: each namespace has its own pool (made on its first attempt), so one
 * namespace's attempts hanging on a receiver never hold up another's to the same address.
 */
export class WebhookTransport {
  private agent: Agent | null = null;

  constructor(private readonly timeoutMs: number) {}

  send(url: string, headers: Record<string, string>, body: string): SentAttempt {
    const started = performance.now();
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return settled({ statusCode: null, durationMs: 0, error: `not a URL: ${url.slice(0, 200)}`, excerpt: null });
    }
    if (RESERVED.test(target.hostname)) {
      return settled({
        statusCode: null,
        durationMs: 0,
        error: `${target.hostname} is a reserved name (RFC 2606) that never resolves: point the subscription at your receiver`,
        excerpt: null,
      });
    }
    let controller: Dispatcher.DispatchController | null = null;
    let abortReason: string | null = null;
    let finish!: (result: AttemptResult) => void;
    const done = new Promise<AttemptResult>((resolve) => (finish = resolve));
    let statusCode: number | null = null;
    let location: string | undefined;
    const chunks: Buffer[] = [];
    let kept = 0;
    let ended = false;
    const end = (error: string | null) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      const excerpt = kept > 0 ? Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') : statusCode === null ? null : '';
      finish({ statusCode, durationMs: Math.round(performance.now() - started), error, excerpt });
    };
    const stop = (reason: string) => {
      abortReason ??= reason;
      if (controller && !controller.aborted) controller.abort(new Error(reason));
      else if (!controller) end(reason);
    };
    const timer = setTimeout(() => stop(`no answer within ${this.timeoutMs} ms (--webhook-timeout-ms)`), this.timeoutMs);
    timer.unref();
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (abortReason) c.abort(new Error(abortReason));
      },
      onResponseStart(_c, status, responseHeaders) {
        statusCode = status;
        const loc = responseHeaders.location;
        location = Array.isArray(loc) ? loc[0] : loc;
      },
      onResponseData(_c, chunk) {
        if (kept >= EXCERPT_BYTES) return;
        chunks.push(chunk);
        kept += chunk.length;
      },
      onResponseEnd() {
        if (statusCode !== null && statusCode >= 200 && statusCode < 300) return end(null);
        if (statusCode !== null && statusCode >= 300 && statusCode < 400) {
          return end(`answered ${statusCode}${location ? ` (Location: ${location.slice(0, 200)})` : ''}: redirects are not followed`);
        }
        end(`answered ${statusCode}: not a 2xx`);
      },
      onResponseError(_c, err) {
        end(abortReason ?? describe(err));
      },
    };
    try {
      this.agent ??= new Agent({ connections: CONCURRENCY, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 10_000 });
      this.agent.dispatch({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'POST', headers, body }, handler);
    } catch (err) {
      end(describe(err as Error));
    }
    return { done, abort: () => stop('stopped: the subscription was deleted or made inactive, or the namespace was reset or dropped') };
  }

  /** Closes the connections; a later attempt opens new ones. */
  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = null;
    await agent?.destroy();
  }
}

function settled(result: AttemptResult): SentAttempt {
  return { done: Promise.resolve(result), abort: () => undefined };
}

/** A short, stable description of a network error (its code first: ECONNREFUSED, ENOTFOUND, ...). */
function describe(err: Error): string {
  const cause = err.cause as (Error & { code?: string }) | undefined;
  const code = (err as Error & { code?: string }).code ?? cause?.code;
  const message = cause?.message ?? err.message;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
