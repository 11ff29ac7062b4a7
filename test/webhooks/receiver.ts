// A real webhook receiver for the tests: a node:http server on a free loopback port that keeps
// every notification (raw body, headers), verifies each on arrival the way the official client's
// documented procedure does (HMAC-SHA256 over `timestamp.body`, any of the comma-separated
// signatures, a freshness tolerance) against the subscription secrets the test gave it (trust()),
// and answers what the test tells it to: a status, a redirect, or nothing at all (a hang, until the
// sandbox's timeout). A notification no given secret verifies fails the test: waitFor(), of(),
// clear() and close() throw, naming it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

export interface Notification {
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  body: string;
  event: any;
  /** What the receiver answered. */
  answered: number | 'hang';
  /** Whether a secret the receiver was given verified it on arrival. */
  verified: boolean;
}

/** How far the x-service-timestamp of a notification may be from this machine's clock when it arrives. */
const TOLERANCE_SECONDS = 300;

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

/** What the receiver answers a notification: a status (a body, a Location), or no answer at all. */
export type Answer = { status: number; body?: string; location?: string } | 'hang';

export class Receiver {
  readonly received: Notification[] = [];
  /** What the next notifications get; the last answer repeats. */
  answers: Answer[] = [{ status: 200, body: 'ok' }];
  private readonly hanging = new Set<() => void>();
  /** The secrets notifications may be signed with (kept across clear(): each is random, and a late arrival of the last test still verifies). */
  private readonly secrets = new Set<string>();
  private unverified: Notification[] = [];
  /** Called on each arrival: what waitFor() waits on. */
  private readonly arrivals = new Set<() => void>();

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
        const verified = [...receiver.secrets].some((secret) => verifyNotification(secret, body, req.headers, TOLERANCE_SECONDS));
        const notification: Notification = { headers: req.headers, body, event, answered: answer === 'hang' ? 'hang' : answer.status, verified };
        receiver.received.push(notification);
        if (!verified) receiver.unverified.push(notification);
        for (const arrived of [...receiver.arrivals]) arrived();
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

  /** Notifications answered 'hang' whose connection is still open (the sandbox has neither timed out nor aborted them). */
  get hangingNow(): number {
    return this.hanging.size;
  }

  /** Closes the connections of the hanging notifications (their attempts fail as a reset connection). */
  releaseHanging(): void {
    for (const close of [...this.hanging]) close();
  }

  /** Secrets of the subscriptions that send here: every notification must verify with one of them. */
  trust(...secrets: string[]): void {
    for (const secret of secrets) this.secrets.add(secret);
  }

  /** Throws, naming them, when notifications came that no given secret verifies. */
  checkVerified(): void {
    if (this.unverified.length) throw unverifiedError(this.url, this.unverified);
  }

  /** The unverified notifications, which then no longer fail the test (for a test that expects them). */
  takeUnverified(): Notification[] {
    const taken = this.unverified;
    this.unverified = [];
    return taken;
  }

  /** Notifications of one event name (all when none given). */
  of(name?: string): Notification[] {
    this.checkVerified();
    return this.received.filter((n) => name === undefined || n.event?.name === name);
  }

  /**
   * Waits until at least `count` notifications matching `name` arrived, looking again on each
   * arrival (not on a clock); returns them. `timeoutMs` only bounds how long a test that will fail
   * takes to say so.
   */
  async waitFor(count: number, name?: string, timeoutMs = 10_000): Promise<Notification[]> {
    if (this.of(name).length >= count) return this.of(name);
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        clearTimeout(guard);
        this.arrivals.delete(check);
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        try {
          if (this.of(name).length >= count) done();
        } catch (err) {
          done(err as Error); // a notification no secret verifies
        }
      };
      const guard = setTimeout(
        () => done(new Error(`expected ${count} notification(s)${name ? ` of ${name}` : ''} within ${timeoutMs} ms, got ${this.of(name).length}`)),
        timeoutMs,
      );
      this.arrivals.add(check);
    });
    return this.of(name);
  }

  /** Between tests: forgets what came (throwing once for what no secret verified, so that only this test fails). */
  clear(): void {
    const unverified = this.takeUnverified();
    this.received.length = 0;
    this.answers = [{ status: 200, body: 'ok' }];
    if (unverified.length) throw unverifiedError(this.url, unverified);
  }

  async close(): Promise<void> {
    for (const close of this.hanging) close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.checkVerified();
  }
}

function unverifiedError(url: string, unverified: Notification[]): Error {
  const names = unverified.map((n) => `${n.event?.name ?? '(not JSON)'} signed ${String(n.headers['x-service-signature']).slice(0, 20)}...`);
  return new Error(`${url} received ${unverified.length} notification(s) no secret it was given verifies: ${names.join('; ')}`);
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

/** Subscribes the receiver through the records API (in the namespace of `prefix`, '' or /ns/{name}) and trusts the secret it is given. */
export async function subscribeReceiver(sb: TestSandbox, receiver: Receiver, prefix = ''): Promise<void> {
  receiver.trust((await sb.http.post(`${prefix}/_sandbox/records/webhook_subscriptions`).send({ url: receiver.url }).expect(201)).body.secret);
}

/**
 * A sandbox and a receiver for the tests of one describe block: started before them, closed after;
 * `set` is given both once they are up.
 */
export function useSandboxWithReceiver(set: (started: { sb: TestSandbox; receiver: Receiver }) => void): void {
  let started: { sb: TestSandbox; receiver: Receiver } | null = null;
  beforeAll(async () => {
    started = { sb: await startTestSandbox(), receiver: await Receiver.start() };
    set(started);
  });
  afterAll(async () => {
    await started?.receiver.close();
    started?.sb.server.close();
  });
}
