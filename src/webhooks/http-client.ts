// The webhook transport's HTTP/1.1 client, hand-written for its cost per request (docs/architecture.md,
// "Dependencies"): undici spent 25 to 30 CPU µs on each, most of it its own JavaScript, which a
// notification per API call cannot afford. Per origin (scheme, host, port): at most CONCURRENCY
// kept-alive connections (http-connection.ts). Requests are not written at once: the ones that
// come in the same turn of the event loop (the delivery queue starts them in batches) are written
// together, several per connection and per write (pipelined, up to the origin's depth), so a
// batch costs a few writes and reads, not one of each per request. The depth grows while the
// receiver answers quickly and drops to 1 when it is slow or closes connections, so a slow
// receiver does not keep requests waiting behind each other. A request has timeoutMs from when it
// is written (one that waits for a free connection is not yet the receiver's fault); one timer,
// not one per request, ends the requests past their deadline. A request written on a connection
// that ends before its answer is sent once more on a new one (delivery is at least once), then
// fails.
import { Connection, type ConnectionOwner, type HttpTarget, type Wire } from './http-connection.js';
import { CONCURRENCY, PIPELINE_DEPTH } from './limits.js';

/** How long a connection may stay idle (less when the receiver's Keep-Alive: timeout= says so). */
const IDLE_MS = 4_000;

/** One request and its answer. The client calls ended() exactly once. */
export abstract class Exchange implements Wire {
  statusCode: number | null = null;
  location: string | undefined = undefined;
  parts: Buffer[] | null = null;
  kept = 0;
  finished = false;
  /** Already sent once more after a connection ended without its answer. */
  resent = false;
  /** The connection it was written on, until it ends. */
  connection: Connection | null = null;
  /** performance.now() after which it fails: timeoutMs after it was (last) written. */
  deadline = 0;
  writtenAt = 0;

  constructor(
    /** The request line and headers, the blank line included: ASCII only (a URL's path and host are). */
    readonly head: string,
    readonly body: string,
    readonly bodyBytes: number,
    /** performance.now() when it was asked for. */
    readonly startedAt: number,
  ) {}

  /** Its end: `error` null when an answer came, whatever its status. */
  protected abstract ended(error: string | null): void;

  finish(error: string | null): void {
    if (this.finished) return;
    this.finished = true;
    this.connection = null;
    this.ended(error);
    this.parts = null; // read by ended(); an ended exchange may wait in the deadline line a while
  }

  /** Ends it now with `reason`. One already written ends its connection, since its answer would hold up the others. */
  stop(reason: string): void {
    const connection = this.connection;
    this.finish(reason);
    connection?.destroy(`stopped: another request on the connection was stopped (${reason})`);
  }

  /** The first EXCERPT_BYTES of the answer's body as text, without a character the cut split; null when no answer came. */
  excerpt(): string | null {
    if (this.statusCode === null) return null;
    const parts = this.parts;
    if (parts === null) return '';
    const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    return bytes.toString('utf8', 0, wholeCharacters(bytes));
  }

  forget(): void {
    this.statusCode = null;
    this.location = undefined;
    this.parts = null;
    this.kept = 0;
    this.connection = null;
  }
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

/** What `url` names, or why it cannot be requested. */
export function targetOf(url: string): HttpTarget | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a URL: ${url.slice(0, 200)}`;
  }
  const tls = parsed.protocol === 'https:';
  if (!tls && parsed.protocol !== 'http:') return `not an http or https URL: ${url.slice(0, 200)}`;
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const port = parsed.port ? Number(parsed.port) : tls ? 443 : 80;
  const requestLine = `POST ${parsed.pathname}${parsed.search} HTTP/1.1\r\nhost: ${parsed.host}\r\n`;
  return { key: `${parsed.protocol}//${parsed.host}`, tls, host, port, requestLine, url };
}

class Pool implements ConnectionOwner {
  readonly connections: Connection[] = [];
  waiting: Exchange[] = [];
  /** Requests written per connection at most now (1 .. PIPELINE_DEPTH). */
  depth = 1;
  dirty = false;

  constructor(
    readonly target: HttpTarget,
    private readonly client: HttpClient,
  ) {}

