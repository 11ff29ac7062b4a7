// A TCP relay that holds every chunk, each way, for DELAY ms before passing it on, in order: the
// partition tests' 200 ms between the nodes and Redis on a kernel without sch_netem (tc netem is
// the only qdisc that delays packets). Run inside Redis's network namespace by netns.ts:
//   node delay-relay.mjs LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS
// It prints "listening" once it accepts, and stops with its parent's signal.
import { connect, createServer } from 'node:net';

const [listenPort, targetHost, targetPort, delayMs] = process.argv.slice(2);
const delay = Number(delayMs);

/** Copies `from` to `to`, each chunk `delay` ms after it arrived (timers of one delay fire in order). */
function delayed(from, to) {
  from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), delay));
  from.on('end', () => setTimeout(() => to.end(), delay));
  from.on('error', () => to.destroy());
  from.on('close', () => setTimeout(() => to.destroy(), delay));
}

createServer((client) => {
  const server = connect(Number(targetPort), targetHost);
  delayed(client, server);
  delayed(server, client);
}).listen(Number(listenPort), '0.0.0.0', () => console.log('listening'));
