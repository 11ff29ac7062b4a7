// Issue 28's delivery target, run by `npm run test:webhook-load` (WEBHOOK_LOAD=1; about 30 s, so
// not in `npm test`): the built sandbox in a child process takes a steady 3,000 buyer updates a
// second (18,000 updates, paced over 6 s) with one subscription to a node:http receiver in this
// process, with undici pipelining (the default, 16; without it, --webhook-pipelining 1, 64 connections
// one request at a time fell behind here on 2026-11-28: 3,407 of 18,000 refused at the queue bound,
// a figure for docs/webhook-delivery.md, not a behaviour to assert). Every update
// is answered 200, and every one's notification reaches the receiver: none refused past the queue
// bound, none failed, none still pending once the queue has drained. The rate the load generator
// held is printed, not asserted (a figure, for the bench): its paced connections fall behind on a
// busy machine and never catch up, so it sends all 18,000 and may take longer than 6 s.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliToken, ensureBuilt, type RunningCli, startCli, waitFor } from '../cli/support/cli.js';
import { WELL_KNOWN } from '../support/sandbox.js';

/** Updates a second: WEBHOOK_LOAD_RATE, else the target's 3,000. */
const RATE = Number(process.env.WEBHOOK_LOAD_RATE ?? 3_000);
const SECONDS = 6;
const CONNECTIONS = 50;
const BUYER = WELL_KNOWN.buyers.default.id;

describe.runIf(process.env.WEBHOOK_LOAD === '1').each([16])('a steady 3,000 buyer updates a second, webhook pipelining %i', (pipelining) => {
  let sandbox: RunningCli;
  let receiver: Server;
  const eventIds = new Set<string>();
  let notifications = 0;
  beforeAll(async () => {
    await ensureBuilt();
    sandbox = await startCli(['--port', '0', '--log-level', 'warn', '--webhook-pipelining', String(pipelining)]);
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        notifications++;
        eventIds.add((JSON.parse(body) as { id: string }).id);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  }, 120_000);
  afterAll(async () => {
    await sandbox?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('answers every update and delivers every notification: none refused, none failed', async () => {
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const created = await fetch(`${sandbox.url}/_sandbox/records/webhook_subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: hookUrl }),
    });
    expect(created.status).toBe(201);
    const token = await cliToken();
    const result = await autocannon({
      url: `${sandbox.url}/buyers/${BUYER}`,
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'Steady Buyer' }),
      connections: CONNECTIONS,
      overallRate: RATE,
      amount: RATE * SECONDS,
    });
    const answered = result['2xx'];
    const failures = { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, statuses: result.statusCodeStats };
    expect(failures.non2xx + failures.errors + failures.timeouts, JSON.stringify(failures)).toBe(0);
    expect(answered).toBe(RATE * SECONDS);
    const stats = await waitFor(
      async () => {
        const body = (await (await fetch(`${sandbox.url}/_sandbox/webhooks`)).json()) as { pending: number; dropped: number };
        return body.pending === 0 ? body : undefined;
      },
      'the delivery queue to drain',
      30_000,
    );
    expect(stats.dropped).toBe(0);
    const failed = (await (await fetch(`${sandbox.url}/_sandbox/webhooks/deliveries?status=failed&limit=1`)).json()) as { total: number };
    expect(failed.total).toBe(0);
    // One notification per update, each arrived once at least.
    expect(eventIds.size).toBe(answered);
    console.info(
      `webhook pipelining ${pipelining}: ${answered} updates answered 200 in ${result.duration} s (${Math.round(answered / result.duration)} a second; p99 ${result.latency.p99} ms), ${eventIds.size} notifications arrived (${notifications - eventIds.size} sent again), ${stats.dropped} refused, 0 failed`,
    );
  }, 120_000);
});