  /** Writes what waits, up to `depth` requests a connection, each connection's share in one write. */
  dispatch(now: number): void {
    const waiting = this.waiting;
    let next = 0;
    while (next < waiting.length) {
      const connection = this.pick(now, waiting.length - next);
      if (connection === null) break;
      const first = connection.written.length;
      let bytes = 0;
      let room = this.depth - first;
      while (room > 0 && next < waiting.length) {
        const exchange = waiting[next++];
        if (exchange.finished) continue;
        exchange.connection = connection;
        exchange.writtenAt = now;
        this.client.track(exchange, now + this.client.timeoutMs);
        connection.written.push(exchange);
        bytes += exchange.head.length + exchange.bodyBytes;
        room--;
      }
      if (connection.written.length > first) connection.writeFrom(first, bytes);
    }
    this.waiting = next === waiting.length ? [] : waiting.slice(next);
  }

  /**
   * Where the next `want` requests go: the busiest connection that has room for them all, or else
   * the one with the most room, or else a new connection. Filling few connections deep (rather than
   * many a little) is what makes answers come back together, so that the requests they release are
   * written together too.
   */
  private pick(now: number, want: number): Connection | null {
    let best: Connection | null = null;
    let bestRoom = 0;
    let stale: Connection[] | null = null;
    for (const connection of this.connections) {
      if (connection.closing) continue;
      const load = connection.written.length;
      if (load === 0 && now - connection.idleSince > connection.idleLimitMs) {
        (stale ??= []).push(connection);
        continue;
      }
      // Nothing goes behind a request unanswered for longer than a quick answer takes: it may hang.
      const room = load > 0 && now - connection.written[0].writtenAt > this.client.fastMs ? 0 : this.depth - load;
      if (room <= 0) continue;
      if (best === null || (room >= want ? bestRoom < want || room < bestRoom : room > bestRoom)) {
        best = connection;
        bestRoom = room;
      }
    }
    if (stale !== null) for (const connection of stale) connection.destroy('idle for longer than the receiver keeps connections');
    if (best !== null || this.connections.length >= CONCURRENCY) return best;
    const connection = new Connection(this.target, this, IDLE_MS);
    this.connections.push(connection);
    this.client.watchIdle();
    return connection;
  }

  answered(connection: Connection, wire: Wire): void {
    const exchange = wire as Exchange;
    const latency = performance.now() - exchange.writtenAt;
    // A receiver that closes connections, or is slow, gets one request per connection.
    if (connection.closing || latency > this.client.slowMs) this.depth = 1;
    else if (latency <= this.client.fastMs && this.depth < PIPELINE_DEPTH) this.depth++;
    exchange.finish(null);
    if (this.waiting.length > 0) this.client.schedule(this);
  }

  invalid(wire: Wire, reason: string): void {
    (wire as Exchange).finish(reason);
  }

  closed(connection: Connection, unanswered: Wire[], reason: string, connected: boolean): void {
    const at = this.connections.indexOf(connection);
    if (at >= 0) this.connections.splice(at, 1);
    let again: Exchange[] | null = null;
    for (const wire of unanswered) {
      const exchange = wire as Exchange;
      if (exchange.finished) continue;
      if (connected && !exchange.resent && !this.client.isClosed) {
        exchange.resent = true;
        exchange.forget();
        (again ??= []).push(exchange);
      } else exchange.finish(reason);
    }
    if (again !== null) this.waiting = again.concat(this.waiting); // first in line, in the order they were written
    if (this.waiting.length > 0) this.client.schedule(this); // on another connection
  }

  /** Nothing to send, nothing connected: the pool can go. */
  get empty(): boolean {
    return this.connections.length === 0 && this.waiting.length === 0;
  }
}

export interface HttpClientOptions {
  timeoutMs: number;
  /** The error of a request that got no answer within timeoutMs. */
  timeoutError: string;
}

