// The webhook transport (undici) against real local receivers, hostile ones included: sized and
// chunked answers, requests pipelined behind a busy one and matched to their answers in order (and
// none pipelined with --webhook-pipelining 1), a receiver that closes (Connection: close) in the
// middle of a pipeline, resets before or in the middle of its answer, never answers, drips its head
// or body, redirects elsewhere or to itself, sends bytes after an answer, frames its body both ways,
// sends a head too long, a bad chunk, a body cut short or too long; informational answers, bodies
// that run to the close, answers that are not HTTP, aborts; HTTPS with SNI to a receiver whose CA is
// trusted through NODE_EXTRA_CA_CERTS in a child Node, and (in a child with --expose-gc) that an
// excerpt holds no more than itself.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { buildConnector } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCertificate } from '../../src/tls/sandbox-ca.js';
import { EXCERPT_BYTES } from '../../src/webhooks/limits.js';
import { TargetPolicy } from '../../src/webhooks/targets.js';
import { type AttemptResult, type SentAttempt, WebhookTransport } from '../../src/webhooks/transport.js';
import { childEnv, ensureBuilt, ROOT } from '../cli/support/cli.js';
import { chunked, RawReceiver, type RawRequest, sized } from './raw-receiver.js';
import { settle } from './receiver.js';

const HEADERS = { 'content-type': 'application/json', 'x-test': 'yes' };

/** The transport as a namespace has it: undici pipelining up to `pipelining`, no target refused but the sandbox's own (none here). */
function transportOf(timeoutMs: number, pipelining = 16, targets = new TargetPolicy()): WebhookTransport {
  return new WebhookTransport({ timeoutMs, pipelining, targets });
}

/** Waits (bounded) until the receiver got `count` requests. */
async function received(receiver: RawReceiver, count: number): Promise<RawRequest[]> {
  const until = Date.now() + 10_000;
  while (receiver.requests.length < count) {
    if (Date.now() > until) throw new Error(`expected ${count} request(s), got ${receiver.requests.length}`);
    await settle(5);
  }
  return receiver.requests;
}

