// A real webhook receiver for the tests: a node:http server on a free loopback port that keeps
// every notification (raw body, headers), verifies signatures the way the official client's
// documented procedure does (HMAC-SHA256 over `timestamp.body`, any of the comma-separated
// signatures, an optional freshness tolerance), and answers what the test tells it to: a status,
// a redirect, or nothing at all (a hang, until the sandbox's timeout).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestSandbox } from '../support/sandbox.js';

export interface Notification {
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  body: string;
  event: any;
  /** What the receiver answered. */
  answered: number | 'hang';
}

export type Answer = { status: number; body?: string; location?: string } | 'hang';

/**
 * The official client's verification, written independently of the sandbox: true when one of the
 * comma-separated signatures is the HMAC-SHA256 of `<timestamp>.<body>` with the secret, and (with
 * a tolerance) the timestamp is that recent on this machine's clock.
 */
export function verifyNotification(secret: string, body: string, headers: IncomingHttpHeaders, toleranceSeconds?: number): boolean {
  const timestamp = headers['x-service-timestamp'];
  const header = headers['x-service-signature'];
  if (typeof timestamp !== 'string' || typeof header !== 'string' || !/^\d+$/.test(timestamp)) return false;
  if (toleranceSeconds !== undefined && Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex'));
  return header.split(',').some((signature) => {
    const given = Buffer.from(signature.trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export class Receiver {
  readonly received: Notification[] = [];
  /** What the next notifications get; the last answer repeats. */
  answers: Answer[] = [{ status: 200, body: 'ok' }];
  private readonly hanging = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/hooks'): Promise<Receiver> {
    let receiver!: Receiver;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const answer = receiver.answers.length > 1 ? (receiver.answers.shift() as Answer) : receiver.answers[0];
        let event: any;
        try {
          event = JSON.parse(body);
        } catch {
          event = undefined;
        }
        receiver.received.push({ headers: req.headers, body, event, answered: answer === 'hang' ? 'hang' : answer.status });
        if (answer === 'hang') {
          const close = () => res.destroy();
          receiver.hanging.add(close);
          res.on('close', () => receiver.hanging.delete(close));
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.location ? { location: answer.location } : {}) });
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return receiver;
  }

  /** Notifications of one event name (all when none given). */
  of(name?: string): Notification[] {
    return this.received.filter((n) => name === undefined || n.event?.name === name);
  }

  /** Waits (bounded) until at least `count` notifications matching `name` arrived; returns them. */
  async waitFor(count: number, name?: string, timeoutMs = 10_000): Promise<Notification[]> {
    const until = Date.now() + timeoutMs;
    while (this.of(name).length < count) {
      if (Date.now() > until)
        throw new Error(`expected ${count} notification(s)${name ? ` of ${name}` : ''} within ${timeoutMs} ms, got ${this.of(name).length}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.of(name);
  }

  clear(): void {
    this.received.length = 0;
    this.answers = [{ status: 200, body: 'ok' }];
  }

  async close(): Promise<void> {
    for (const close of this.hanging) close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** Polls `read` until `done` holds of its result (bounded wait), and returns that result. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** Gives the sandbox a moment to do what it would do (for asserting that nothing more arrives). */
export function settle(ms = 300): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Between tests: the default namespace back to its fixtures, its clock frozen at `now`, the receivers emptied. */
export async function resetFrozen(sb: TestSandbox, now: string, ...receivers: Receiver[]): Promise<void> {
  await sb.http.post('/_sandbox/reset').expect(200);
  await sb.http.put('/_sandbox/clock').send({ now, frozen: true }).expect(200);
  for (const receiver of receivers) receiver.clear();
}
