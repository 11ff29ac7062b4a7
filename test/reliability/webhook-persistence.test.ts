// Pending webhook deliveries are records: with --data-file they survive a kill -9, and the sandbox
// started again on the same file sends them when they fall due, with the same event id and body.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/support/cli.js';
import { tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { eventually, Receiver, verifyNotification } from '../webhooks/receiver.js';
import { ROOT } from './support.js';

const CHILD = join(ROOT, 'test/reliability/child-server.mjs');

function startChild(file: string): Promise<{ proc: ChildProcess; url: string; exited: Promise<unknown> }> {
  const proc = spawn(process.execPath, [CHILD, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    proc.stdout!.once('data', (d) => resolve({ proc, url: String(d).trim().split('\n')[0], exited }));
    void exited.then(() => reject(new Error(`child exited before listening: ${stderr}`)));
  });
}

describe('pending deliveries and kill -9', () => {
  let dir: string;
  let receiver: Receiver;
  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'sandbox-webhooks-'));
    receiver = await Receiver.start();
  }, 180_000);
  afterAll(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a pending retry through a kill -9 and sends it after the restart', async () => {
    const file = join(dir, 'state.json');
    const auth = { authorization: `Bearer ${await tokenFor()}`, 'content-type': 'application/json' };
    receiver.answers = [{ status: 500, body: 'down for now' }, { status: 200 }];
    let child = await startChild(file);
    try {
      const subscription = await (
        await fetch(`${child.url}/_sandbox/records/webhook_subscriptions`, { method: 'POST', headers: auth, body: JSON.stringify({ url: receiver.url }) })
      ).json();
      receiver.trust(subscription.secret);
      const put = await fetch(`${child.url}/buyers/${WELL_KNOWN.buyers.default.id}`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ display_name: 'Survives A Crash' }),
      });
      expect(put.status).toBe(200);
      const [first] = await receiver.waitFor(1, 'buyer.updated');
      const pending = await eventually(
        async () => (await (await fetch(`${child.url}/_sandbox/webhooks/deliveries?event_name=buyer.updated`)).json()).items[0],
        (d) => d?.attempts.length === 1,
      );
      expect(pending).toMatchObject({ status: 'pending', error: 'answered 500: not a 2xx' });
      // Wait until the change log holds the failed attempt, then kill without a chance to flush.
      await eventually(
        async () => readFileSync(`${file}.log`, 'utf8'),
        (log) => log.split('\n').some((line) => line.includes(pending.id) && line.includes('"number":1')),
      );
      child.proc.kill('SIGKILL');
      await child.exited;

      child = await startChild(file);
      const restored = (await (await fetch(`${child.url}/_sandbox/webhooks/deliveries/${pending.id}`)).json()) as { status: string; next_attempt_at: string };
      expect(restored).toMatchObject({ status: 'pending', next_attempt_at: pending.next_attempt_at });
      // The retry is due 1 min after the first attempt; the new process's clock gets there.
      const advance = await fetch(`${child.url}/_sandbox/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ duration: '1m' }),
      });
      expect(advance.status).toBe(200);
      const [, second] = await receiver.waitFor(2, 'buyer.updated');
      expect(second.body).toBe(first.body);
      expect(verifyNotification(subscription.secret, second.body, second.headers)).toBe(true);
      const done = await eventually(
        async () => (await (await fetch(`${child.url}/_sandbox/webhooks/deliveries/${pending.id}`)).json()) as { status: string; attempts: unknown[] },
        (d) => d.status === 'succeeded',
      );
      expect(done.attempts).toHaveLength(2);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
  });
});
