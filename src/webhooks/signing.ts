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

/** Why `url` cannot receive notifications (http or https with a host and a port in range, nothing else), or null. */
export function urlProblem(url: string): string | null {
  const shown = `'${url.slice(0, 200)}'`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${shown} is not a URL: ${whyNotParsed(url)}`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${shown} is not an http or https URL`;
  if (!parsed.hostname) return `${shown} names no host`;
  return null;
}

/** What the URL parser refused, said as a fix (it names no reason itself). */
function whyNotParsed(url: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  if (!authority) return 'give an absolute URL such as http://127.0.0.1:3000/hooks';
  const hostAndPort = authority[1].slice(authority[1].lastIndexOf('@') + 1);
  if (hostAndPort === '' || hostAndPort.startsWith(':')) return 'it names no host after the scheme';
  const port = /^(\[[^\]]*\]|[^:]*):(.*)$/.exec(hostAndPort)?.[2];
  if (port !== undefined && port !== '' && !/^\d+$/.test(port)) return `the port '${port.slice(0, 20)}' is not a number`;
  if (port !== undefined && Number(port) > 65_535) return `the port ${port.slice(0, 20)} is out of range (at most 65535)`;
  return `the host '${hostAndPort.slice(0, 100)}' is not a valid name or IP address`;
}
