// A receiver on node:net for the webhook client's tests: it reads HTTP/1.1 requests as they come on
// each connection (head, then a Content-Length body) and lets the test answer each with whatever
// bytes it wants (a sized or chunked answer, one cut short, none at all, a reset), so the client's
// parser, pipelining and recovery meet answers node:http would never write.
import { createServer, type Server, type Socket } from 'node:net';

export interface RawRequest {
  /** The request line, e.g. `POST /hooks HTTP/1.1`. */
  line: string;
  headers: Record<string, string>;
  body: string;
  /** Which connection it came on (0, 1, ... in the order they were accepted). */
  connection: number;
  /** Its place among the requests of that connection. */
  index: number;
}

export type Answerer = (request: RawRequest, socket: Socket) => void;

export class RawReceiver {
  readonly requests: RawRequest[] = [];
  /** Each data event's number of complete requests, per connection: several means they came written together. */
  readonly batches: number[][] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(answer: Answerer): Promise<RawReceiver> {
    let receiver!: RawReceiver;
    let connections = 0;
    const server = createServer({ noDelay: true }, (socket) => {
      const connection = connections++;
      receiver.sockets.add(socket);
      receiver.batches[connection] = [];
      socket.on('close', () => receiver.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      let pending = Buffer.alloc(0);
      let index = 0;
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        let complete = 0;
        for (;;) {
          const headEnd = pending.indexOf('\r\n\r\n');
          if (headEnd < 0) break;
          const [line, ...fields] = pending.subarray(0, headEnd).toString('latin1').split('\r\n');
          const headers: Record<string, string> = {};
          for (const field of fields) {
            const colon = field.indexOf(':');
            headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
          }
          const length = Number(headers['content-length'] ?? 0);
          if (pending.length < headEnd + 4 + length) break;
          const body = pending.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
          pending = pending.subarray(headEnd + 4 + length);
          const request = { line, headers, body, connection, index: index++ };
          receiver.requests.push(request);
          complete++;
          answer(request, socket);
        }
        if (complete > 0) receiver.batches[connection].push(complete);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new RawReceiver(server, (server.address() as { port: number }).port);
    return receiver;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Connections accepted so far. */
  get connections(): number {
    return this.batches.length;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A whole answer with a Content-Length body. */
export function sized(status: number, body: string, extraHeaders = ''): string {
  return `HTTP/1.1 ${status} X\r\ncontent-type: text/plain\r\n${extraHeaders}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A whole answer with a chunked body, in the given chunks, and a trailer. */
export function chunked(status: number, chunks: string[]): string {
  const body = chunks.map((c) => `${Buffer.byteLength(c).toString(16)};ext=1\r\n${c}\r\n`).join('');
  return `HTTP/1.1 ${status} X\r\ntransfer-encoding: chunked\r\n\r\n${body}0\r\nx-trailer: yes\r\n\r\n`;
}
