// Requests the URL parser or Node would otherwise resolve, answer bare or not at all, over raw
// sockets (fetch and supertest would normalise them first): dot segments in the path (which would
// move a request into another namespace), CONNECT, Expect, two Host headers, HTTP/2.0 on the HTTP/1
// listener, the parser's errors (each with what to fix) and a URL too long.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { expectErrorBody } from '../support/sandbox.js';
import { exchange as exchangeWith, head, openSocket, parseResponse } from './raw-socket.js';

let sb: RunningSandbox;
let auth: string;
const BUYER = '/buyers/b0000000-0000-4000-8000-000000000001';

beforeAll(async () => {
  sb = await startSandbox({ validateResponses: true, logLevel: 'silent' });
  auth = `Bearer ${await sb.token()}`;
});
afterAll(() => sb.close());

const exchange = (lines: string[], body = '') => exchangeWith(sb.port, lines, body);

const renamed = (name: string) => JSON.stringify({ display_name: name });

async function displayName(ns: string): Promise<string> {
  const res = await fetch(`${sb.url}/ns/${ns}/_sandbox/records${BUYER}`);
  expect(res.status).toBe(200);
  return (await res.json()).display_name;
}

describe('a path with a dot segment', () => {
  const DOT_DETAIL = {
    location: 'path',
    pointer: '/',
    type: 'string_pattern_mismatch',
    message: "A path segment may not be '.' or '..' (nor %2e, %2e%2e).",
  };

  it.each([
    ['/ns/hh/%2e%2e/jj', 'hh'],
    ['/ns/hh/%2E%2E/jj', 'hh'],
    ['/ns/hh/.%2e/jj', 'hh'],
    ['/ns/hh/../jj', 'hh'],
    ['/ns/hh/./../jj', 'hh'],
    ['/ns/hh/%2e/../../ns/jj', 'hh'],
    ['/ns/jj/buyers/../..', 'jj'], // resolves to /ns/jj/buyers/... no longer: any dot segment is refused
  ])('is refused (%s), and neither namespace changes', async (prefix, header) => {
    // Both namespaces exist, so a write that slipped through would show.
    for (const ns of ['hh', 'jj']) {
      const put = await fetch(`${sb.url}/ns/${ns}${BUYER}`, {
        method: 'PUT',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: renamed(`kept-${ns}`),
      });
      expect(put.status).toBe(200);
    }
    const body = renamed('via-dots');
    const path = `${prefix}${BUYER}`;
    const res = await exchange(
      [
        `PUT ${path} HTTP/1.1`,
        'host: localhost',
        `authorization: ${auth}`,
        `x-sandbox-namespace: ${header}`,
        'content-type: application/json',
        `content-length: ${body.length}`,
      ],
      body,
    );
    expect(res.status).toBe(400);
    expect(res.headers).toContain('content-type: application/json');
    expect(res.headers).toContain('connection: close');
    expect(res.closed).toBe(true);
    expect(res.body).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: `The request path ${path} holds a dot segment ('.' or '..', or either written %2e): send the path without it. No path of the API has one, and the path is read as written (the /ns/{name}/ prefix names the namespace, and a proxy routing by namespace hashes the raw path), so it is refused rather than resolved to another path or namespace.`,
      details: [DOT_DETAIL],
    });
    expect(await displayName('hh')).toBe('kept-hh');
    expect(await displayName('jj')).toBe('kept-jj');
  });

  it.each([
    '/ns/./_sandbox/health',
    '/ns/%2e%2e/_sandbox/health',
    '/ns/aa/..',
    '/./_sandbox/health',
    '/_sandbox/health/.',
    '/gift-cards/%2E?x=1',
    'http://x/ns/aa/../bb/_sandbox/health',
  ])('is refused wherever the segment is: %s', async (target) => {
    const res = await exchange([`GET ${target} HTTP/1.1`, 'host: localhost', 'connection: close']);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.message).toMatch(/^The request path \/\S* holds a dot segment/);
    expect(res.body.message).not.toContain("_sandbox'");
    expect(res.body.details).toEqual([DOT_DETAIL]);
  });

  it('is not a dot in a name, a file-like segment or the query: those are served', async () => {
    for (const target of ['/ns/team.1/_sandbox/health', '/ns/a..b/_sandbox/health', '/_sandbox/health?next=../x&v=%2e%2e']) {
      const res = await exchange([`GET ${target} HTTP/1.1`, 'host: localhost', 'connection: close']);
      expect([target, res.status]).toEqual([target, 200]);
      expect(res.body.status).toBe('ok');
    }
    const res = await exchange([`GET /gift-cards/..x HTTP/1.1`, 'host: localhost', `authorization: ${auth}`, 'connection: close']);
    expect(res.status).not.toBe(400); // '..x' is an id, not a dot segment: the operation answers
  });
});

