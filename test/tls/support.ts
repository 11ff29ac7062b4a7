// HTTPS clients for the TLS tests: HTTP/2 streams on one session, and HTTP/1.1 requests, both
// trusting only the CA they are given.
import http2, { type ClientHttp2Session } from 'node:http2';
import https from 'node:https';

export interface Answer {
  status: number | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The HTTP/2 stream's RST_STREAM code when the server reset it (0 when it ended normally). */
  rstCode?: number;
  httpVersion?: string;
}

export function connectH2(url: string, ca: string | Buffer): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url, { ca });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

/** One request on an HTTP/2 session; resolves when the stream closes, whatever happened. */
export function h2Request(
  session: ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body?: string,
  options: { endStream?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const stream = session.request(headers, { endStream: body === undefined && options.endStream !== false });
    let status: number | undefined;
    let responseHeaders: Answer['headers'] = {};
    let text = '';
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h;
    });
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('error', () => {}); // a reset stream errors: its rstCode says why
    stream.on('close', () => resolve({ status, headers: responseHeaders, body: text, rstCode: stream.rstCode }));
    if (body !== undefined) stream.end(body);
  });
}

/** One HTTP/1.1 request over TLS (no ALPN: the server's HTTP/1.1 fallback). */
export function h1Request(url: string, options: https.RequestOptions & { body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { ...options, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text, httpVersion: res.httpVersion }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
