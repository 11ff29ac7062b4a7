// One kept-alive HTTP/1.1 connection of the webhook client (http-client.ts): node:net, or node:tls
// with the default CAs (which include NODE_EXTRA_CA_CERTS) and SNI. Requests are written as they
// come, several in one write (pipelined); answers are read in order by a minimal parser: the status
// line, the few headers that frame the body (Content-Length, chunked Transfer-Encoding, Connection,
// Keep-Alive) and Location, then the body, of which the first EXCERPT_BYTES are kept. The
// connection never decides what to do with an exchange: it hands each answer, and at its end the
// exchanges left unanswered, to its owner.
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { writeLatin1, writeUtf8 } from './buffer-text.js';
import { AnswerHead } from './http-answer-head.js';
import { EXCERPT_BYTES } from './limits.js';

/** Where requests go: one pool of connections per key (scheme, host and port). */
export interface HttpTarget {
  key: string;
  tls: boolean;
  /** Host name or address to connect to (an IPv6 address without its brackets). */
  host: string;
  port: number;
  /** The start of a POST to it: the request line and the Host header, each with its CRLF. */
  requestLine: string;
  /** The URL the target was made from (for error messages). */
  url: string;
}

/** What a connection needs of one request: its bytes, and a place for its answer. */
export interface Wire {
  /** The request line and headers, the blank line included (ASCII). */
  readonly head: string;
  readonly body: string;
  /** The body's length in UTF-8. */
  readonly bodyBytes: number;
  /** Ended (answered, failed, timed out or aborted): an answer still on its way is read and dropped. */
  readonly finished: boolean;
  /** performance.now() when it was written. */
  readonly writtenAt: number;
  statusCode: number | null;
  location: string | undefined;
  /** The first EXCERPT_BYTES of the body, in the pieces they came in. */
  parts: Buffer[] | null;
  kept: number;
}

export interface ConnectionOwner {
  /** `wire`'s answer has been read in full. */
  answered(connection: Connection, wire: Wire): void;
  /** `wire`'s answer is not HTTP/1.1: it fails as it is (sending it again would get the same). */
  invalid(wire: Wire, reason: string): void;
  /**
   * The connection is over: `unanswered` were written on it and got no (whole) answer. `reason`
   * says why; `connected`: whether it had connected (a connect failure is no case for sending again).
   */
  closed(connection: Connection, unanswered: Wire[], reason: string, connected: boolean): void;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const LF_LF = Buffer.from('\n\n');
/** Longest status line and headers of an answer, and longest chunk-size line, accepted. */
const MAX_HEAD_BYTES = 65_536;

// What the parser expects next.
const HEAD = 0;
const SIZED_BODY = 1;
const CHUNK_SIZE = 2;
const CHUNK_DATA = 3;
const CHUNK_END = 4;
const TRAILERS = 5;
const BODY_UNTIL_CLOSE = 6;

export class Connection {
  /** Written, not yet answered, in the order written (answers come in that order). */
  readonly written: Wire[] = [];
  connected = false;
  /** Takes no more requests: the receiver said Connection: close, or the connection ended. */
  closing = false;
  /** performance.now() when `written` last became empty. */
  idleSince = performance.now();
  /** How long it may stay idle before the receiver may close it (Keep-Alive: timeout=, less a margin). */
  idleLimitMs: number;
  private readonly socket: Socket;
  private readonly answerHead = new AnswerHead();
  private ended = false;
  private leftover: Buffer | null = null;
  private expect = HEAD;
  private remaining = 0;
  /** The answer being read ends the connection (Connection: close, HTTP/1.0, or a body that runs to the close). */
  private closeAfter = false;

