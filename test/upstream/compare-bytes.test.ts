// Compare mode hands a list page's pooled bytes to the compare worker as they are (no copy), once
// the answer is over: a client that reads slowly must still get every page whole, other clients
// theirs, and each comparison must have read the bytes the client got.
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli, waitFor } from '../cli/support/cli.js';
import { driftingProxy, useSecondSandbox } from './support.js';

const { suite, call } = useSecondSandbox('compare-bytes-test-');

/** The bodies of `count` answers read from a raw HTTP/1.1 socket. */
function readAnswers(socket: ReturnType<typeof connect>, count: number): Promise<string[]> {
  const bodies: string[] = [];
  let pending = Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) break;
        const length = Number(/content-length: (\d+)/i.exec(pending.subarray(0, end).toString())?.[1]);
        if (pending.length < end + 4 + length) break;
        bodies.push(pending.subarray(end + 4, end + 4 + length).toString());
        pending = pending.subarray(end + 4 + length);
      }
      if (bodies.length === count) resolve(bodies);
    });
  });
}

describe('compare mode and the answer pool', () => {
  it('gives a client that reads slowly every page whole, and compares the bytes it got', async () => {
    // The upstream leaves out each card's bin: every comparison quotes the sandbox's own value, read from its bytes.
    const proxy = await driftingProxy(suite.upstream.url, (path, status, body) =>
      path.startsWith('/gift-cards') && status === 200 ? { status, body: { ...body, items: body.items.map(({ bin, ...card }: any) => card) } } : null,
    );
    const sandbox = await startCli(['--port', '0', '--upstream', proxy.url, '--compare', '--report-dir', join(suite.work, 'pool')]);
    try {
      const first = await (await call(sandbox.url, '/gift-cards?limit=100')).text();
      const other = `/gift-cards?limit=37`;
      const otherPage = await (await call(sandbox.url, other)).text();
      // 20 pipelined requests on a socket not read: their answers wait in Node's buffers, not yet written.
      const socket = connect(Number(new URL(sandbox.url).port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.pause();
      socket.write(`GET /gift-cards?limit=100 HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${suite.token}\r\n\r\n`.repeat(20));
      // Meanwhile other clients take buffers from the pool.
      const others = await Promise.all(Array.from({ length: 20 }, async () => (await call(sandbox.url, other)).text()));
      for (const page of others) expect(page).toBe(otherPage);
      const slow = readAnswers(socket, 20);
      socket.resume();
      const bodies = await slow;
      socket.destroy();
      for (const body of bodies) expect(body).toBe(first);

      await waitFor(async () => {
        const body = await (await fetch(`${sandbox.url}/_sandbox/upstream/report`)).json();
        return body.calls.total === 42 ? body : undefined;
      }, '42 comparisons');
      const journal = await (await fetch(`${sandbox.url}/_sandbox/requests?upstream=differs&limit=100`)).json();
      expect(journal.total).toBe(42);
      const binOf = (page: string) => JSON.parse(page).items[0].bin;
      for (const entry of journal.items) {
        expect(entry.upstream.outcome).toBe('differs');
        expect(entry.upstream.differences).toEqual([
          {
            kind: 'missing_field',
            at: 'items[].bin',
            sandbox: binOf(entry.url.includes('limit=100') ? first : otherPage),
            upstream: null,
            message: "the declared field items[].bin is missing from the upstream's answer",
          },
        ]);
      }
    } finally {
      await sandbox.stop();
      await proxy.close();
    }
  });
});
