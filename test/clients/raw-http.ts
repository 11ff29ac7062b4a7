// HTTP/1.1 over a plain socket, for what a client library would normalise (header letter case, an
// Upgrade: h2c offer, a body length on a GET): requests are written byte for byte, answers parsed
// as they arrive (status line, headers, a Content-Length body), several on one connection.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  statusLine: string;
  headers: Record<string, string>;
  body: string;
}

export class RawConnection {
  private readonly socket: Socket;
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  private closed = false;

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.socket = connect(Number(port), hostname);
    this.socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  /** Sends `lines` (joined with CRLF, ended by an empty line) and resolves with the answer. */
  async request(lines: string[]): Promise<RawAnswer> {
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    return this.answer();
  }

  /** Waits on arrivals (no polling); `timeoutMs` only bounds how long a hung server takes to fail the test, with what it sent so far. */
  private async answer(timeoutMs = 15_000): Promise<RawAnswer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closed) throw new Error(`connection closed before a whole answer: ${JSON.stringify(this.buffer.toString())}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no whole answer within ${timeoutMs} ms (a server waiting on an upgrade hangs so); got ${JSON.stringify(this.buffer.toString())}`);
      await new Promise<void>((resolve) => {
        const guard = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(guard);
          resolve();
        };
      });
      this.waiting = null;
    }
  }

  private parse(): RawAnswer | null {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end === -1) return null;
    const [statusLine, ...headerLines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return null;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), statusLine, headers, body };
  }

  close(): void {
    this.socket.destroy();
  }
}

/** One request on a connection of its own, closed after the answer. */
export async function rawRequest(url: string, lines: string[]): Promise<RawAnswer> {
  const connection = new RawConnection(url);
  try {
    return await connection.request(lines);
  } finally {
    connection.close();
  }
}
