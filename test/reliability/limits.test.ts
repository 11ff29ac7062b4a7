// Limits: bodies over config.bodyLimitBytes are refused before they are buffered (by Content-Length
// without reading the body, and for chunked bodies as soon as the limit is passed); slow or stalled
// clients are cut off after config.requestTimeoutMs; oversized headers, bytes that are not HTTP and
// a Host header missing or unreadable get a JSON error too. Raw sockets, so the test controls every byte and every pause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, serverTimeouts, startSandbox } from '../../src/start.js';
import { expectErrorBody } from '../support/sandbox.js';
import { head, openSocket, parseResponse } from './raw-socket.js';

const LIMIT = 10_000;
const TIMEOUT_MS = 400;
/** Bounded wait for the server's reaction: the timeout plus Node's checking interval plus slack. */
const REACTION_BOUND_MS = TIMEOUT_MS + 2_500;

let sb: RunningSandbox;
let auth: string;
const BUYER = '/buyers/b0000000-0000-4000-8000-000000000001';

beforeAll(async () => {
  sb = await startSandbox({ validateResponses: true, logLevel: 'silent', bodyLimitBytes: LIMIT, requestTimeoutMs: TIMEOUT_MS });
  auth = `Bearer ${await sb.token()}`;
});
afterAll(() => sb.close());

const open = () => openSocket(sb.port, REACTION_BOUND_MS);
const parse = parseResponse;

describe('request body limit', () => {
  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    const { socket, received } = await open();
    // Only the headers and 5 bytes are sent: an answer proves the body was never waited for.
    socket.write(
      `${head([`PUT ${BUYER} HTTP/1.1`, 'host: localhost', `authorization: ${auth}`, 'content-type: application/json', `content-length: ${LIMIT * 100}`])}{"a":`,
    );
    const { text, closed } = await received;
    expect(closed).toBe(true);
    const res = parse(text);
    expect(res.status).toBe(413);
    expect(res.headers).toContain('connection: close');
    expectErrorBody(res.body, 413, 'payload_too_large');
    expect(res.body.message).toBe(`The request body is larger than ${LIMIT} bytes; send a smaller body.`);
  });

  it('refuses a chunked body as soon as it passes the limit, without waiting for its end', async () => {
    const { socket, received } = await open();
    socket.write(head([`PUT ${BUYER} HTTP/1.1`, 'host: localhost', `authorization: ${auth}`, 'content-type: application/json', 'transfer-encoding: chunked']));
    const chunk = 'x'.repeat(4_000);
    for (let i = 0; i < 3; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`); // 12 000 bytes, never the final 0-chunk
    const { text } = await received;
    const res = parse(text);
    expect(res.status).toBe(413);
    expectErrorBody(res.body, 413, 'payload_too_large');
    socket.destroy();
  });

  it('accepts a body of exactly the limit (it reaches validation)', async () => {
    const body = JSON.stringify({ display_name: 'n', account_number: null, padding: '' });
    const padded = body.replace('"padding":""', `"padding":"${'p'.repeat(LIMIT - body.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(LIMIT);
    const res = await fetch(`${sb.url}${BUYER}`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json' }, body: padded });
    expect(res.status).toBe(200);
    expect((await res.json()).display_name).toBe('n');
  });
});

describe('slow and stalled clients', () => {
  it('closes a connection whose headers never finish, with a 408 JSON body', async () => {
    const { socket, received } = await open();
    socket.write(`GET /connections HTTP/1.1\r\nhost: x\r\nauthorization: ${auth.slice(0, 20)}`);
    const { text, closed } = await received;
    expect(closed).toBe(true);
    const res = parse(text);
    expect(res.status).toBe(408);
    expectErrorBody(res.body, 408, 'request_timeout');
    expect(res.headers).toContain('connection: close');
  });

  it('closes a connection whose body stalls', async () => {
    const { socket, received } = await open();
    socket.write(
      `${head([`PUT ${BUYER} HTTP/1.1`, 'host: localhost', `authorization: ${auth}`, 'content-type: application/json', 'content-length: 100'])}{"display_name":`,
    );
    const { text, closed } = await received;
    expect(closed).toBe(true);
    // The app is still waiting for the body, so no answer has started: Node's timer answers 408.
    const res = parse(text);
    expect(res.status).toBe(408);
    expectErrorBody(res.body, 408, 'request_timeout');
  });

  it('keeps serving other clients meanwhile, and after', async () => {
    const stalled = await open();
    stalled.socket.write('GET /connections HTTP/1.1\r\n');
    const res = await fetch(`${sb.url}/card-scheme-definitions`, { headers: { authorization: auth } });
    expect(res.status).toBe(200);
    expect((await stalled.received).closed).toBe(true);
    const after = await fetch(`${sb.url}/card-scheme-definitions`, { headers: { authorization: auth } });
    expect(after.status).toBe(200);
  });

  it('documents its server timeouts: request and headers = requestTimeoutMs, keep-alive 5 s', () => {
    expect(serverTimeouts(30_000)).toEqual({ requestTimeout: 30_000, headersTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 });
    expect(serverTimeouts(400)).toEqual({ requestTimeout: 400, headersTimeout: 400, keepAliveTimeout: 5_000, connectionsCheckingInterval: 50 });
  });
});

