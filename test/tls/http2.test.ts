// HTTPS on one port, HTTP/2 and HTTP/1.1 as the client's ALPN asks, with a certificate from the
// sandbox CA: trusted through that CA and refused without it, and every API feature over HTTP/2,
// including those that touch Node's raw objects (pooled page buffers released on 'finish', a
// scenario dropping the connection, the body limit, the request timeout).
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2, { type ClientHttp2Session, constants } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { connectH2, h1Request, h2Request } from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;

describe('HTTPS from the sandbox CA, HTTP/2 and HTTP/1.1 on one port', () => {
  let dir: string;
  let sb: RunningSandbox;
  let ca: Buffer;
  let session: ClientHttp2Session;
  let auth: string;
  const logLines: Array<{ level: string; msg: string }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-h2-'));
    const out = new PassThrough();
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line) logLines.push(JSON.parse(line));
    });
    const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, { out });
    sb = await startSandbox({ tls: true, tlsDir: join(dir, 'tls'), validateResponses: true, requestTimeoutMs: 800, logger });
    ca = readFileSync(sb.tls!.caFile!);
    session = await connectH2(sb.url, ca);
    auth = `Bearer ${await sb.token()}`;
  });
  afterAll(async () => {
    session?.close();
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) => h2Request(session, { ':path': path, authorization: auth, ...headers });
  const putBuyer = (body: string, headers: Record<string, string> = {}) =>
    h2Request(session, { ':method': 'PUT', ':path': `/buyers/${BUYER}`, authorization: auth, 'content-type': 'application/json', ...headers }, body);

  it('serves https:// with a certificate for localhost, 127.0.0.1 and ::1 that only the sandbox CA vouches for', async () => {
    expect(sb.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.httpsUrl).toBe(sb.url);
    expect(sb.tls).toMatchObject({ caFile: join(dir, 'tls', 'ca.pem'), certFile: join(dir, 'tls', 'localhost.pem'), made: { ca: true, certificate: true } });
    const served = new X509Certificate(sb.tls!.cert);
    expect(served.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(served.checkIssued(new X509Certificate(ca))).toBe(true);

    const h1 = await h1Request(`${sb.url}/_sandbox/health`, { ca });
    expect(h1).toMatchObject({ status: 200, httpVersion: '1.1' });
    expect(JSON.parse(h1.body)).toMatchObject({ status: 'ok', namespace: 'default' });
    const byName = await h1Request(`https://localhost:${sb.port}/_sandbox/health`, { ca });
    expect(byName.status).toBe(200);
    // Without the CA, or for a name the certificate does not cover, the client refuses.
    await expect(h1Request(`${sb.url}/_sandbox/health`)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    await expect(h1Request(`${sb.url}/_sandbox/health`, { ca, servername: 'sandbox.example' })).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('logs a client that speaks plain HTTP to the HTTPS port', async () => {
    await expect(fetch(`${sb.url.replace('https:', 'http:')}/_sandbox/health`)).rejects.toThrow();
    const line = () => logLines.find((l) => l.msg === 'a client sent plain HTTP to this HTTPS port: use https://');
    for (let i = 0; i < 100 && !line(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(line()).toMatchObject({ level: 'info', code: 'ERR_SSL_HTTP_REQUEST' });
  });

  it('answers HTTP/2: a GET with a token, a PUT, and the journal read back shows both', async () => {
    const list = await get('/connections', { 'x-request-id': 'h2-get-1' });
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('application/json');
    expect(list.headers['x-request-id']).toBe('h2-get-1');
    expect(Array.isArray(JSON.parse(list.body).items)).toBe(true);
    const put = await putBuyer(JSON.stringify({ display_name: 'Over HTTP/2' }));
    expect(put.status).toBe(200);
    expect(JSON.parse(put.body)).toMatchObject({ id: BUYER, display_name: 'Over HTTP/2' });

    const journal = await h2Request(session, { ':path': '/_sandbox/requests?limit=2' });
    expect(journal.status).toBe(200);
    const [last, before] = JSON.parse(journal.body).items;
    expect(last).toMatchObject({ method: 'PUT', path: `/buyers/${BUYER}`, status: 200, operation_id: 'updateBuyer', body: { display_name: 'Over HTTP/2' } });
    expect(last.headers.authorization).toBe('[redacted]');
    expect(before).toMatchObject({ method: 'GET', path: '/connections', status: 200, request_id: 'h2-get-1' });
    const record = await h2Request(session, { ':path': `/_sandbox/records/buyers/${BUYER}` });
    expect(JSON.parse(record.body).display_name).toBe('Over HTTP/2');
    // The same over HTTP/1.1 on the same port.
    const h1 = await h1Request(`${sb.url}/connections`, { ca, headers: { authorization: auth } });
    expect(h1).toMatchObject({ status: 200, httpVersion: '1.1' });
    expect(h1.body).toBe(list.body);
  });

  it('names the https address the client used in the served documents', async () => {
    const viaIp = JSON.parse((await h2Request(session, { ':path': '/openapi.json' })).body);
    expect(viaIp.servers.map((s: { url: string }) => s.url)).toEqual([sb.url, `${sb.url}/ns/{namespace}`]);
    const viaName = JSON.parse((await h2Request(session, { ':path': '/openapi.admin.json', ':authority': `localhost:${sb.port}` })).body);
    expect(viaName.servers[0].url).toBe(`https://localhost:${sb.port}`);
    const viaH1 = JSON.parse((await h1Request(`https://localhost:${sb.port}/openapi.json`, { ca })).body);
    expect(viaH1.servers[0].url).toBe(`https://localhost:${sb.port}`);
  });

  it('resets only the stream of a dropped-connection scenario: no answer, and the session goes on', async () => {
    const dropped = await get('/gift-cards', { 'x-sandbox-scenario': 'dropped-connection' });
    expect(dropped.status).toBeUndefined();
    expect(dropped.body).toBe('');
    expect(dropped.rstCode).toBe(constants.NGHTTP2_INTERNAL_ERROR);
    expect((await get('/connections')).status).toBe(200);
    const journal = JSON.parse((await h2Request(session, { ':path': '/_sandbox/requests?limit=2' })).body);
    expect(journal.items[1]).toMatchObject({ path: '/gift-cards', status: 444, scenario: 'dropped-connection' });
  });

  it('refuses a body over the limit with 413, with or without Content-Length, before reading it', async () => {
    const big = JSON.stringify({ display_name: 'x'.repeat(1024 * 1024) });
    for (const headers of [{ 'content-length': String(Buffer.byteLength(big)) }, {}] as Array<Record<string, string>>) {
      const res = await putBuyer(big, headers);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toMatchObject({ type: 'error', code: 'payload_too_large', status: 413 });
      expect(res.headers.connection).toBeUndefined(); // no connection-specific header in HTTP/2
    }
    expect((await get('/connections')).status).toBe(200);
    const record = await h2Request(session, { ':path': `/_sandbox/records/buyers/${BUYER}` });
    expect(JSON.parse(record.body).display_name).not.toMatch(/^x+$/);
  });

  it('answers a stream whose body stalls with 408 after the request timeout, without logging a fault', async () => {
    const stalled = await new Promise<{ status?: number; body: string; rstCode: number }>((resolve) => {
      const stream = session.request({
        ':method': 'PUT',
        ':path': `/buyers/${BUYER}`,
        authorization: auth,
        'content-type': 'application/json',
        'content-length': '100',
      });
      let status: number | undefined;
      let body = '';
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (body += chunk));
      stream.on('error', () => {});
      stream.on('close', () => resolve({ status, body, rstCode: stream.rstCode ?? 0 }));
      stream.write('{"display_name":');
    });
    expect(stalled.status).toBe(408);
    expect(JSON.parse(stalled.body)).toEqual({
      type: 'error',
      code: 'request_timeout',
      status: 408,
      message: 'The request did not arrive in time: send the headers and body without pausing.',
      details: [],
    });
    expect((await get('/connections')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logLines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
  });

  it('times only the request: an answer that takes longer than the request timeout arrives whole', async () => {
    // The slow scenario answers 1.5 s late, past the 800 ms request timeout of this sandbox.
    const [list, put] = await Promise.all([
      get('/gift-cards?limit=100', { 'x-sandbox-scenario': 'slow' }),
      putBuyer(JSON.stringify({ display_name: 'Slowly' }), { 'x-sandbox-scenario': 'slow' }),
    ]);
    expect(list.status).toBe(200);
    expect(list.rstCode).toBe(constants.NGHTTP2_NO_ERROR);
    expect(JSON.parse(list.body).items).toHaveLength(100);
    expect(put.status).toBe(200);
    expect(JSON.parse(put.body).display_name).toBe('Slowly');
  });

  it('keeps the pages of a client that reads slowly intact while other clients ask for pages', async () => {
    const first = (await get('/gift-cards?limit=100')).body;
    const other = `/gift-cards?limit=100&cursor=${encodeURIComponent(JSON.parse(first).next_cursor)}`;
    const second = (await get(other)).body;
    // A client with a small flow-control window asks for 20 first pages and does not read them yet:
    // past the window, the answers wait in the server's stream queues.
    const slow = http2.connect(sb.url, { ca, settings: { initialWindowSize: 1024 } });
    const streams = Array.from({ length: 20 }, () => {
      const stream = slow.request({ ':path': '/gift-cards?limit=100', authorization: auth });
      stream.pause();
      return stream;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Meanwhile other pages are assembled, in any buffer the server may reuse.
    const others = await Promise.all(Array.from({ length: 40 }, async () => (await get(other)).body));
    expect(new Set(others)).toEqual(new Set([second]));
    const bodies = await Promise.all(
      streams.map(
        (stream) =>
          new Promise<string>((resolve, reject) => {
            let text = '';
            stream.setEncoding('utf8');
            stream.on('data', (chunk: string) => (text += chunk));
            stream.on('end', () => resolve(text));
            stream.on('error', reject);
            stream.resume();
          }),
      ),
    );
    slow.close();
    for (const body of bodies) expect(body).toBe(first);
  });

  it('sends every stream exactly its own list page while pooled buffers are reused', async () => {
    const first = JSON.parse((await get('/gift-cards?limit=100')).body);
    const paths = [
      '/gift-cards?limit=100',
      `/gift-cards?limit=100&cursor=${encodeURIComponent(first.next_cursor)}`,
      '/gift-cards?limit=37',
      '/gift-cards?limit=3',
    ];
    const expected = await Promise.all(paths.map(async (p) => (await get(p)).body));
    expect(new Set(expected.map((t) => t.length)).size).toBe(paths.length);
    for (let round = 0; round < 3; round++) {
      const order = Array.from({ length: 60 }, (_, i) => i % paths.length);
      const answers = await Promise.all(order.map(async (i) => ({ i, answer: await get(paths[i]) })));
      for (const { i, answer } of answers) {
        expect(answer.status).toBe(200);
        expect(answer.body).toBe(expected[i]);
      }
    }
  });
});