describe('what Node answers bare or not at all', () => {
  it('answers CONNECT with 405, a JSON error body and Allow, and closes', async () => {
    const res = await exchange(['CONNECT 127.0.0.1:9 HTTP/1.1', 'host: 127.0.0.1:9']);
    expect(res.status).toBe(405);
    expect(res.closed).toBe(true);
    expect(res.headers).toContain('allow: get, post, put, patch, delete, head, options');
    expect(res.body).toEqual({
      type: 'error',
      code: 'method_not_allowed',
      status: 405,
      message: "The sandbox is not a proxy and serves no CONNECT (to 127.0.0.1:9); send the request itself, e.g. GET /buyers, to the sandbox's address.",
      details: [],
    });
  });

  it('answers an Expect other than 100-continue with 417 and a JSON error body naming the header', async () => {
    const res = await exchange(['GET /_sandbox/health HTTP/1.1', 'host: localhost', 'expect: 200-ok']);
    expect(res.status).toBe(417);
    expect(res.closed).toBe(true);
    expect(res.body).toEqual({
      type: 'error',
      code: 'expectation_failed',
      status: 417,
      message: 'The sandbox cannot meet Expect: 200-ok; send no Expect header, or Expect: 100-continue.',
      details: [{ location: 'header', pointer: '/expect', type: 'enum', message: "Header 'expect' may only be 100-continue." }],
    });
    // 100-continue is still met: the body is asked for and the request served.
    const body = renamed('continued');
    const { socket, received } = await openSocket(sb.port, 3_000);
    socket.write(
      head([
        `PUT ${BUYER} HTTP/1.1`,
        'host: localhost',
        `authorization: ${auth}`,
        'expect: 100-continue',
        'content-type: application/json',
        `content-length: ${body.length}`,
        'connection: close',
      ]) + body,
    );
    const { text } = await received;
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(await displayName('default')).toBe('continued');
  });

  it('answers two Host headers with 400 naming the header (RFC 9112 3.2), and closes', async () => {
    const res = await exchange(['GET /connections HTTP/1.1', 'host: a', 'Host: b', `authorization: ${auth}`]);
    expect(res.status).toBe(400);
    expect(res.closed).toBe(true);
    expect(res.body).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: 'The request has more than one Host header; send exactly one (e.g. Host: 127.0.0.1:4010, the address the sandbox listens on).',
      details: [{ location: 'header', pointer: '/host', type: 'duplicate', message: "Header 'host' may be sent only once." }],
    });
  });

  it('answers HTTP/2.0 on the HTTP/1 listener with 505 and a JSON error body; HTTP/1.0 and 1.1 are served', async () => {
    const res = await exchange(['GET /_sandbox/health HTTP/2.0', 'host: localhost']);
    expect(res.status).toBe(505);
    expect(res.closed).toBe(true);
    expect(res.body).toEqual({
      type: 'error',
      code: 'http_version_not_supported',
      status: 505,
      message: 'HTTP/2.0 is not served on this connection; send HTTP/1.1 (or HTTP/2 over TLS, with --tls).',
      details: [],
    });
    for (const version of ['1.0', '1.1']) {
      const ok = await exchange([`GET /_sandbox/health HTTP/${version}`, 'host: localhost', 'connection: close']);
      expect([version, ok.status]).toEqual([version, 200]);
    }
  });
});

describe("the parser's errors say what to fix", () => {
  it.each([
    ['GET \\gift-cards HTTP/1.1\r\nhost: x', 'HPE_INVALID_URL', 'the request target holds a character that must be percent-encoded'],
    ['GET /ns/a\tb/connections HTTP/1.1\r\nhost: x', 'HPE_INVALID_URL', 'the request target holds a character that must be percent-encoded'],
    ['GET /gift-cards/\u00fc HTTP/1.1\r\nhost: x', 'HPE_INVALID_URL', 'the request target holds a character that must be percent-encoded'],
    ['GET /connections HTTP/1.1\r\nhost: x\r\nx-a: b\u0000c', 'HPE_INVALID_HEADER_TOKEN', 'a header name or value holds a forbidden character'],
    ['GET /connections HTTP/1.1\r\nhost: x\r\nx-a: b\r\n c', 'HPE_INVALID_HEADER_TOKEN', 'a header name or value holds a forbidden character'],
  ])('%j', async (request, code, fix) => {
    const { socket, received } = await openSocket(sb.port, 3_000);
    socket.write(Buffer.from(`${request}\r\n\r\n`, 'latin1'));
    const { text, closed } = await received;
    expect(closed).toBe(true);
    const res = parseResponse(text);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'bad_request');
    expect(res.body.message).toMatch(new RegExp(`^The request is not valid HTTP/1\\.1: ${fix}.* \\(${code}\\)\\.$`));
  });

  it('says the URL is too long when the request line fills the 16 KiB limit, with the status Node gives (431)', async () => {
    const res = await exchange([`GET /ns/${'a'.repeat(20_000)}/connections HTTP/1.1`, 'host: localhost']);
    expect(res.status).toBe(431);
    expect(res.closed).toBe(true);
    expectErrorBody(res.body, 431, 'request_header_fields_too_large');
    expect(res.body.message).toMatch(
      /^The URL is too long: the request line alone is (at least )?\d+ bytes, and it and the headers together may be at most 16 KiB; send a shorter URL/,
    );
    expect(res.body.details).toEqual([
      { location: 'path', pointer: '/', type: 'string_too_long', message: 'The request line and headers together may be at most 16 KiB.' },
    ]);
    // Headers over the limit behind a short URL are still the headers' fault.
    const big = await exchange(['GET /connections HTTP/1.1', 'host: localhost', `x-padding: ${'p'.repeat(20_000)}`]);
    expect(big.status).toBe(431);
    expect(big.body.message).toBe('The request headers are larger than 16 KiB; send fewer or shorter headers.');
  });
});
