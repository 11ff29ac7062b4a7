// undici writes every request with a system call of its own, pipelined ones on one connection
// included; on loopback each such write also wakes the receiver, and a notification then cost the
// sandbox about 75 CPU µs (2026-12-06: one writev a notification under strace). Corking a delivery socket for the rest of the turn of the event loop in which it is
// first written lets the requests dispatched in that turn leave in one write: about five a write
// under the bench's load, 40 µs a notification (PUT with a subscription from 0.55 to 0.64 of PUT
// without, side by side). Nothing else about the socket changes: undici still owns it.
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

/** `connect`, with every socket it makes writing at most once a tick. */
export function coalescingWrites(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, ((err: Error | null, socket: Socket | null) => {
      if (socket) writeOncePerTick(socket);
      (callback as (err: Error | null, socket: Socket | null) => void)(err, socket);
    }) as buildConnector.Callback);
}

function writeOncePerTick(socket: Socket): void {
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    return write.apply(this, args);
  } as Socket['write'];
}
