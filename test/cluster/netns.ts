// Network namespaces of a test's own, for partitions (issue 35 part 3): each host (Redis, HAProxy,
// each node) gets a namespace with one veth into a bridge, which lives in a namespace of its own
// too; the test reaches them from the root namespace through one more veth into that bridge. The
// addresses are in 10.213.x.0/24, inside these namespaces and on the test's own veth only. Links are
// cut with nftables inside a host's namespace and degraded with tc netem; everything is removed by
// `remove()`. Needs root and iproute2 (ip, tc) and nftables (nft): `missingForNetns()` says what lacks.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const RELAY = join(import.meta.dirname, 'delay-relay.mjs');
/** The delay relays running, by namespace. */
const relays = new Map<string, ChildProcess>();

/** What keeps these tests from running here, in one line; null when nothing does. */
export function missingForNetns(): string | null {
  if (process.getuid?.() !== 0) return 'root (ip netns needs it; CI runs .ci/run as root)';
  const absent = ['ip', 'tc', 'nft'].filter((p) => spawnSync('sh', ['-c', `command -v ${p} || test -x /usr/sbin/${p}`]).status !== 0);
  return absent.length ? `${absent.join(', ')} (apt-get install -y iproute2 nftables)` : null;
}

function sh(args: string[]): string {
  const [program, ...rest] = args;
  const done = spawnSync(program, rest, { encoding: 'utf8', timeout: 30_000 });
  if (done.status !== 0) throw new Error(`${args.join(' ')} failed: ${done.stderr || done.stdout || done.error?.message}`);
  return done.stdout;
}

export interface NetHost {
  name: string;
  netns: string;
  address: string;
}

export interface Network {
  hosts: Record<string, NetHost>;
  /** Drops every packet between `host` and `peer` (both ways), inside `host`'s namespace. */
  cut(host: NetHost, peer: NetHost): void;
  /**
   * Delay and loss on everything `host` sends: netem on its veth where the kernel has it. Else (a
   * kernel built without sch_netem, as the 2026-12 test machines: no other qdisc delays packets) the
   * loss by nftables, and the delay by a relay in `host`'s namespace (delay-relay.mjs) that every
   * connection to `tcpPort` is redirected through; connections made before are not, so the caller
   * closes them (Redis: CLIENT KILL) and its clients reconnect through the relay. Returns what was
   * applied, for the figures.
   */
  degrade(host: NetHost, delayMs: number, lossPercent: number, tcpPort: number): Promise<string>;
  /** Undoes every cut and degradation of `host`. */
  heal(host: NetHost): void;
  remove(): void;
}

