// Signatures are HMAC-SHA256 as the official client computes it (node:crypto's createHmac here),
// whatever the secret's length (shorter than, equal to or longer than SHA-256's 64-byte block, or
// with multi-byte characters) and the body's (multi-byte characters, larger than the signer's
// first buffer); and a notification signed with a rotated-in secret of 200 characters verifies.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, signatureOf } from '../../src/webhooks/signing.js';
import { type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';
import { type Receiver, resetFrozen, useSandboxWithReceiver, verifyNotification } from './receiver.js';

const reference = (secret: string, timestamp: string, body: string) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

describe('signatureOf', () => {
  const secrets = ['s', 'x'.repeat(16), 'k'.repeat(63), 'a1'.repeat(32), 'b'.repeat(65), 'c'.repeat(200), 'clé-secrète-été-🔑'.repeat(5)];
  const bodies = ['', '{}', '{"name":"Zoë Ünal 🎉","note":"naïve café"}', JSON.stringify({ big: 'é'.repeat(20_000) }), 'lone \ud800 surrogate'];

  it('equals createHmac for every secret length and body', () => {
    for (const secret of secrets) {
      for (const body of bodies) expect(signatureOf(secret, '1767225600', body)).toBe(reference(secret, '1767225600', body));
    }
  });

  it('signs again the same way after other secrets and larger bodies went through', () => {
    const first = signatureOf('a1'.repeat(32), '1767225601', '{"a":1}');
    signatureOf('c'.repeat(200), '1767225601', 'x'.repeat(100_000));
    expect(signatureOf('a1'.repeat(32), '1767225601', '{"a":1}')).toBe(first);
    expect(first).toBe(reference('a1'.repeat(32), '1767225601', '{"a":1}'));
  });

  it('joins one signature per secret, current first', () => {
    expect(signatureHeader(['new-secret-0001', 'old-secret-0001'], '1767225602', 'body')).toBe(
      `${reference('new-secret-0001', '1767225602', 'body')},${reference('old-secret-0001', '1767225602', 'body')}`,
    );
  });
});

describe('a notification signed with a long rotated-in secret', () => {
  let sb: TestSandbox;
  let receiver: Receiver;
  useSandboxWithReceiver((started) => ({ sb, receiver } = started));

  it('verifies with the 200-character secret, over a body with multi-byte characters', async () => {
    await resetFrozen(sb, '2030-01-15T10:00:00.000Z', receiver);
    const subscription = (await sb.http.post('/_sandbox/records/webhook_subscriptions').send({ url: receiver.url }).expect(201)).body;
    const secret = `${'ß'.repeat(50)}${'z'.repeat(150)}`;
    receiver.trust(secret); // the receiver verifies on arrival with the rotated-in secret only
    await sb.http.post(`/_sandbox/webhooks/subscriptions/${subscription.id}/rotate-secret`).send({ secret, keep_previous_seconds: 0 }).expect(200);
    await sb.http.put(`/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).send({ display_name: 'Zoë Ünal 🎉' }).expect(200);
    const [notification] = await receiver.waitFor(1, 'buyer.updated');
    expect(notification.event.target.display_name).toBe('Zoë Ünal 🎉');
    expect(notification.headers['x-service-signature']).not.toContain(',');
    expect(verifyNotification(secret, notification.body, notification.headers)).toBe(true);
    expect(verifyNotification(subscription.secret, notification.body, notification.headers)).toBe(false);
  });
});
