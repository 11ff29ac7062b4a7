import { describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../support/sandbox.js';

// rate-limited: the first two requests per merchant account answer 429, then requests pass
// (on the operations that declare 429, such as listGiftCards).
describe('scenario counters per namespace', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  const call = (ns: string) => sb.http.get(`/ns/${ns}/gift-cards`).set('authorization', sb.auth).set('x-sandbox-scenario', 'rate-limited');

  it('counts each namespace on its own, also when used concurrently', async () => {
    const [a1, b1] = await Promise.all([call('sc-a'), call('sc-b')]);
    expect([a1.status, b1.status]).toEqual([429, 429]);
    expect((await call('sc-a')).status).toBe(429);
    expect((await call('sc-a')).status).toBe(200);
    expect((await call('sc-b')).status).toBe(429);
    expect((await call('sc-b')).status).toBe(200);
    const journal = await sb.http.get('/ns/sc-a/_sandbox/requests');
    expect(journal.body.items.map((e: { status: number; scenario: string | null }) => e.status)).toEqual([200, 429, 429]);
    expect(journal.body.items[2].scenario).toBe('rate-limited');
  });

  it('restarts the counters of a namespace on its reset only', async () => {
    await sb.http.post('/ns/sc-a/_sandbox/reset').expect(200);
    expect((await call('sc-a')).status).toBe(429);
    expect((await call('sc-b')).status).toBe(200);
  });
});
