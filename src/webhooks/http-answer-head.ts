// The status line and headers of an HTTP/1.1 answer, read from the bytes as they came: only what
// frames the body (Content-Length, chunked Transfer-Encoding, Connection, the Keep-Alive timeout)
// and Location are looked at. Reading the bytes rather than a string made of them allocates
// nothing for a usual answer, which counts when every API call is a notification.

const HTTP_1 = Buffer.from('HTTP/1.');
const CONTENT_LENGTH = Buffer.from('content-length');
const TRANSFER_ENCODING = Buffer.from('transfer-encoding');
const CONNECTION = Buffer.from('connection');
const KEEP_ALIVE = Buffer.from('keep-alive');
const LOCATION = Buffer.from('location');
const CHUNKED = Buffer.from('chunked');
const CLOSE = Buffer.from('close');
const TIMEOUT = Buffer.from('timeout');

const CR = 13;
const SPACE = 32;
const TAB = 9;
const COMMA = 44;

/** Whether buf[at, at + word.length) is `word` (lower-case ASCII), whatever the letters' case. */
function isWord(buf: Buffer, at: number, end: number, word: Buffer): boolean {
  if (end - at !== word.length) return false;
  for (let i = 0; i < word.length; i++) if ((buf[at + i] | 0x20) !== word[i]) return false;
  return true;
}

/** Whether the comma-separated list in buf[from, to) holds `token`. */
function hasToken(buf: Buffer, from: number, to: number, token: Buffer): boolean {
  let start = from;
  for (let i = from; i <= to; i++) {
    if (i < to && buf[i] !== COMMA) continue;
    let a = start;
    let b = i;
    while (a < b && (buf[a] === SPACE || buf[a] === TAB)) a++;
    while (b > a && (buf[b - 1] === SPACE || buf[b - 1] === TAB)) b--;
    if (isWord(buf, a, b, token)) return true;
    start = i + 1;
  }
  return false;
}

export class AnswerHead {
  status = 0;
  /** HTTP/1.0, or Connection: close: the connection ends after this answer. */
  close = false;
  /** Content-Length, or -1. */
  length = -1;
  chunked = false;
  /** A Transfer-Encoding was given: it frames the body, whatever Content-Length says (RFC 9112 6.3). */
  transferEncoding = false;
  /** Keep-Alive: timeout=, in seconds, or -1. */
  keepAliveSeconds = -1;
  /** Location, read for a redirect only. */
  location: string | undefined = undefined;

  /** Reads buf[from, end) (the blank line excluded); the problem when it is not an HTTP/1.1 answer, else null. */
  read(buf: Buffer, from: number, end: number): string | null {
    let lineEnd = buf.indexOf(CR, from);
    if (lineEnd < 0 || lineEnd > end) lineEnd = end;
    const valid =
      lineEnd - from >= 12 &&
      buf.compare(HTTP_1, 0, HTTP_1.length, from, from + HTTP_1.length) === 0 &&
      (buf[from + 7] === 0x30 || buf[from + 7] === 0x31) &&
      buf[from + 8] === SPACE &&
      isDigit(buf[from + 9]) &&
      isDigit(buf[from + 10]) &&
      isDigit(buf[from + 11]) &&
      (lineEnd === from + 12 || buf[from + 12] === SPACE);
    if (!valid) return `not an HTTP/1.1 answer: '${buf.toString('latin1', from, Math.min(lineEnd, from + 60))}'`;
    const http10 = buf[from + 7] === 0x30;
    this.status = (buf[from + 9] - 48) * 100 + (buf[from + 10] - 48) * 10 + (buf[from + 11] - 48);
    this.close = http10;
    this.length = -1;
    this.chunked = false;
    this.transferEncoding = false;
    this.keepAliveSeconds = -1;
    this.location = undefined;
    for (let at = lineEnd + 2; at < end; ) {
      let next = buf.indexOf(CR, at);
      if (next < 0 || next > end) next = end;
      const problem = this.header(buf, at, next, http10);
      if (problem !== null) return problem;
      at = next + 2;
    }
    return null;
  }

  private header(buf: Buffer, from: number, to: number, http10: boolean): string | null {
    let colon = from;
    while (colon < to && buf[colon] !== 0x3a) colon++;
    if (colon === to || colon === from) return null; // not a header line: ignored
    let value = colon + 1;
    let valueEnd = to;
    while (value < valueEnd && (buf[value] === SPACE || buf[value] === TAB)) value++;
    while (valueEnd > value && (buf[valueEnd - 1] === SPACE || buf[valueEnd - 1] === TAB)) valueEnd--;
    switch (colon - from) {
      case CONTENT_LENGTH.length:
        if (isWord(buf, from, colon, CONTENT_LENGTH)) {
          let length = 0;
          for (let i = value; i < valueEnd; i++) {
            if (!isDigit(buf[i])) return `bad content-length '${buf.toString('latin1', value, Math.min(valueEnd, value + 40))}'`;
            length = length * 10 + (buf[i] - 48);
          }
          if (value === valueEnd || valueEnd - value > 15 || (this.length >= 0 && this.length !== length)) {
            return `bad content-length '${buf.toString('latin1', value, Math.min(valueEnd, value + 40))}'`;
          }
          this.length = length;
        }
        break;
      case TRANSFER_ENCODING.length:
        // chunked when it is the last coding named
        if (isWord(buf, from, colon, TRANSFER_ENCODING)) {
          this.transferEncoding = true;
          this.chunked = valueEnd - value >= CHUNKED.length && isWord(buf, valueEnd - CHUNKED.length, valueEnd, CHUNKED);
          if (this.chunked && valueEnd - value > CHUNKED.length) {
            const before = buf[valueEnd - CHUNKED.length - 1];
            this.chunked = before === COMMA || before === SPACE || before === TAB;
          }
        }
        break;
      case CONNECTION.length: // and KEEP_ALIVE.length
        if (isWord(buf, from, colon, CONNECTION)) {
          if (hasToken(buf, value, valueEnd, CLOSE)) this.close = true;
          else if (http10 && hasToken(buf, value, valueEnd, KEEP_ALIVE)) this.close = false;
        } else if (isWord(buf, from, colon, KEEP_ALIVE)) this.keepAliveSeconds = timeoutOf(buf, value, valueEnd);
        break;
      case LOCATION.length:
        if (this.status >= 300 && this.status < 400 && this.location === undefined && isWord(buf, from, colon, LOCATION)) {
          this.location = buf.toString('utf8', value, valueEnd);
        }
        break;
    }
    return null;
  }
}

function isDigit(byte: number): boolean {
  return byte >= 48 && byte <= 57;
}

/** The seconds of `timeout=N` in a Keep-Alive value, or -1. */
function timeoutOf(buf: Buffer, from: number, to: number): number {
  for (let i = from; i + TIMEOUT.length < to; i++) {
    if (!isWord(buf, i, i + TIMEOUT.length, TIMEOUT)) continue;
    let at = i + TIMEOUT.length;
    while (at < to && (buf[at] === SPACE || buf[at] === TAB)) at++;
    if (buf[at] !== 0x3d) continue;
    at++;
    while (at < to && (buf[at] === SPACE || buf[at] === TAB)) at++;
    let seconds = -1;
    while (at < to && isDigit(buf[at]) && seconds < 1e6) seconds = (seconds < 0 ? 0 : seconds * 10) + (buf[at++] - 48);
    return seconds;
  }
  return -1;
}
