// `payments-sandbox listen` (issue 37, part 1), as child processes against a sandbox child: it
// subscribes the namespace's inbox (once: a second listen reuses the subscription), prints its
// secret, then a line per notification with its signature checked; with --forward-to it POSTs each
// to a local receiver with the headers it was signed with, which verifies them with the printed
// secret. Wrong usage is exit code 2, an unreachable sandbox exit code 1 with what to do.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../cluster/support.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { Receiver, verifyNotification } from '../webhooks/receiver.js';
import { CLI, type CliResult, childEnv, cliToken, ensureBuilt, ROOT, type RunningCli, runCli, startCli } from './support/cli.js';

/** Runs `listen` as a child; `started` resolves once it says it follows the inbox (it reads from then on). */
function listen(args: string[]): { started: Promise<void>; done: Promise<CliResult> } {
  const proc = spawn('node', [CLI, 'listen', ...args], { cwd: ROOT, env: childEnv() });
  let stdout = '';
  let stderr = '';
  let told: () => void;
  const started = new Promise<void>((resolve) => (told = resolve));
  proc.stdout.on('data', (d) => {
    stdout += d;
    if (stdout.includes('Ctrl-C to stop.')) told();
  });
  proc.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => proc.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr })));
  return { started, done };
}

beforeAll(ensureBuilt, 180_000);

const BUYER = WELL_KNOWN.buyers.default.id;
const INBOX = 'https://inbox.sandbox.invalid/';

describe('payments-sandbox listen', () => {
  let cli: RunningCli;
  let receiver: Receiver;
  beforeAll(async () => {
    cli = await startCli(['--port', '0', '--log-level', 'warn']);
    receiver = await Receiver.start();
  }, 60_000);
  afterAll(async () => {
    await cli?.stop();
    await receiver?.close();
  });

  const inboxSubscriptions = async (ns: string) =>
    (
      (await (await fetch(`${cli.url}/ns/${ns}/_sandbox/records/webhook_subscriptions?limit=1000`)).json()) as {
        items: Array<{ id: string; url: string; active: boolean; secret: string }>;
      }
    ).items.filter((s) => s.url === INBOX && s.active);
  const putBuyer = async (ns: string, name: string) => {
    const res = await fetch(`${cli.url}/ns/${ns}/buyers/${BUYER}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await cliToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: name }),
    });
    expect(res.status).toBe(200);
  };

  it('subscribes the inbox, prints its secret, then a line per notification', async () => {
    const listening = listen(['--url', cli.url, '--namespace', 'listen-a', '--count', '2', '--interval-ms', '50']);
    await listening.started;
    const [subscription] = await inboxSubscriptions('listen-a');
    await putBuyer('listen-a', 'First');
    await putBuyer('listen-a', 'Second');
    const result = await listening.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `Subscribed ${INBOX} for merchant account default of namespace listen-a (subscription ${subscription.id}).`,
      `Signing secret: ${subscription.secret}`,
      'Printing notifications as they arrive; Ctrl-C to stop.',
    ]);
    const line = /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}buyer\.updated {2}[0-9a-f-]{36} {2}-> 200 {2}signature ok {2}attempt 1 {2}delivery [0-9a-f-]{36}$/;
    expect(lines.slice(3)).toEqual([expect.stringMatching(line), expect.stringMatching(line)]);
    expect(lines.length).toBe(5);
  }, 60_000);

  it('forwards each notification to a local URL with its signed headers, reusing the subscription', async () => {
    const first = listen(['--url', cli.url, '--namespace', 'listen-b', '--count', '1', '--interval-ms', '50', '--format', 'json']);
    await first.started;
    await putBuyer('listen-b', 'Json');
    const json = await first.done;
    expect(json.code).toBe(0);
    const printed = JSON.parse(json.stdout.trimEnd().split('\n')[3]);
    expect(printed).toMatchObject({ event_name: 'buyer.updated', status_code: 200, signature: { valid: true, secret: 'current' } });
    expect(JSON.parse(printed.body).target.display_name).toBe('Json');

    const forwarding = listen(['--url', cli.url, '--namespace', 'listen-b', '--count', '1', '--interval-ms', '50', '--forward-to', receiver.url]);
    await forwarding.started;
    const [subscription] = await inboxSubscriptions('listen-b');
    receiver.trust(subscription.secret);
    await putBuyer('listen-b', 'Forwarded');
    const result = await forwarding.done;
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Listening on ${INBOX} for merchant account default of namespace listen-b (subscription ${subscription.id}).`);
    expect(lines[2]).toBe(`Forwarding to ${receiver.url} as they arrive; Ctrl-C to stop.`);
    expect(lines[3]).toMatch(new RegExp(`buyer\\.updated .* signature ok .*  => ${receiver.url.replace(/[.]/g, '\\.')} answered 200$`));
    const [arrived] = await receiver.waitFor(1, 'buyer.updated');
    expect(arrived.event.target.display_name).toBe('Forwarded');
    expect(verifyNotification(subscription.secret, arrived.body, arrived.headers)).toBe(true);
    expect(await inboxSubscriptions('listen-b')).toHaveLength(1);
  }, 60_000);

  it('says what is wrong: usage is exit code 2, an unreachable sandbox exit code 1', async () => {
    const usage = await runCli(['listen', '--forward-to', 'localhost:3000']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe(
      'payments-sandbox: --forward-to must be an http or https URL of your receiver, e.g. http://127.0.0.1:3000/hooks, got "localhost:3000"\n',
    );
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await runCli(['listen', '--url', closed]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(`payments-sandbox: cannot reach the sandbox at ${closed}: ECONNREFUSED (is it running? set --url)\n`);
    const help = await runCli(['listen', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: payments-sandbox listen /);
  }, 60_000);
});
