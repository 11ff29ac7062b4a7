// Raw-socket exchanges with a running sandbox, so a test controls every byte and every pause.
import { connect, type Socket } from 'node:net';

export interface Exchange {
  socket: Socket;
  /** Everything the server sent until it closed the connection (or the bound passed). */
  received: Promise<{ text: string; closed: boolean }>;
}

/** A connection to the sandbox on `port`; `boundMs`: how long to wait for the server to close it. */
export function openSocket(port: number, boundMs: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      let text = '';
      socket.on('data', (d) => (text += d.toString('latin1')));
      const received = new Promise<{ text: string; closed: boolean }>((done) => {
        const timer = setTimeout(() => done({ text, closed: false }), boundMs);
        socket.on('close', () => {
          clearTimeout(timer);
          done({ text, closed: true });
        });
      });
      resolve({ socket, received });
    });
    socket.on('error', () => {}); // the server may reset a connection whose body it refused
    socket.once('error', reject);
  });
}

/** Status and JSON body of the first response in raw bytes. */
export function parseResponse(raw: string): { status: number; headers: string; body: any } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  let body = rest.join('\r\n\r\n');
  if (/transfer-encoding: chunked/i.test(head)) body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
  return { status, headers: head.toLowerCase(), body: JSON.parse(body) };
}

/** A request head of these lines. */
export const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

/** Sends one request of these head lines (and body) to the sandbox on `port` and parses the answer; `closed`: whether the server closed the connection. */
export async function exchange(port: number, lines: string[], body = '') {
  const { socket, received } = await openSocket(port, 3_000);
  socket.write(head(lines) + body);
  const { text, closed } = await received;
  socket.destroy();
  return { ...parseResponse(text), closed };
}