  constructor(
    readonly target: HttpTarget,
    private readonly owner: ConnectionOwner,
    idleLimitMs: number,
  ) {
    this.idleLimitMs = idleLimitMs;
    const { host, port } = target;
    this.socket = target.tls ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] }) : netConnect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.once(target.tls ? 'secureConnect' : 'connect', () => (this.connected = true));
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (err) => this.end(describeError(err)));
    this.socket.on('close', () => {
      if (this.expect === BODY_UNTIL_CLOSE && this.written.length > 0) this.answered(); // its body ran to the close
      this.end(
        this.expect === HEAD || this.written.length === 0
          ? 'the receiver closed the connection before answering'
          : 'the receiver closed the connection in the middle of its answer',
      );
    });
  }

  /** Writes written[from..] (one request or several, pipelined), `bytes` in all, in one go. */
  writeFrom(from: number, bytes: number): void {
    const out = Buffer.allocUnsafe(bytes);
    let at = 0;
    for (let i = from; i < this.written.length; i++) {
      const wire = this.written[i];
      at += writeLatin1(out, wire.head, at);
      at += writeUtf8(out, wire.body, at);
    }
    this.socket.write(out);
  }

  /** Ends it now (a timeout, an abort, an idle connection, the client closing); the unanswered go to the owner. */
  destroy(reason: string): void {
    this.end(reason);
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.closing = true;
    this.socket.destroy();
    const unanswered = this.written.splice(0);
    this.owner.closed(this, unanswered, reason, this.connected);
  }

  private read(chunk: Buffer): void {
    let buf = chunk;
    if (this.leftover !== null) {
      buf = Buffer.concat([this.leftover, chunk]);
      this.leftover = null;
    }
    let pos = 0;
    while (pos < buf.length && !this.ended) {
      switch (this.expect) {
        case HEAD: {
          if (this.written.length === 0) {
            // Not kept for the next answer, which it would garble: the connection ends, unused.
            this.broken('bytes came while no request was waiting for an answer');
            return;
          }
          const end = buf.indexOf(HEAD_END, pos);
          if (end < 0) {
            if (buf.indexOf(LF_LF, pos) >= 0) this.broken('its lines end with LF alone, not CRLF');
            else this.keepForLater(buf, pos, 'status line and headers');
            return;
          }
          if (end - pos > MAX_HEAD_BYTES) {
            this.broken(`status line and headers longer than ${MAX_HEAD_BYTES} bytes`);
            return;
          }
          if (!this.head(buf, pos, end)) return;
          pos = end + 4;
          break;
        }
        case SIZED_BODY:
        case CHUNK_DATA: {
          const take = Math.min(this.remaining, buf.length - pos);
          this.keep(buf, pos, pos + take);
          pos += take;
          this.remaining -= take;
          if (this.remaining > 0) break;
          if (this.expect === SIZED_BODY) this.answered();
          else this.expect = CHUNK_END;
          break;
        }
        case CHUNK_SIZE: {
          const eol = buf.indexOf(CRLF, pos);
          if (eol < 0) {
            this.keepForLater(buf, pos, 'chunk size line');
            return;
          }
          const line = buf.toString('latin1', pos, eol);
          const semicolon = line.indexOf(';');
          const hex = (semicolon < 0 ? line : line.slice(0, semicolon)).trim();
          if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) {
            this.broken(`bad chunk size '${line.slice(0, 40)}'`);
            return;
          }
          this.remaining = Number.parseInt(hex, 16);
          this.expect = this.remaining === 0 ? TRAILERS : CHUNK_DATA;
          pos = eol + 2;
          break;
        }
        case CHUNK_END: {
          if (buf.length - pos < 2) {
            this.keepForLater(buf, pos, 'chunk end');
            return;
          }
          if (buf[pos] !== 13 || buf[pos + 1] !== 10) {
            this.broken('a chunk does not end with CRLF');
            return;
          }
          this.expect = CHUNK_SIZE;
          pos += 2;
          break;
        }
        case TRAILERS: {
          const eol = buf.indexOf(CRLF, pos);
          if (eol < 0) {
            this.keepForLater(buf, pos, 'trailers');
            return;
          }
          const empty = eol === pos;
          pos = eol + 2;
          if (empty) this.answered(); // the blank line after the trailers (if any) ends the body
          break;
        }
        case BODY_UNTIL_CLOSE:
          this.keep(buf, pos, buf.length);
          pos = buf.length;
          break;
      }
    }
  }

  /** Reads the status line and headers (buf[from, end)) of the answer to written[0]; false when the answer is broken. */
  private head(buf: Buffer, from: number, end: number): boolean {
    const wire = this.written[0];
    const head = this.answerHead;
    const problem = head.read(buf, from, end);
    if (problem !== null) {
      this.broken(problem);
      return false;
    }
    const { status, chunked, transferEncoding } = head;
    const length = transferEncoding ? -1 : head.length; // Transfer-Encoding frames the body, whatever Content-Length says
    if (status < 200) {
      if (status === 101) {
        this.broken('answered 101: switching protocols is not HTTP/1.1');
        return false;
      }
      return true; // an informational answer (100, 103): the real one follows
    }
    wire.statusCode = status;
    wire.location = head.location;
    wire.parts = null;
    wire.kept = 0;
    // Both framings given (a smuggling shape, RFC 9112 6.1): read by Transfer-Encoding, then closed.
    this.closeAfter = head.close || (transferEncoding && head.length >= 0);
    if (head.keepAliveSeconds >= 0) this.idleLimitMs = Math.min(this.idleLimitMs, head.keepAliveSeconds * 1000 - 1000);
    if (status === 204 || status === 304 || (length === 0 && !chunked)) this.answered();
    else if (chunked) this.expect = CHUNK_SIZE;
    else if (length > 0) {
      this.expect = SIZED_BODY;
      this.remaining = length;
    } else {
      this.expect = BODY_UNTIL_CLOSE;
      this.closeAfter = true;
    }
    return true;
  }

  private keep(buf: Buffer, from: number, to: number): void {
    const wire = this.written[0];
    if (wire.kept >= EXCERPT_BYTES || to <= from) return;
    // A copy: a view would keep the whole socket read (64 KB) alive for a few bytes of excerpt.
    const piece = Buffer.from(buf.subarray(from, Math.min(to, from + EXCERPT_BYTES - wire.kept)));
    wire.kept += piece.length;
    if (wire.parts === null) wire.parts = [piece];
    else wire.parts.push(piece);
  }

  /** The answer to written[0] is complete. */
  private answered(): void {
    const wire = this.written.shift() as Wire;
    this.expect = HEAD;
    if (this.written.length === 0) this.idleSince = performance.now();
    if (this.closeAfter) {
      this.closing = true; // before the owner hears of it, so that it writes nothing more here
      this.owner.answered(this, wire);
      this.end('the receiver closed the connection (Connection: close) before answering');
      return;
    }
    this.owner.answered(this, wire);
  }

  private keepForLater(buf: Buffer, pos: number, what: string): void {
    if (buf.length - pos > MAX_HEAD_BYTES) {
      this.broken(`${what} longer than ${MAX_HEAD_BYTES} bytes`);
      return;
    }
    this.leftover = buf.subarray(pos);
  }

  /** An answer that is not HTTP/1.1 fails the request it answers; the connection ends. */
  private broken(problem: string): void {
    const wire = this.written.shift();
    if (wire) this.owner.invalid(wire, `not a valid HTTP/1.1 answer: ${problem}`);
    this.end(`the connection ended after an invalid answer to an earlier request: ${problem}`);
  }
}

/** A short, stable description of a network error (its code first: ECONNREFUSED, ENOTFOUND, ...). */
export function describeError(err: Error): string {
  const cause = err.cause as (Error & { code?: string }) | undefined;
  const code = (err as Error & { code?: string }).code ?? cause?.code;
  const message = cause?.message ?? err.message;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
