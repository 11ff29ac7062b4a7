// The lines docs/sdk.md shows for TypeScript (the region between the two marker comments below,
// checked line for line by test/docs/sdk-snippets.test.ts): the official client pointed at the sandbox, its
// token helper, its merchant account option and its webhook check, as the suite runs them.
// snippet-start
import { readFileSync } from 'node:fs';
import { Gr4vy, type SDKOptions, verifyWebhook, withToken } from '@gr4vy/sdk';

/** `serverURL`: http://127.0.0.1:4010, or http://127.0.0.1:4010/ns/<name> for a namespace of your own. */
export function sandboxClient(serverURL: string, options: SDKOptions = {}): Gr4vy {
  return new Gr4vy({
    serverURL,
    merchantAccountId: 'default', // sent as x-gr4vy-merchant-account-id: start the sandbox with that alias
    bearerAuth: withToken({ privateKey: readFileSync('fixtures/keys/admin.pem', 'utf8') }), // a fresh 30 s token per call
    ...options,
  });
}

/** Throws unless a delivery is signed with the subscription's secret: verifyWebhook(payload, secret, signature, timestamp, tolerance s). */
export function verifyDelivery(rawBody: string, headers: Headers, secret: string): void {
  verifyWebhook(rawBody, secret, headers.get('x-service-signature'), headers.get('x-service-timestamp'), 300);
}
// snippet-end
