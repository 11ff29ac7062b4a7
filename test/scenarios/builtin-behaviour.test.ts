// Built-in scenarios that shape how (or whether) an answer arrives: slow, dropped-connection, flaky.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startTestSandbox, type TestSandbox, tokenFor, useTestSandbox } from '../support/sandbox.js';
import { tally } from './helpers.js';

describe('slow and dropped-connection', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  it('slow answers normally, no sooner than 1.5 s later', async () => {
    const normal = await sb.http.get('/gift-cards?limit=3').set('authorization', sb.auth);
    const started = performance.now();
    const res = await sb.http.get('/gift-cards?limit=3').set('authorization', sb.auth).set('x-sandbox-scenario', 'slow');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1490); // timers never fire early by more than a ms
    expect(res.status).toBe(200);
    expect(res.headers['x-sandbox-scenario']).toBe('slow');
    expect(res.body).toEqual(normal.body);
  });

  it('dropped-connection closes the socket without an answer', async () => {
    const error = await sb.http
      .get('/gift-cards')
      .set('authorization', sb.auth)
      .set('x-sandbox-scenario', 'dropped-connection')
      .then(
        () => null,
        (err: Error & { code?: string }) => err,
      );
    expect(error).not.toBeNull();
    expect(error!.message).toMatch(/socket hang up|ECONNRESET/);
    const journal = await sb.http.get('/_sandbox/requests');
    expect(journal.body.items[0]).toMatchObject({ path: '/gift-cards', status: 444, scenario: 'dropped-connection' });
    // The server is still fine afterwards.
    const after = await sb.http.get('/gift-cards').set('authorization', sb.auth);
    expect(after.status).toBe(200);
  });

  it('dropped-connection without a socket (app.request) is a clear 500', async () => {
    const app = createApp(sb.deps);
    const res = await app.request('/gift-cards', {
      headers: { authorization: `Bearer ${await tokenFor('admin')}`, 'x-sandbox-scenario': 'dropped-connection' },
    });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.code).toBe('server_error');
    expect(body.message).toBe(
      'Scenario dropped-connection drops the connection, which needs a real HTTP server; this request has no socket (app.request() or fetch without @hono/node-server).',
    );
  });
});

describe('flaky', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  async function run(count: number, merchant = 'default'): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      const res = await sb.http
        .get('/gift-cards?limit=1')
        .set('authorization', sb.auth)
        .set('x-service-merchant-account-id', merchant)
        .set('x-sandbox-scenario', 'flaky');
      if (res.status === 500) expect(res.body.code).toBe('server_error');
      else expect(res.body.items).toHaveLength(1);
      statuses.push(res.status);
    }
    return statuses;
  }

  it('fails about 30% of requests with 500 and replays the same sequence after a counter reset', async () => {
    const first = await run(100);
    const counts = tally(first);
    expect([...counts.keys()].sort()).toEqual([200, 500]);
    expect(counts.get(500)).toBeGreaterThanOrEqual(15);
    expect(counts.get(500)).toBeLessThanOrEqual(45);
    const cleared = await sb.http.delete('/_sandbox/scenarios/active');
    expect(cleared.status).toBe(204);
    expect(await run(100)).toEqual(first);
  });

  it('keeps one sequence per merchant account, each starting from the seed', async () => {
    await sb.http.delete('/_sandbox/scenarios/active');
    const defaultFirst = await run(20, 'default');
    const twoFirst = await run(20, 'merchant-two');
    expect(twoFirst).toEqual(defaultFirst);
    const defaultNext = await run(20, 'default');
    expect(defaultNext).not.toEqual(defaultFirst); // default continues its sequence, it does not restart
    const counters = await sb.http.get('/_sandbox/scenarios/active');
    expect(counters.body.counters).toEqual([
      { merchant_account_id: 'default', scenario: 'flaky', step: 0, requests: 40 },
      { merchant_account_id: 'merchant-two', scenario: 'flaky', step: 0, requests: 20 },
    ]);
  });

  it('another seed gives another sequence', async () => {
    const other = await startTestSandbox({ seed: 77 });
    try {
      await sb.http.delete('/_sandbox/scenarios/active');
      const mine = await run(40);
      const theirs: number[] = [];
      for (let i = 0; i < 40; i++) {
        theirs.push((await other.http.get('/gift-cards?limit=1').set('authorization', other.auth).set('x-sandbox-scenario', 'flaky')).status);
      }
      expect(theirs).not.toEqual(mine);
    } finally {
      other.server.close();
    }
  });
});
