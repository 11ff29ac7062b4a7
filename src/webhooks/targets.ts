// Where webhook deliveries may go. Never to the sandbox itself (its listening addresses: a
// subscription to /_sandbox/reset would steer it, and its answer would be readable in the
// deliveries list), nor to link-local addresses and cloud metadata services; with --webhook-target,
// only to the hosts and address ranges given. A URL is checked when a subscription is written (its
// host as written) and again when a delivery connects (every address its name resolves to), so a
// name cannot get round the check through DNS.
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { buildConnector } from 'undici';
import { familyOf, parseTargetEntry } from './target-entry.js';

/** Link-local ranges and the metadata services of clouds (169.254.169.254 is link-local). */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6'); // AWS IMDS over IPv6
LINK_LOCAL.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Names that always mean this machine (RFC 6761), and the addresses they stand for. */
const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');
const LOOPBACK_ADDRESSES = ['127.0.0.1', '::1'];

const FIX = 'point the subscription at your receiver';

export class TargetPolicy {
  /** The sandbox's listening addresses, by port. */
  private readonly own = new Map<number, BlockList>();
  private readonly ownShown: string[] = [];
  private readonly allowedRanges: BlockList | null = null;
  private readonly allowedNames: string[] = [];
  private readonly connectors = new Map<string, buildConnector.connector>();

  constructor(
    /** --webhook-target: empty for any target but the refused ones. */
    private readonly allowed: readonly string[] = [],
    /** The resolver (tests give their own). */
    private readonly resolve: LookupFunction = dnsLookup as LookupFunction,
  ) {
    for (const entry of allowed) {
      const parsed = parseTargetEntry(entry);
      if (typeof parsed === 'string') throw new Error(`--webhook-target ${parsed}`);
      if ('name' in parsed) this.allowedNames.push(parsed.name);
      else {
        this.allowedRanges ??= new BlockList();
        this.allowedRanges.addSubnet(...parsed.range);
      }
    }
  }

  /**
   * The sandbox listens at `address` (as the server reports it) on `port`: a wildcard address
   * (0.0.0.0, ::) means every address of this machine, its loopback ones included.
   */
  listeningOn(address: string, port: number): void {
    let own = this.own.get(port);
    if (!own) this.own.set(port, (own = new BlockList()));
    const wildcard = address === '0.0.0.0' || address === '::';
    if (wildcard) {
      own.addSubnet('127.0.0.0', 8, 'ipv4');
      own.addAddress('0.0.0.0', 'ipv4');
      if (address === '::') own.addAddress('::', 'ipv6');
      own.addAddress('::1', 'ipv6');
      for (const list of Object.values(networkInterfaces())) {
        for (const nic of list ?? [])
          if (address === '::' || nic.family === 'IPv4') own.addAddress(nic.address.split('%')[0], familyOf(nic.address.split('%')[0]));
      }
    } else {
      own.addAddress(address, familyOf(address));
      // Connecting to 0.0.0.0 or :: reaches this machine too.
      own.addAddress(familyOf(address) === 'ipv4' ? '0.0.0.0' : '::', familyOf(address));
    }
    this.ownShown.push(`${address.includes(':') ? `[${address}]` : address}:${port}`);
  }

  /** Why deliveries may not go to the URL's host as written (an address, or a name known without DNS), or null. */
  urlProblem(url: URL): string | null {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname.toLowerCase();
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    if (METADATA_NAMES.has(host.replace(/\.$/, ''))) return `${host} is a cloud metadata service: deliveries never go there; ${FIX}`;
    if (isIP(host)) return this.addressProblem(host, port, null);
    if (isLoopbackName(host)) {
      for (const address of LOOPBACK_ADDRESSES) {
        const problem = this.addressProblem(address, port, host);
        if (problem) return problem;
      }
      return null;
    }
    if (this.allowed.length > 0 && !this.nameAllowed(host) && this.allowedRanges === null) return this.notAllowed(host);
    return null;
  }

  /** Why deliveries may not go to `address` on `port` (reached through the name `via`, if any), or null. */
  addressProblem(address: string, port: number, via: string | null): string | null {
    const family = familyOf(address);
    const shown = via === null ? `${address}` : `${via} (${address})`;
    if (this.own.get(port)?.check(address, family)) {
      return `${shown} port ${port} is the sandbox itself (it listens on ${this.ownShown.join(', ')}): deliveries never go to the sandbox; ${FIX}`;
    }
    if (LINK_LOCAL.check(address, family)) return `${shown} is a link-local or cloud metadata address: deliveries never go there; ${FIX}`;
    if (this.allowed.length > 0 && !(via !== null && this.nameAllowed(via)) && !this.allowedRanges?.check(address, family)) {
      return this.notAllowed(shown);
    }
    return null;
  }

  private nameAllowed(host: string): boolean {
    const name = host.replace(/\.$/, '');
    return this.allowedNames.some((allowed) => (allowed.startsWith('*.') ? name.endsWith(allowed.slice(1)) : name === allowed));
  }

  private notAllowed(shown: string): string {
    return `${shown} is not among the webhook targets this sandbox allows (--webhook-target ${this.allowed.join(', ')}): ${FIX} on an allowed host, or ask whoever runs the sandbox to add it`;
  }

  /**
   * undici's connector (`build`: undici's buildConnector, loaded by the transport's first attempt), checking every address a name resolves to before connecting (an address
   * literal was checked with the URL, and again here): a refused one fails the attempt, never connected.
   */
  connector(timeoutMs: number, build: typeof buildConnector): buildConnector.connector {
    return (options, callback) => {
      const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
      const key = `${port}`;
      let connect = this.connectors.get(key);
      if (!connect) {
        connect = build({ timeout: timeoutMs, lookup: this.checkedLookup(port) } as buildConnector.BuildOptions);
        this.connectors.set(key, connect);
      }
      if (isIP(options.hostname)) {
        const problem = this.addressProblem(options.hostname, port, null);
        if (problem) return void queueMicrotask(() => callback(targetError(problem), null));
      }
      return connect(options, callback as buildConnector.Callback);
    };
  }

  /** The resolver, with every address it gives checked for `port`. */
  private checkedLookup(port: number): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname, options, (err, address, family) => {
        if (err) return callback(err, address, family);
        const all = Array.isArray(address) ? address.map((a) => a.address) : [address];
        for (const one of all) {
          const problem = this.addressProblem(one, port, hostname);
          if (problem) return callback(targetError(problem), address, family);
        }
        callback(null, address, family);
      });
    };
  }
}

/** The error of a refused target, its message said as it is (no code prefix). */
function targetError(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'ERR_WEBHOOK_TARGET' });
}