export class HttpClient {
  readonly timeoutMs: number;
  /** An answer this fast lets the origin's pipelines grow; one this slow brings them back to 1. */
  readonly fastMs: number;
  readonly slowMs: number;
  private readonly timeoutError: string;
  private readonly pools = new Map<string, Pool>();
  private dirty: Pool[] = [];
  private flushScheduled = false;
  /** Requests in deadline order (each with the deadline it had then: one sent again appears twice). */
  private deadlines: (Exchange | undefined)[] = [];
  private deadlineAt: number[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | null = null;
  private reaper: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(options: HttpClientOptions) {
    this.timeoutMs = options.timeoutMs;
    this.timeoutError = options.timeoutError;
    this.fastMs = Math.min(100, options.timeoutMs / 20);
    this.slowMs = Math.min(1_000, options.timeoutMs / 4);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends `exchange` to `target` with the next batch. */
  send(target: HttpTarget, exchange: Exchange): void {
    if (this.closed) {
      queueMicrotask(() => exchange.finish('stopped: the sandbox is closing')); // never before send() returns
      return;
    }
    let pool = this.pools.get(target.key);
    if (pool === undefined) {
      pool = new Pool(target, this);
      this.pools.set(target.key, pool);
    }
    pool.waiting.push(exchange);
    this.schedule(pool);
  }

  /** The pool has requests to write: after the current turn of the event loop, with whatever else comes meanwhile. */
  schedule(pool: Pool): void {
    if (this.closed) return;
    if (!pool.dirty) {
      pool.dirty = true;
      this.dirty.push(pool);
    }
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const pools = this.dirty;
    this.dirty = [];
    const now = performance.now();
    for (const pool of pools) {
      pool.dirty = false;
      pool.dispatch(now);
    }
  };

  track(exchange: Exchange, deadline: number): void {
    exchange.deadline = deadline;
    // Drop the ended ones at the front first: answers come about in the order requests went.
    while (this.head < this.deadlines.length && (this.deadlines[this.head] as Exchange).finished) this.deadlines[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.deadlines.length) {
      this.deadlines = this.deadlines.slice(this.head);
      this.deadlineAt = this.deadlineAt.slice(this.head);
      this.head = 0;
    }
    this.deadlines.push(exchange);
    this.deadlineAt.push(deadline);
    if (this.timer === null) this.arm(deadline);
  }

  private arm(deadline: number): void {
    this.timer = setTimeout(this.sweep, Math.max(0, deadline - performance.now()) + 1);
    this.timer.unref();
  }

  /**
   * Ends the requests past their deadline; one written ends its connection. The others on it are
   * sent again, unless their deadline has passed too (written with it): those end in this sweep.
   */
  private readonly sweep = (): void => {
    this.timer = null;
    const now = performance.now();
    while (this.head < this.deadlines.length) {
      const at = this.deadlineAt[this.head];
      const exchange = this.deadlines[this.head] as Exchange;
      if (!exchange.finished && at > now) break;
      this.deadlines[this.head++] = undefined;
      if (!exchange.finished && exchange.deadline === at) exchange.stop(this.timeoutError);
    }
    if (this.head === this.deadlines.length) {
      this.deadlines = [];
      this.deadlineAt = [];
      this.head = 0;
    } else if (this.timer === null) this.arm(this.deadlineAt[this.head]);
  };

  /** Closes connections idle past their limit, every second while there are any. */
  watchIdle(): void {
    if (this.reaper !== null) return;
    this.reaper = setInterval(() => {
      const now = performance.now();
      for (const [key, pool] of this.pools) {
        for (const connection of [...pool.connections]) {
          if (connection.written.length === 0 && now - connection.idleSince > connection.idleLimitMs) connection.destroy('idle');
        }
        if (pool.empty) this.pools.delete(key);
      }
      if (this.pools.size === 0 && this.reaper !== null) {
        clearInterval(this.reaper);
        this.reaper = null;
      }
    }, 1_000);
    this.reaper.unref();
  }

  /** Ends every request and connection. */
  close(): void {
    this.closed = true;
    for (const pool of this.pools.values()) {
      for (const exchange of pool.waiting) exchange.finish('stopped: the sandbox is closing');
      pool.waiting = [];
      for (const connection of [...pool.connections]) connection.destroy('stopped: the sandbox is closing');
    }
    this.pools.clear();
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.reaper !== null) clearInterval(this.reaper);
    this.timer = null;
    this.reaper = null;
  }
}
