// `payments-sandbox --forward-webhooks-to URL` and `payments-sandbox trigger NAME`, as child
// processes: like stripe listen and stripe trigger, every event of every namespace reaches the URL,
// signed with the secret the banner shows, which no log line ever holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../support/sandbox.js';
import { Receiver, verifyNotification } from '../webhooks/receiver.js';
import { ensureBuilt, type RunningCli, runCli, startCli } from './support/cli.js';

beforeAll(ensureBuilt, 180_000);

describe('payments-sandbox --forward-webhooks-to and trigger', () => {
  let receiver: Receiver;
  let cli: RunningCli;
  let secret: string;
  beforeAll(async () => {
    receiver = await Receiver.start();
    cli = await startCli(['--port', '0', '--log-level', 'debug', '--forward-webhooks-to', receiver.url]);
    const match = /webhooks\s+every event of every namespace is also sent to (\S+), signed with secret ([0-9a-f]{64})/.exec(cli.stderr());
    expect(match?.[1]).toBe(receiver.url);
    secret = match?.[2] as string;
    receiver.trust(secret);
  }, 60_000);
  afterAll(async () => {
    await cli?.stop();
    await receiver.close();
  });

  it('emits a named event for the record given, delivered to the forward URL and signed with the banner secret', async () => {
    const transaction = WELL_KNOWN.transactions.default.id;
    const result = await runCli(['trigger', 'transaction.captured', '--target', transaction, '--url', cli.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^transaction\\.captured [0-9a-f-]{36} emitted in merchant account default: target transaction ${transaction}\\n1 delivery queued:\\n`),
    );
    const [notification] = await receiver.waitFor(1, 'transaction.captured');
    expect(notification.event.target.id).toBe(transaction);
    expect(verifyNotification(secret, notification.body, notification.headers)).toBe(true);
    const overview = await (await fetch(`${cli.url}/_sandbox/webhooks`)).json();
    expect(overview.forward).toMatchObject({ url: receiver.url, secret });
  });

  it('reaches every namespace and merchant account', async () => {
    const result = await runCli(['trigger', 'buyer.updated', '--url', cli.url, '--namespace', 'cli-ns', '--merchant-account', 'merchant-two']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('emitted in merchant account merchant-two of namespace cli-ns: target buyer ');
    const [notification] = await receiver.waitFor(1, 'buyer.updated');
    expect(notification.event.merchant_account_id).toBe('merchant-two');
    expect(verifyNotification(secret, notification.body, notification.headers)).toBe(true);
  });

  it('never writes the secret in a log line, even at debug level', () => {
    expect(cli.stdout()).toContain('"event":"webhook-attempt"');
    expect(cli.stdout()).not.toContain(secret);
  });

  it('fails with the sandbox message for an unknown event (exit 1), and on wrong usage (exit 2)', async () => {
    const unknown = await runCli(['trigger', 'buyer.teleported', '--url', cli.url]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^payments-sandbox: the sandbox refused the event \(400\): 'buyer\.teleported' is not an event the sandbox knows .*events of buyer: buyer\.created, buyer\.deleted, buyer\.updated/,
    );
    const missing = await runCli(['trigger', 'buyer.updated', '--target', '00000000-0000-4000-8000-00000000dead', '--url', cli.url]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('(404)');
    const noName = await runCli(['trigger', '--url', cli.url]);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('trigger needs an event name');
    const help = await runCli(['trigger', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: payments-sandbox trigger NAME \[--target ID\]/);
  });

  it('says so when no sandbox answers at the URL', async () => {
    const closed = await Receiver.start();
    const url = new URL(closed.url).origin;
    await closed.close();
    const result = await runCli(['trigger', 'buyer.updated', '--url', url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach the sandbox at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });

  it('refuses a forward URL that is not http or https (exit 2)', async () => {
    const result = await runCli(['--port', '0', '--forward-webhooks-to', 'ftp://files.example/hooks']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--forward-webhooks-to must be an http or https URL');
  });
});