/** One namespace per name, plus the bridge's; addresses .10 upwards in order, the test's veth .254. */
export function createNetwork(names: string[]): Network {
  const tag = `pt${process.pid % 100_000}`;
  const subnet = `10.213.${process.pid % 250}`;
  const bridge = `${tag}-sw`;
  const hosts: Record<string, NetHost> = {};
  const made: string[] = [];
  const remove = () => {
    for (const relay of relays.values()) relay.kill('SIGKILL');
    relays.clear();
    spawnSync('ip', ['link', 'del', `${tag}r`]);
    for (const ns of made.reverse()) spawnSync('ip', ['netns', 'del', ns]);
    made.length = 0;
  };
  try {
    sh(['ip', 'netns', 'add', bridge]);
    made.push(bridge);
    sh(['ip', '-n', bridge, 'link', 'add', 'br0', 'type', 'bridge']);
    sh(['ip', '-n', bridge, 'link', 'set', 'br0', 'up']);
    names.forEach((name, i) => {
      const netns = `${tag}-${name}`;
      const address = `${subnet}.${10 + i}`;
      sh(['ip', 'netns', 'add', netns]);
      made.push(netns);
      sh(['ip', 'link', 'add', 'eth0', 'netns', netns, 'type', 'veth', 'peer', 'name', `v${i}`, 'netns', bridge]);
      sh(['ip', '-n', bridge, 'link', 'set', `v${i}`, 'master', 'br0', 'up']);
      sh(['ip', '-n', netns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
      sh(['ip', '-n', netns, 'link', 'set', 'eth0', 'up']);
      sh(['ip', '-n', netns, 'link', 'set', 'lo', 'up']);
      hosts[name] = { name, netns, address };
    });
    // The test's own way in: a veth from the root namespace into the bridge.
    sh(['ip', 'link', 'add', `${tag}r`, 'type', 'veth', 'peer', 'name', 'vroot', 'netns', bridge]);
    sh(['ip', '-n', bridge, 'link', 'set', 'vroot', 'master', 'br0', 'up']);
    sh(['ip', 'addr', 'add', `${subnet}.254/24`, 'dev', `${tag}r`]);
    sh(['ip', 'link', 'set', `${tag}r`, 'up']);
  } catch (err) {
    remove();
    throw err;
  }
  const table = (host: NetHost) => ['ip', 'netns', 'exec', host.netns, 'nft'];
  return {
    hosts,
    cut(host, peer) {
      const nft = table(host);
      spawnSync(nft[0], [...nft.slice(1), 'add', 'table', 'inet', 'partition']);
      sh([...nft, 'add', 'chain', 'inet', 'partition', 'out', '{ type filter hook output priority 0 ; }']);
      sh([...nft, 'add', 'chain', 'inet', 'partition', 'in', '{ type filter hook input priority 0 ; }']);
      sh([...nft, 'add', 'rule', 'inet', 'partition', 'out', 'ip', 'daddr', peer.address, 'drop']);
      sh([...nft, 'add', 'rule', 'inet', 'partition', 'in', 'ip', 'saddr', peer.address, 'drop']);
    },
    async degrade(host, delayMs, lossPercent, tcpPort) {
      const tc = ['tc', '-n', host.netns, 'qdisc', 'replace', 'dev', 'eth0', 'root'];
      const netem = [...tc, 'netem', 'delay', `${delayMs}ms`, 'loss', `${lossPercent}%`];
      if (spawnSync(netem[0], netem.slice(1)).status === 0) return `netem delay ${delayMs}ms loss ${lossPercent}%`;
      const nft = table(host);
      spawnSync(nft[0], [...nft.slice(1), 'add', 'table', 'inet', 'partition']);
      sh([...nft, 'add', 'chain', 'inet', 'partition', 'out', '{ type filter hook output priority 0 ; }']);
      sh([...nft, 'add', 'rule', 'inet', 'partition', 'out', 'numgen', 'random', 'mod', '100', '<', String(lossPercent), 'drop']);
      const relayPort = tcpPort + 10_000;
      const relay = spawn('ip', ['netns', 'exec', host.netns, process.execPath, RELAY, String(relayPort), host.address, String(tcpPort), String(delayMs)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      relays.set(host.netns, relay);
      await new Promise<void>((resolve, reject) => {
        relay.stdout?.once('data', () => resolve());
        relay.once('exit', (code) => reject(new Error(`the delay relay in ${host.netns} exited (${code}) before it listened on ${relayPort}`)));
      });
      sh([...nft, 'add', 'table', 'ip', 'delay']);
      sh([...nft, 'add', 'chain', 'ip', 'delay', 'pre', '{ type nat hook prerouting priority -100 ; }']);
      sh([...nft, 'add', 'rule', 'ip', 'delay', 'pre', 'tcp', 'dport', String(tcpPort), 'redirect', 'to', `:${relayPort}`]);
      return `no sch_netem in this kernel: loss ${lossPercent}% by nftables, ${delayMs} ms each way by a relay`;
    },
    heal(host) {
      spawnSync('ip', ['netns', 'exec', host.netns, 'nft', 'delete', 'table', 'inet', 'partition']);
      spawnSync('ip', ['netns', 'exec', host.netns, 'nft', 'delete', 'table', 'ip', 'delay']);
      spawnSync('tc', ['-n', host.netns, 'qdisc', 'del', 'dev', 'eth0', 'root']);
      relays.get(host.netns)?.kill('SIGKILL'); // its connections end: the clients reconnect straight
      relays.delete(host.netns);
    },
    remove,
  };
}
