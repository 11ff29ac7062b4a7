// How a notification is signed, as the real service's official client verifies it: the header
// x-service-signature holds the lower-case hex HMAC-SHA256 of `<x-service-timestamp>.<raw body>`
// keyed with the subscription's secret; while a secret is being rotated, the signature with the
// previous secret follows, comma-separated, so a receiver that knows either accepts it.
import { createHmac, randomBytes } from 'node:crypto';

/** A new subscription secret: 32 random bytes as 64 hex characters. */
export function generateSecret(): string {
  return randomBytes(32).toString('hex');
}

/** The signature of one secret over `<timestamp>.<body>`. */
export function signatureOf(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(timestamp).update('.').update(body).digest('hex');
}

/** The x-service-signature value: one signature per secret, current first. */
export function signatureHeader(secrets: readonly string[], timestamp: string, body: string): string {
  if (secrets.length === 1) return signatureOf(secrets[0], timestamp, body);
  return secrets.map((secret) => signatureOf(secret, timestamp, body)).join(',');
}

/** Unix seconds of the wall clock: what receivers compare with their own clock. */
export function wallClockTimestamp(nowMs = Date.now()): string {
  return String(Math.floor(nowMs / 1000));
}

/**
 * Why `url` cannot receive notifications, or null: http or https with an ASCII host (a name in its
 * xn-- form) and a port from 1 to 65535, without user:password@ (deliveries carry no credentials:
 * the receiver checks x-service-signature instead, so credentials in the URL would be dropped).
 */
export function urlProblem(url: string): string | null {
  // Credentials are not echoed back (messages reach logs and the journal).
  const shown = `'${url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@').slice(0, 200)}'`;
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