describe('requests Node refuses before the app', () => {
  it('answers headers over 16 KiB with 431 and a JSON error body', async () => {
    const { socket, received } = await open();
    socket.write(head(['GET /connections HTTP/1.1', 'host: localhost', `x-padding: ${'p'.repeat(20_000)}`]));
    const { text, closed } = await received;
    expect(closed).toBe(true);
    const res = parse(text);
    expect(res.status).toBe(431);
    expectErrorBody(res.body, 431, 'request_header_fields_too_large');
  });

  it('answers bytes that are not HTTP with 400 and a JSON error body', async () => {
    const { socket, received } = await open();
    socket.write('\u0000\u0001 NOT HTTP AT ALL\r\n\r\n');
    const { text, closed } = await received;
    expect(closed).toBe(true);
    const res = parse(text);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.message).toBe(
      'The request is not valid HTTP/1.1: the method is not one HTTP knows; send GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS (HPE_INVALID_METHOD).',
    );
  });

  it('answers an HTTP/1.1 request without a Host header with 400, a JSON error body naming the header, and closes', async () => {
    const { socket, received } = await open();
    socket.write(head(['GET /connections HTTP/1.1', `authorization: ${auth}`]));
    const { text, closed } = await received;
    expect(closed).toBe(true);
    const res = parse(text);
    expect(res.status).toBe(400);
    expect(res.headers).toContain('content-type: application/json');
    expect(res.headers).toContain('connection: close');
    expect(res.body).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: 'An HTTP/1.1 request needs a Host header; send one (e.g. Host: 127.0.0.1:4010, the address the sandbox listens on).',
      details: [{ location: 'header', pointer: '/host', type: 'missing', message: "Header 'host' is required." }],
    });
  });

  it('answers a Host header that is not host[:port] with 400 and a JSON error body', async () => {
    for (const host of ['a b', 'x/y', '[::1']) {
      const { socket, received } = await open();
      socket.write(head(['GET /connections HTTP/1.1', `host: ${host}`, `authorization: ${auth}`, 'connection: close']));
      const { text, closed } = await received;
      expect(closed, host).toBe(true);
      const res = parse(text);
      expect(res.status, host).toBe(400);
      expect(res.headers).toContain('content-type: application/json');
      expect(res.body).toEqual({
        type: 'error',
        code: 'bad_request',
        status: 400,
        message:
          'The Host header is not a host name or address with an optional port; send a valid one (e.g. Host: 127.0.0.1:4010, the address the sandbox listens on).',
        details: [{ location: 'header', pointer: '/host', type: 'string_pattern_mismatch', message: "Header 'host' must be host[:port]." }],
      });
    }
  });

  it.each([
    ['OPTIONS * HTTP/1.1', 'The request target cannot be read as a URL (Invalid URL); send a path starting with /.'],
    ['GET /buyers\\..\\connections HTTP/1.1', 'The request path holds a backslash; separate its segments with /.'],
  ])('answers the request line %s, which makes no URL, with 400 and a JSON error body', async (requestLine, message) => {
    const { socket, received } = await open();
    socket.write(head([requestLine, 'host: localhost', `authorization: ${auth}`, 'connection: close']));
    const res = parse((await received).text);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.message).toBe(message);
  });

  it('still answers HTTP/1.0 without a Host header (it needs none)', async () => {
    const { socket, received } = await open();
    socket.write(head(['GET /connections HTTP/1.0', `authorization: ${auth}`]));
    const res = parse((await received).text);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.items)).toBe(true);
  });
});