describe('webhook HTTP client', () => {
  let transport: WebhookTransport;
  const receivers: RawReceiver[] = [];
  const start = async (answer: (request: RawRequest, socket: Socket) => void) => {
    const receiver = await RawReceiver.start(answer);
    receivers.push(receiver);
    return receiver;
  };
  const send = (url: string, body: string): Promise<AttemptResult> => new Promise((resolve) => transport.send(url, HEADERS, body, resolve));

  afterEach(async () => {
    await transport?.close();
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  it('reads sized and chunked answers as the excerpt, sends the request as given, and keeps its connection alive', async () => {
    transport = transportOf(5_000);
    const receiver = await start((request, socket) => {
      if (request.body === '{"n":1}') socket.write(sized(200, 'sized answer, é'));
      else if (request.body === '{"n":2}') socket.write(chunked(201, ['chunk one, ', 'chunk two']));
      else socket.write('HTTP/1.1 204 No Content\r\n\r\n');
    });
    const url = `${receiver.url('/hooks')}?source=sandbox`;
    expect(await send(url, '{"n":1}')).toMatchObject({ statusCode: 200, error: null, excerpt: 'sized answer, é' });
    expect(await send(url, '{"n":2}')).toMatchObject({ statusCode: 201, error: null, excerpt: 'chunk one, chunk two' });
    expect(await send(url, '{"n":3}')).toMatchObject({ statusCode: 204, error: null, excerpt: '' });
    expect(receiver.connections).toBe(1);
    expect(receiver.requests[0]).toMatchObject({
      line: 'POST /hooks?source=sandbox HTTP/1.1',
      headers: { host: `127.0.0.1:${receiver.port}`, 'content-type': 'application/json', 'x-test': 'yes', 'content-length': '7' },
      body: '{"n":1}',
    });
  });

  /**
   * Sends `first`, which the receiver answers only after 100 ms, then (once it arrived) `bodies` at
   * once: undici writes them on the busy connection behind it (pipelined), as under steady load. An
   * idle connection is not reused at once (undici first lets bytes or a close already on it be read),
   * so a burst after a pause spreads over new connections instead.
   */
  const behindOne = async (receiver: RawReceiver, bodies: string[]) => {
    const url = receiver.url();
    const first = send(url, 'first');
    await received(receiver, receiver.requests.length + 1);
    const rest = bodies.map((body) => send(url, body));
    return [await first, ...(await Promise.all(rest))];
  };
  /** Answers in order on each connection: `first` after 100 ms, and what came behind it after that. */
  const inOrder = (answer: (request: RawRequest, socket: Socket) => void) => {
    const held = new Map<Socket, RawRequest[]>();
    return (request: RawRequest, socket: Socket) => {
      if (request.body === 'first') {
        held.set(socket, []);
        setTimeout(() => {
          socket.write(sized(200, 'first'));
          for (const later of held.get(socket) ?? []) answer(later, socket);
          held.delete(socket);
        }, 100);
      } else if (held.has(socket)) held.get(socket)?.push(request);
      else answer(request, socket);
    };
  };

  it('pipelines requests behind a busy one on its connection and matches the answers in order', async () => {
    transport = transportOf(5_000);
    const receiver = await start(inOrder((request, socket) => socket.write(sized(200, `answer to ${request.body}`))));
    const bodies = Array.from({ length: 12 }, (_, i) => `{"event":${i},"text":"${'é'.repeat(i)}"}`);
    const results = await behindOne(receiver, bodies);
    expect(results.map((r) => r.excerpt)).toEqual(['first', ...bodies.map((body) => `answer to ${body}`)]);
    expect(results.every((r) => r.statusCode === 200 && r.error === null)).toBe(true);
    expect(receiver.connections).toBe(1);
    expect(receiver.requests.map((r) => r.body)).toEqual(['first', ...bodies]);
    expect(Math.max(...receiver.batches[0])).toBeGreaterThan(1); // several came in one read: written together
  });

  it('writes the requests of a burst on one connection together: a write for the burst, not one a request', async () => {
    const targets = new WriteCountingPolicy();
    transport = transportOf(5_000, 16, targets);
    const receiver = await start(inOrder((request, socket) => socket.write(sized(200, `answer to ${request.body}`))));
    const bodies = Array.from({ length: 12 }, (_, i) => `{"event":${i}}`);
    const results = await behindOne(receiver, bodies);
    expect(results.map((r) => r.excerpt)).toEqual(['first', ...bodies.map((body) => `answer to ${body}`)]);
    expect(receiver.connections).toBe(1);
    // `first` alone, then the twelve dispatched in one turn: two writes (one a request uncoalesced, 13).
    expect(targets.writes).toBe(2);
  });

  it('with pipelining 1, sends each request on a connection of its own while another is unanswered', async () => {
    transport = transportOf(5_000, 1);
    const receiver = await start(inOrder((request, socket) => socket.write(sized(200, `answer to ${request.body}`))));
    const results = await behindOne(receiver, ['a', 'b', 'c']);
    expect(results.map((r) => r.excerpt)).toEqual(['first', 'answer to a', 'answer to b', 'answer to c']);
    expect(receiver.requests.filter((r) => r.connection === 0).map((r) => r.body)).toEqual(['first']);
    expect(receiver.connections).toBeGreaterThan(1);
  });

  it('sends the rest of a pipeline again on new connections when the receiver closes after an answer', async () => {
    transport = transportOf(5_000);
    const receiver = await start(
      inOrder((request, socket) => {
        if (socket.writableEnded) return; // closed after an earlier answer: the rest stay unanswered
        if (request.body === 'close-here') socket.end(sized(200, 'bye', 'connection: close\r\n'));
        else socket.write(sized(200, `ok ${request.body}`));
      }),
    );
    const results = await behindOne(receiver, ['a', 'close-here', 'c', 'd', 'e']);
    expect(results.map((r) => [r.statusCode, r.error, r.excerpt])).toEqual([
      [200, null, 'first'],
      [200, null, 'ok a'],
      [200, null, 'bye'],
      [200, null, 'ok c'],
      [200, null, 'ok d'],
      [200, null, 'ok e'],
    ]);
    expect(receiver.requests.filter((r) => r.connection === 0).map((r) => r.body)).toEqual(['first', 'a', 'close-here', 'c', 'd', 'e']);
    const sentAgain = receiver.requests.filter((r) => r.connection > 0).map((r) => r.body);
    expect(sentAgain.sort()).toEqual(['c', 'd', 'e']);
  });

  it('sends a request once more when the receiver resets the connection, then fails the attempt', async () => {
    transport = transportOf(5_000);
    const receiver = await start((_request, socket) => socket.resetAndDestroy());
    const result = await send(receiver.url(), '{"reset":true}');
    expect(result).toMatchObject({
      statusCode: null,
      excerpt: null,
      error: expect.stringMatching(/^the receiver closed the connection before answering \(.*ECONNRESET.*\)$/),
    });
    expect(receiver.requests.map((r) => [r.connection, r.body])).toEqual([
      [0, '{"reset":true}'],
      [1, '{"reset":true}'],
    ]);
  });

  it('sends a request once more when the receiver resets in the middle of its answer, then fails the attempt', async () => {
    transport = transportOf(5_000);
    const receiver = await start((_request, socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    expect(await send(receiver.url(), 'cut')).toMatchObject({
      statusCode: 200,
      error: 'the receiver closed the connection in the middle of its answer',
      excerpt: 'partial',
    });
    expect(receiver.requests.map((r) => [r.connection, r.body])).toEqual([
      [0, 'cut'],
      [1, 'cut'],
    ]);
  });

  it('fails an attempt the receiver never answers at the timeout; one pipelined behind it is sent again on a new connection', async () => {
    transport = transportOf(300);
    const hung = new Set<Socket>();
    const receiver = await start((request, socket) => {
      if (request.body === 'hang') hung.add(socket);
      if (!hung.has(socket)) socket.write(sized(200, 'quick')); // in order: nothing is answered behind the hanging one
    });
    const url = receiver.url();
    const hanging = send(url, 'hang');
    await received(receiver, 1);
    const quick = await send(url, 'quick');
    expect(quick).toMatchObject({ statusCode: 200, error: null, excerpt: 'quick' });
    expect(quick.durationMs).toBeGreaterThanOrEqual(250); // it waited behind 'hang' until that timed out
    const timedOut = await hanging;
    expect(timedOut).toMatchObject({ statusCode: null, excerpt: null, error: 'no answer within 300 ms (--webhook-timeout-ms)' });
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(299);
    expect(receiver.requests.map((r) => [r.connection, r.body])).toEqual([
      [0, 'hang'],
      [0, 'quick'],
      [1, 'quick'],
    ]);
  });

  it("keeps one namespace's 64 hanging attempts from holding up another namespace's, pipelining or not", async () => {
    const receiver = await start((request, socket) => {
      if (request.body !== 'hang') socket.write(sized(200, 'not held up'));
    });
    for (const pipelining of [16, 1]) {
      const hanging = transportOf(60_000, pipelining); // one namespace's connections
      transport = transportOf(60_000, pipelining); // another's
      const before = receiver.requests.length;
      const results: Promise<AttemptResult>[] = [];
      for (let i = 0; i < 64; i++) results.push(new Promise((resolve) => hanging.send(receiver.url(), HEADERS, 'hang', resolve)));
      await received(receiver, before + 1);
      const other = await send(receiver.url(), 'other');
      expect(other).toMatchObject({ statusCode: 200, error: null, excerpt: 'not held up' });
      expect(other.durationMs).toBeLessThan(5_000);
      await hanging.close();
      expect((await Promise.all(results)).every((r) => r.statusCode === null && r.error !== null)).toBe(true);
      await transport.close();
    }
  });

  it('with pipelining 1, sends later attempts beside one the receiver never answers, not behind it', async () => {
    transport = transportOf(300, 1);
    const receiver = await start((request, socket) => {
      if (request.body !== 'hang') socket.write(sized(200, 'quick'));
    });
    const url = receiver.url();
    const hanging = send(url, 'hang');
    await received(receiver, 1);
    const quick = await send(url, 'quick');
    expect(quick).toMatchObject({ statusCode: 200, error: null, excerpt: 'quick' });
    expect(quick.durationMs).toBeLessThan(250);
    expect(await hanging).toMatchObject({ statusCode: null, error: 'no answer within 300 ms (--webhook-timeout-ms)' });
    expect(receiver.requests.map((r) => [r.connection, r.body])).toEqual([
      [0, 'hang'],
      [1, 'quick'],
    ]);
  });

  it('fails a head that drips in at the timeout, and a body that drips past it with what came', async () => {
    transport = transportOf(300);
    const timers = new Set<NodeJS.Timeout>();
    /** Bytes of the body the receiver has written so far. */
    let bodyWritten = 0;
    const drip = (socket: Socket, text: string, everyMs: number, wrote = () => {}) => {
      let at = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || at >= text.length) return clearInterval(timer);
        socket.write(text[at++]);
        wrote();
      }, everyMs);
      timers.add(timer);
    };
    const receiver = await start((request, socket) => {
      if (request.body === 'head') drip(socket, sized(200, 'late'), 40);
      else {
        // The first byte of the body comes with the head, so some body came however late the timers run.
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\nb');
        bodyWritten = 1;
        drip(socket, 'b'.repeat(999), 40, () => bodyWritten++);
      }
    });
    expect(await send(receiver.url(), 'head')).toMatchObject({ statusCode: null, excerpt: null, error: 'no answer within 300 ms (--webhook-timeout-ms)' });
    const body = await send(receiver.url(), 'body');
    expect(body).toMatchObject({ statusCode: 200, error: 'answered 200 but its body did not end within 300 ms (--webhook-timeout-ms)' });
    // What came, and no more: how much came within 300 ms depends on how busy the machine is.
    expect(body.excerpt).toMatch(/^b+$/);
    expect(body.excerpt?.length).toBeLessThanOrEqual(bodyWritten);
    for (const timer of timers) clearInterval(timer);
    expect(receiver.requests.map((r) => r.body)).toEqual(['head', 'body']); // neither sent again
  });

  it('does not follow a redirect, to elsewhere or to itself: a 3xx is a failed attempt that names its Location', async () => {
    transport = transportOf(5_000);
    const target = await start((_request, socket) => socket.write(sized(200, 'never')));
    const receiver = await start((request, socket) => {
      const location = request.body === 'loop' ? receiver.url('/hooks') : target.url('/moved');
      socket.write(sized(request.body === 'loop' ? 302 : 307, 'moved', `location: ${location}\r\n`));
    });
    expect(await send(receiver.url(), '{}')).toMatchObject({
      statusCode: 307,
      excerpt: 'moved',
      error: `answered 307 (Location: ${target.url('/moved')}): redirects are not followed`,
    });
    expect(await send(receiver.url(), 'loop')).toMatchObject({
      statusCode: 302,
      error: `answered 302 (Location: ${receiver.url('/hooks')}): redirects are not followed`,
    });
    expect(receiver.requests.map((r) => r.body)).toEqual(['{}', 'loop']); // once each: the loop is never entered
    expect(target.requests).toEqual([]);
  });

  it('keeps the first EXCERPT_BYTES of a long answer, sized or chunked, and reads the next answer after it', async () => {
    transport = transportOf(5_000);
    const receiver = await start((request, socket) => {
      if (request.body === 'sized') socket.write(sized(500, `x${'é'.repeat(2000)}`));
      else if (request.body === 'chunked') socket.write(chunked(200, ['a'.repeat(1000), 'b'.repeat(1000), 'c'.repeat(3000)]));
      else socket.write(sized(200, 'next'));
    });
    const url = receiver.url();
    const long = await send(url, 'sized');
    expect(long).toMatchObject({ statusCode: 500, error: 'answered 500: not a 2xx' });
    expect(EXCERPT_BYTES).toBe(1024);
    // 1 + 511 * 2 bytes: the cut at 1,024 falls inside the next é, which is left out whole
    expect(long.excerpt).toBe(`x${'é'.repeat(511)}`);
    expect((await send(url, 'chunked')).excerpt).toBe(`${'a'.repeat(1000)}${'b'.repeat(24)}`);
    expect(await send(url, 'after')).toMatchObject({ statusCode: 200, excerpt: 'next' });
    expect(receiver.connections).toBe(1);
  });

  it('reads an informational answer before the real one and a body that runs to the close; fails what is not HTTP', async () => {
    transport = transportOf(5_000);
    const receiver = await start((request, socket) => {
      if (request.body === 'early-hints') socket.write(`HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n${sized(202, 'accepted')}`);
      else if (request.body === 'to-close') socket.end('HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end');
      else socket.write('220 smtp.example ESMTP ready\r\n\r\n');
    });
    const url = receiver.url();
    expect(await send(url, 'early-hints')).toMatchObject({ statusCode: 202, error: null, excerpt: 'accepted' });
    expect(await send(url, 'to-close')).toMatchObject({ statusCode: 200, error: null, excerpt: 'until the end' });
    expect(await send(url, 'smtp')).toMatchObject({
      statusCode: null,
      excerpt: null,
      error: 'not a valid HTTP/1.1 answer: Expected HTTP/, RTSP/ or ICE/',
    });
    expect(receiver.requests.map((r) => r.body)).toEqual(['early-hints', 'to-close', 'smtp']); // sent once each
  });

  it('ends a connection on bytes no request waits for, so the next attempt is not blamed for them', async () => {
    transport = transportOf(5_000);
    // Bytes past what Content-Length says, after every answer.
    const receiver = await start((_request, socket) => socket.write(`${sized(200, 'ok')}junk`));
    const url = receiver.url();
    for (let i = 0; i < 3; i++) {
      expect(await send(url, `{"n":${i}}`)).toMatchObject({ statusCode: 200, error: null, excerpt: 'ok' });
      await settle(50); // the stray bytes arrive on an idle connection
    }
    expect(receiver.requests.map((r) => [r.connection, r.body])).toEqual([
      [0, '{"n":0}'],
      [1, '{"n":1}'],
      [2, '{"n":2}'],
    ]);
  });

  it('refuses ambiguous framing, heads too long, bad chunks and bodies cut short; reads a body to the close', async () => {
    transport = transportOf(5_000);
    const receiver = await start((request, socket) => {
      if (request.body === 'both') socket.write('HTTP/1.1 200 OK\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
      else if (request.body === 'identity') socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the close');
      else if (request.body === 'long-head') socket.write(`HTTP/1.1 200 OK\r\nx-big: ${'h'.repeat(70_000)}\r\ncontent-length: 2\r\n\r\nok`);
      else if (request.body === 'bad-chunk') socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n');
      else if (request.body === 'long-chunk') socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n');
      else if (request.body === 'cut') socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
      else if (request.body === 'moved') socket.write(sized(308, '', 'location: https://receiver.example/crème\r\n'));
      else socket.write(sized(200, 'next'));
    });
    const url = receiver.url();
    expect(await send(url, 'both')).toMatchObject({ statusCode: null, excerpt: null, error: expect.stringMatching(/^not a valid HTTP\/1\.1 answer: /) });
    expect(await send(url, 'after')).toMatchObject({ statusCode: 200, excerpt: 'next' });
    expect(await send(url, 'identity')).toMatchObject({ statusCode: 200, error: null, excerpt: 'until the close' });
    expect(await send(url, 'long-head')).toMatchObject({
      statusCode: null,
      error: 'not a valid HTTP/1.1 answer: status line and headers longer than 65536 bytes',
    });
    expect(await send(url, 'bad-chunk')).toMatchObject({ statusCode: 200, error: expect.stringMatching(/^not a valid HTTP\/1\.1 answer: .*chunk size/i) });
    expect(await send(url, 'long-chunk')).toMatchObject({ statusCode: 200, error: expect.stringMatching(/^not a valid HTTP\/1\.1 answer: /) });
    expect(await send(url, 'cut')).toMatchObject({
      statusCode: 200,
      excerpt: 'partial',
      error: expect.stringMatching(/^not a valid HTTP\/1\.1 answer: |middle of its answer/),
    });
    expect(await send(url, 'moved')).toMatchObject({
      statusCode: 308,
      error: 'answered 308 (Location: https://receiver.example/crème): redirects are not followed',
    });
    expect(await send(url, 'after')).toMatchObject({ statusCode: 200, excerpt: 'next' });
    // Each refused answer ended its connection; the next attempt had a new one.
    const connectionOf = (body: string) => receiver.requests.filter((r) => r.body === body).map((r) => r.connection);
    expect(new Set(receiver.requests.map((r) => r.connection)).size).toBeGreaterThanOrEqual(6);
    expect(connectionOf('long-head')).toHaveLength(1);
    expect(connectionOf('bad-chunk')).toHaveLength(1);
  });

  it('reads at most 64 KiB of an answer: past it the attempt ends as its status says and the connection closes', async () => {
    transport = transportOf(5_000);
    const receiver = await start((request, socket) => {
      if (request.body === 'huge') socket.write(`HTTP/1.1 200 OK\r\ncontent-length: 10000000\r\n\r\n${'z'.repeat(200_000)}`);
      else socket.write(sized(200, 'next'));
    });
    const huge = await send(receiver.url(), 'huge');
    expect(huge).toMatchObject({ statusCode: 200, error: null, excerpt: 'z'.repeat(1024) });
    expect(await send(receiver.url(), 'after')).toMatchObject({ statusCode: 200, excerpt: 'next' });
    expect(receiver.requests.map((r) => [r.connection, r.body])).toEqual([
      [0, 'huge'],
      [1, 'after'],
    ]);
  });

  it('aborts an attempt in flight; a refused connection and a reserved name fail without being sent again', async () => {
    transport = transportOf(5_000);
    const receiver = await start(() => {});
    let sent!: SentAttempt;
    const result = new Promise<AttemptResult>((resolve) => {
      sent = transport.send(receiver.url(), HEADERS, 'hang', resolve);
    });
    await received(receiver, 1);
    sent.abort();
    expect(await result).toMatchObject({
      statusCode: null,
      error: 'stopped: the subscription was deleted or made inactive, or the namespace was reset or dropped',
    });
    const gone = await start(() => {});
    const goneUrl = gone.url();
    await gone.close();
    receivers.pop();
    expect(await send(goneUrl, '{}')).toMatchObject({
      statusCode: null,
      excerpt: null,
      error: expect.stringMatching(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/),
    });
    expect(await send('http://hooks.receiver.example/in', '{}')).toEqual({
      statusCode: null,
      durationMs: 0,
      excerpt: null,
      error: 'hooks.receiver.example is a reserved name (RFC 2606) that never resolves: point the subscription at your receiver',
    });
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('webhook HTTP client over HTTPS', () => {
  let work: string;
  let server: HttpsServer;
  let port: number;
  let caFile: string;
  const servernames: (string | false)[] = [];
  beforeAll(async () => {
    await ensureBuilt();
    work = mkdtempSync(join(tmpdir(), 'sandbox-webhook-tls-'));
    const certificate = await sandboxCertificate(work);
    caFile = certificate.caFile;
    server = createHttpsServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
      servernames.push((req.socket as Socket & { servername: string | false }).servername);
      req.resume();
      req.on('end', () => res.end('secure ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  }, 180_000);
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(work, { recursive: true, force: true });
  });

  /** One attempt from a child Node running the built transport, with the given extra CA file (or none). */
  function attemptFromChild(url: string, extraCa: string | undefined): Promise<AttemptResult> {
    const env = childEnv(extraCa ? { NODE_EXTRA_CA_CERTS: extraCa } : {});
    if (!extraCa) delete env.NODE_EXTRA_CA_CERTS;
    const transportModule = JSON.stringify(join(ROOT, 'dist/src/webhooks/transport.js'));
    const targetsModule = JSON.stringify(join(ROOT, 'dist/src/webhooks/targets.js'));
    const script = `const { WebhookTransport } = await import(${transportModule});
const { TargetPolicy } = await import(${targetsModule});
const transport = new WebhookTransport({ timeoutMs: 5000, pipelining: 16, targets: new TargetPolicy() });
const result = await new Promise((resolve) => transport.send(process.argv[1], { 'content-type': 'application/json' }, '{"secure":true}', resolve));
console.log(JSON.stringify(result));
await transport.close();`;
    return new Promise((resolve, reject) =>
      execFile('node', ['--input-type=module', '-e', script, url], { env, timeout: 20_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
      ),
    );
  }

  it('verifies the receiver against the default CAs plus NODE_EXTRA_CA_CERTS, naming the host by SNI', async () => {
    expect(await attemptFromChild(`https://localhost:${port}/hooks`, caFile)).toMatchObject({ statusCode: 200, error: null, excerpt: 'secure ok' });
    expect(servernames).toEqual(['localhost']);
  });

  it('fails the attempt when the receiver certificate is not trusted', async () => {
    const result = await attemptFromChild(`https://localhost:${port}/hooks`, undefined);
    expect(result).toMatchObject({ statusCode: null, excerpt: null });
    expect(result.error).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify|self[- ]signed/i);
    expect(servernames).toEqual(['localhost']); // nothing was sent
  });
});

describe('webhook HTTP client memory', () => {
  beforeAll(ensureBuilt, 180_000);

  // In a child Node with --expose-gc, so that what is measured is what is still referenced.
  it('keeps no more of an answer than its excerpt, while an earlier attempt hangs and while a long chunked answer comes', async () => {
    const transportModule = JSON.stringify(join(ROOT, 'dist/src/webhooks/transport.js'));
    const targetsModule = JSON.stringify(join(ROOT, 'dist/src/webhooks/targets.js'));
    const script = `import { createServer } from 'node:net';
const { WebhookTransport } = await import(${transportModule});
const { TargetPolicy } = await import(${targetsModule});
const listen = (onRequest) => new Promise((resolve) => {
  const server = createServer((socket) => {
    socket.on('error', () => {}); // the transport closes a connection past 64 KiB of answer
    let pending = '';
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\\r\\n\\r\\n{}'); end >= 0; end = pending.indexOf('\\r\\n\\r\\n{}')) {
        pending = pending.slice(end + 6); // every request's body is {}
        onRequest(socket);
      }
    });
  });
  server.listen(0, '127.0.0.1', () => resolve(server.address().port));
});
const big = Buffer.alloc(600000, 120);
const bigPort = await listen((socket) => socket.write(Buffer.concat([Buffer.from('HTTP/1.1 500 X\\r\\ncontent-length: 600000\\r\\n\\r\\n'), big])));
const hangPort = await listen(() => {});
const extension = ';x=' + 'e'.repeat(60000);
const chunkPort = await listen((socket) => {
  socket.write('HTTP/1.1 200 OK\\r\\ntransfer-encoding: chunked\\r\\n\\r\\n');
  for (let i = 0; i < 300; i++) socket.write('1' + extension + '\\r\\nc\\r\\n');
  socket.write('0\\r\\n\\r\\n');
});
const held = () => { global.gc(); global.gc(); return process.memoryUsage().arrayBuffers; };
const transport = new WebhookTransport({ timeoutMs: 10000, pipelining: 16, targets: new TargetPolicy() });
const before = held();
const attempt = (port) => new Promise((resolve) => transport.send('http://127.0.0.1:' + port + '/', {}, '{}', resolve));
attempt(hangPort); // its deadline keeps the ones after it in line
for (let round = 0; round < 10; round++) {
  await Promise.all(Array.from({ length: 20 }, () => attempt(bigPort)));
}
const afterSized = held();
const chunked = await attempt(chunkPort);
const afterChunked = held();
console.log(JSON.stringify({ before, afterSized, afterChunked, excerpt: chunked.excerpt.length }));
process.exit(0);`;
    const figures = await new Promise<{ before: number; afterSized: number; afterChunked: number; excerpt: number }>((resolve, reject) =>
      execFile('node', ['--expose-gc', '--input-type=module', '-e', script], { env: childEnv(), timeout: 60_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
      ),
    );
    expect(figures.excerpt).toBe(300);
    // 200 answers of 600 kB and one of 18 MB (300 chunks of 60 kB): a view kept for each excerpt held a whole read each.
    expect(figures.afterSized - figures.before).toBeLessThan(2_000_000);
    expect(figures.afterChunked - figures.before).toBeLessThan(2_000_000);
  }, 90_000);
});

/**
 * Counts what the delivery sockets hand to the system (each _write or _writev is a write, whatever
 * it holds), underneath undici and the write coalescing, so the test sees the writes as they leave.
 */
class WriteCountingPolicy extends TargetPolicy {
  writes = 0;
  override connector(timeoutMs: number, build: typeof buildConnector): buildConnector.connector {
    const connect = super.connector(timeoutMs, build);
    return (options, callback) =>
      connect(options, ((err: Error | null, socket: Socket | null) => {
        if (socket) {
          const counted = socket as Socket & Pick<Writable, '_write' | '_writev'>;
          const write = counted._write;
          const writev = counted._writev;
          counted._write = (...args) => {
            this.writes++;
            write.apply(socket, args);
          };
          if (writev) {
            counted._writev = (...args) => {
              this.writes++;
              writev.apply(socket, args);
            };
          }
        }
        (callback as (err: Error | null, socket: Socket | null) => void)(err, socket);
      }) as buildConnector.Callback);
  }
}
