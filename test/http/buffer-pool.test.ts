// Large answers are assembled in pooled buffers, given back once Node has written their response:
// the pool itself, and list pages under concurrent load (a buffer reused before its response was
// written would show as another page's bytes in a body).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BufferPool } from '../../src/http/buffer-pool.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';

describe('BufferPool', () => {
  it('hands out a buffer of its own, and the same memory again only once it was given back', () => {
    const pool = new BufferPool(2);
    const a = pool.take(100_000);
    const b = pool.take(100_000);
    expect(a.length).toBe(100_000);
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.buffer).not.toBe(Buffer.allocUnsafe(10).buffer); // never a slice of Node's shared pool
    pool.give(a);
    expect(pool.kept).toBe(1);
    const again = pool.take(99_000);
    expect(again.buffer).toBe(a.buffer);
    expect(again.length).toBe(99_000);
    expect(pool.kept).toBe(0);
    // Free buffers that are too small, or far too large, are not used for a request.
    pool.give(again);
    const larger = pool.take(300_000);
    expect(larger.buffer).not.toBe(a.buffer);
    const tiny = pool.take(1_000);
    expect(tiny.buffer).not.toBe(a.buffer);
    expect(pool.kept).toBe(1);
  });

  it('keeps at most its limit', () => {
    const pool = new BufferPool(2);
    const taken = [pool.take(50_000), pool.take(50_000), pool.take(50_000)];
    for (const bytes of taken) pool.give(bytes);
    expect(pool.kept).toBe(2);
  });
});

describe('list pages under concurrent load', () => {
  // A real listening server: pooled buffers go back on Node's 'finish' of each response.
  let sb: RunningSandbox;
  let auth: string;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, logLevel: 'silent', validateResponses: true });
    auth = `Bearer ${await sb.token()}`;
  });
  afterAll(() => sb.close());
  const get = (path: string) => fetch(`${sb.url}${path}`, { headers: { authorization: auth } });

  it('sends every client exactly its own page while buffers are reused', async () => {
    const first = await (await get('/gift-cards?limit=100')).text();
    const paths = [
      '/gift-cards?limit=100',
      `/gift-cards?limit=100&cursor=${encodeURIComponent(JSON.parse(first).next_cursor)}`,
      '/gift-cards?limit=37',
      '/gift-cards?limit=3',
    ];
    const expected = await Promise.all(paths.map(async (p) => (await get(p)).text()));
    expect(new Set(expected.map((t) => t.length)).size).toBe(paths.length); // pages of different sizes
    for (let round = 0; round < 5; round++) {
      const order = Array.from({ length: 80 }, (_, i) => i % paths.length);
      const bodies = await Promise.all(
        order
          .map(async (i) => ({ i, res: await get(paths[i]) }))
          .map(async (p) => {
            const { i, res } = await p;
            expect(res.status).toBe(200);
            expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(expected[i]));
            return { i, text: await res.text() };
          }),
      );
      for (const { i, text } of bodies) expect(text).toBe(expected[i]);
    }
  });

  it('keeps a page intact for a client that reads slowly while other clients reuse buffers', async () => {
    const first = await (await get('/gift-cards?limit=100')).text();
    const other = `/gift-cards?limit=100&cursor=${encodeURIComponent(JSON.parse(first).next_cursor)}`;
    // 40 pipelined requests for the first page (about 5 MB of answers) on a socket that is not read:
    // the answers wait in Node's buffers, their pooled bytes not yet written.
    const { port } = new URL(sb.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    const request = `GET /gift-cards?limit=100 HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${auth}\r\n\r\n`;
    socket.write(request.repeat(40));
    await new Promise((r) => setTimeout(r, 300));
    // Meanwhile other clients take buffers from the pool for another page.
    const others = await Promise.all(Array.from({ length: 40 }, async () => (await get(other)).text()));
    expect(new Set(others).size).toBe(1);
    // Now read the slow client's answers: every one is the first page, byte for byte.
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.resume();
    const bodies: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${bodies.length} answers arrived`)), 20_000);
      socket.on('data', () => {
        let all = Buffer.concat(chunks);
        for (;;) {
          const end = all.indexOf('\r\n\r\n');
          if (end < 0) break;
          const length = Number(/content-length: (\d+)/i.exec(all.subarray(0, end).toString())?.[1]);
          if (all.length < end + 4 + length) break;
          bodies.push(all.subarray(end + 4, end + 4 + length).toString());
          all = all.subarray(end + 4 + length);
        }
        chunks.length = 0;
        if (all.length) chunks.push(all);
        if (bodies.length === 40) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    socket.destroy();
    expect(bodies.length).toBe(40);
    for (const body of bodies) expect(body).toBe(first);
  });
});
