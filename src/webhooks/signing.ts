// How a notification is signed, as the real service's official client verifies it: the header
// x-service-signature holds the lower-case hex HMAC-SHA256 of `<x-service-timestamp>.<raw body>`
// keyed with the subscription's secret; while a secret is being rotated, the signature with the
// previous secret follows, comma-separated, so a receiver that knows either accepts it.
import * as crypto from 'node:crypto';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { writeLatin1, writeUtf8 } from './buffer-text.js';
import { isInboxUrl } from './inbox.js';
import type { TargetPolicy } from './targets.js';

/** A new subscription secret: 32 random bytes as 64 hex characters. */
export function generateSecret(): string {
  return randomBytes(32).toString('hex');
}

/** The signature of one secret over `<timestamp>.<body>`. */
export function signatureOf(secret: string, timestamp: string, body: string): string {
  if (oneShotHash === undefined) return createHmac('sha256', secret).update(timestamp).update('.').update(body).digest('hex');
  let pads = padsBySecret.get(secret);
  if (pads === undefined) {
    if (padsBySecret.size >= MAX_SECRETS) padsBySecret.clear();
    pads = padsOf(secret);
    padsBySecret.set(secret, pads);
  }
  const needed = BLOCK + timestamp.length + 1 + body.length * 3; // UTF-8 takes at most 3 bytes a UTF-16 unit
  if (scratch.length < needed) scratch = Buffer.allocUnsafe(Math.max(needed, scratch.length * 2));
  scratch.set(pads.inner, 0);
  let end = BLOCK + writeLatin1(scratch, timestamp, BLOCK);
  scratch[end++] = 0x2e; // '.'
  end += writeUtf8(scratch, body, end);
  pads.outer.set(oneShotHash('sha256', scratch.subarray(0, end), 'buffer') as Buffer, BLOCK);
  return oneShotHash('sha256', pads.outer, 'hex') as string;
}

// HMAC-SHA256 (RFC 2104) as two one-shot SHA-256 hashes, SHA256((K ^ opad) . SHA256((K ^ ipad) . m)),
// over one reused buffer: createHmac made a native context (whose set-up cost more than hashing
// the body) and a stream object for every signature, and one is made per attempt. crypto.hash()
// came with Node 20.12; an older Node signs with createHmac.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'hex' | 'buffer') => string | Buffer }).hash;
const BLOCK = 64;
const MAX_SECRETS = 1_000;
const padsBySecret = new Map<string, { inner: Buffer; outer: Buffer }>();
let scratch = Buffer.allocUnsafe(BLOCK + 4096);

/** The key's inner pad block, and the outer pad block followed by room for the inner hash. */
function padsOf(secret: string): { inner: Buffer; outer: Buffer } {
  let key = Buffer.from(secret, 'utf8');
  if (key.length > BLOCK) key = createHash('sha256').update(key).digest();
  const inner = Buffer.alloc(BLOCK);
  const outer = Buffer.alloc(BLOCK + 32);
  for (let i = 0; i < BLOCK; i++) {
    const byte = i < key.length ? key[i] : 0;
    inner[i] = byte ^ 0x36;
    outer[i] = byte ^ 0x5c;
  }
  return { inner, outer };
}

/** The x-service-signature value: one signature per secret, current first. */
export function signatureHeader(secrets: readonly string[], timestamp: string, body: string): string {
  if (secrets.length === 1) return signatureOf(secrets[0], timestamp, body);
  return secrets.map((secret) => signatureOf(secret, timestamp, body)).join(',');
}

let lastSecond = Number.NaN;
let lastTimestamp = '';

/** Unix seconds of the wall clock: what receivers compare with their own clock (made once a second). */
export function wallClockTimestamp(nowMs = Date.now()): string {
  const second = Math.floor(nowMs / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTimestamp = String(second);
  }
  return lastTimestamp;
}

/**
 * Why `url` cannot receive notifications, or null: http or https with an ASCII host (a name in its
 * xn-- form) and a port from 1 to 65535, without user:password@ (deliveries carry no credentials:
 * the receiver checks x-service-signature instead, so credentials in the URL would be dropped).
 */
export function urlProblem(url: string): string | null {
  const shown = shownUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${shown} is not a URL: ${whyNotParsed(url)}`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${shown} is not an http or https URL`;
  if (!parsed.hostname) return `${shown} names no host`;
  if (parsed.port === '0') return `${shown} has port 0, where nothing can listen: give the port the receiver listens on (1 to 65535)`;
  if (parsed.username || parsed.password) {
    return `${shown} holds credentials (user:password@): deliveries send none (no Authorization header), so a receiver would never see them; leave them out and check x-service-signature in the receiver`;
  }
  const host = hostAsWritten(url);
  if (host !== null && /[^\u0020-\u007e]/.test(host)) {
    return `${shown} has a host that is not ASCII: write it in its xn-- (IDNA) form, ${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search}`;
  }
  return null;
}

/** Why the target rules refuse a URL that urlProblem() accepts (the sandbox itself, a link-local address...), or null. */
export function refusedTarget(url: string, targets: TargetPolicy): string | null {
  if (isInboxUrl(url)) return null; // the namespace's inbox: delivered in memory, never over the network
  const refused = targets.urlProblem(new URL(url));
  return refused === null ? null : `${shownUrl(url)} is refused: ${refused}`;
}

/** The URL as messages show it: credentials are not echoed back (messages reach logs and the journal). */
function shownUrl(url: string): string {
  return `'${url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@').slice(0, 200)}'`;
}

/** The host (and port) part of an absolute URL as written, or null. */
function hostAsWritten(url: string): string | null {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  return authority ? authority[1].slice(authority[1].lastIndexOf('@') + 1) : null;
}

/** What the URL parser refused, said as a fix (it names no reason itself). */
function whyNotParsed(url: string): string {
  const hostAndPort = hostAsWritten(url);
  if (hostAndPort === null) return 'give an absolute URL such as http://127.0.0.1:3000/hooks';
  if (hostAndPort === '' || hostAndPort.startsWith(':')) return 'it names no host after the scheme';
  const port = /^(\[[^\]]*\]|[^:]*):(.*)$/.exec(hostAndPort)?.[2];
  if (port !== undefined && port !== '' && !/^\d+$/.test(port)) return `the port '${port.slice(0, 20)}' is not a number`;
  if (port !== undefined && Number(port) > 65_535) return `the port ${port.slice(0, 20)} is out of range (at most 65535)`;
  return `the host '${hostAndPort.slice(0, 100)}' is not a valid name or IP address`;
}
