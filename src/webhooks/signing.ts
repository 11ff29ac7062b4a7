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

/** Why `url` cannot receive notifications (http or https with a host, nothing else), or null. */
export function urlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `'${url.slice(0, 200)}' is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `'${url.slice(0, 200)}' is not an http or https URL`;
  if (!parsed.hostname) return `'${url.slice(0, 200)}' names no host`;
  return null;
}
