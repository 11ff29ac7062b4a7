// Seeded report executions hold the status the fixtures gave them for a day of sandbox time after
// the namespace starts (or is reset), then move on like any execution: polling code tested against
// them neither waits forever nor sees them change during an ordinary run. Only the Date of this
// test process is faked (vi.setSystemTime), so the namespaces start at known instants.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';

const DAY = 86_400_000;
const START = Date.parse('2026-11-20T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const WK = WELL_KNOWN.reportExecutions;

describe('seeded report executions', () => {
  let sb: TestSandbox;
  let seeded: Record<string, any>;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(START));
    sb = await startTestSandbox();
    seeded = Object.fromEntries(Object.values(WK).map((e) => [e.id, structuredClone(sb.deps.namespaces.get().store.collections.report_executions.get(e.id))]));
  });
  afterAll(() => {
    sb.server.close();
    vi.useRealTimers();
  });

  // Tokens are checked against the wall clock, which this test moves by days: a fresh one per call.
  const get = async (id: string, ns = 'default') => sb.http.get(`/ns/${ns}/report-executions/${id}`).set('authorization', `Bearer ${await tokenFor('admin')}`);
  const advance = (ms: number, ns = 'default') => sb.http.post(`/ns/${ns}/_sandbox/clock/advance`).send({ ms }).expect(200);
  const statuses = async (ns = 'default') => {
    const out: Record<string, [string, string]> = {};
    for (const [name, e] of Object.entries(WK)) {
      const res = await get(e.id, ns);
      expect(res.status).toBe(200);
      out[name] = [res.body.status, res.body.updated_at];
    }
    return out;
  };
  const asSeeded = () => Object.fromEntries(Object.entries(WK).map(([name, e]) => [name, [e.status, seeded[e.id].updated_at]]));

  it('are seeded with a lifecycle that holds their status, except the final ones', () => {
    expect(seeded[WK.pending.id].lifecycle).toEqual({
      path: ['pending', 'dispatched', 'processing', 'succeeded'],
      durations_ms: [DAY, 5_000, 20_000],
      started_at: seeded[WK.pending.id].updated_at,
      first_duration_from: 'namespace_start',
    });
    expect(seeded[WK.dispatched.id].lifecycle).toMatchObject({ path: ['dispatched', 'processing', 'succeeded'], durations_ms: [DAY, 20_000] });
    expect(seeded[WK.processing.id].lifecycle).toMatchObject({ path: ['processing', 'succeeded'], durations_ms: [DAY] });
    expect(seeded[WK.succeeded.id].lifecycle).toBeUndefined();
    expect(seeded[WK.failed.id].lifecycle).toBeUndefined();
  });

  it('hold their seeded status and updated_at until a day after the start, then move on along the default path', async () => {
    expect(await statuses()).toEqual(asSeeded());
    await advance(DAY - 1);
    expect(await statuses()).toEqual(asSeeded());
    const before = await get(WK.pending.id);
    expect(before.body).toEqual({ ...before.body, status: 'pending', updated_at: seeded[WK.pending.id].updated_at });

    await advance(1); // exactly a day after the start
    const moved = iso(START + DAY);
    expect(await statuses()).toEqual({
      pending: ['dispatched', moved],
      dispatched: ['processing', moved],
      processing: ['succeeded', moved],
      succeeded: ['succeeded', seeded[WK.succeeded.id].updated_at],
      failed: ['failed', seeded[WK.failed.id].updated_at],
    });
    // Every other field as seeded.
    const pending = await get(WK.pending.id);
    expect(pending.body).toMatchObject({ id: WK.pending.id, created_at: seeded[WK.pending.id].created_at, context: seeded[WK.pending.id].context });

    await advance(5_000);
    expect((await get(WK.pending.id)).body).toMatchObject({ status: 'processing', updated_at: iso(START + DAY + 5_000) });
    await advance(20_000);
    expect((await statuses()).dispatched).toEqual(['succeeded', iso(START + DAY + 20_000)]);
    await advance(5_000);
    expect(await statuses()).toEqual({
      pending: ['succeeded', iso(START + DAY + 25_000)],
      dispatched: ['succeeded', iso(START + DAY + 20_000)],
      processing: ['succeeded', moved],
      succeeded: ['succeeded', seeded[WK.succeeded.id].updated_at],
      failed: ['failed', seeded[WK.failed.id].updated_at],
    });
    // Once out of its seeded status, an execution stores a plain plan: no later start moves it.
    const stored = await sb.http.get(`/_sandbox/records/report_executions/${WK.pending.id}?shape=stored`);
    expect(stored.body.lifecycle).toEqual({
      path: ['pending', 'dispatched', 'processing', 'succeeded'],
      durations_ms: [START + DAY - Date.parse(seeded[WK.pending.id].updated_at), 5_000, 20_000],
      started_at: seeded[WK.pending.id].updated_at,
    });
    // Every seeded execution that was not final has finished.
    const all = (await sb.http.get('/_sandbox/records/report_executions?limit=1000')).body.items;
    expect(all.length).toBeGreaterThan(5);
    for (const e of all) expect(['succeeded', 'failed']).toContain(e.status);
  });

  it('moving the clock back brings the seeded status back, as it does for any execution', async () => {
    await sb.http
      .put('/_sandbox/clock')
      .send({ now: iso(START + DAY - 1) })
      .expect(200);
    expect(await statuses()).toEqual(asSeeded());
    await sb.http
      .put('/_sandbox/clock')
      .send({ now: iso(START + DAY + 30_000) })
      .expect(200);
    expect((await statuses()).pending).toEqual(['succeeded', iso(START + DAY + 25_000)]);
  });

  it('hold again for a day after a reset, from the reset', async () => {
    const resetAt = START + 3 * DAY;
    vi.setSystemTime(new Date(resetAt));
    await sb.http.post('/_sandbox/reset').expect(200);
    expect(await statuses()).toEqual(asSeeded());
    expect((await sb.http.get(`/_sandbox/records/report_executions/${WK.pending.id}?shape=stored`)).body).toEqual(seeded[WK.pending.id]);
    await advance(DAY - 1);
    expect(await statuses()).toEqual(asSeeded());
    await advance(1);
    expect((await statuses()).pending).toEqual(['dispatched', iso(resetAt + DAY)]);
  });

  it('hold for a day from when a namespace is created, each namespace on its own clock', async () => {
    const createdAt = START + 10 * DAY;
    vi.setSystemTime(new Date(createdAt));
    expect(await statuses('seeded-late')).toEqual(asSeeded());
    await advance(DAY + 1, 'seeded-late');
    expect((await statuses('seeded-late')).processing).toEqual(['succeeded', iso(createdAt + DAY)]);
    // Another namespace created at the same moment still holds.
    expect(await statuses('seeded-other')).toEqual(asSeeded());
  });

  it('hold while the clock is set before the fixtures, a week on included', async () => {
    vi.setSystemTime(new Date(START + 20 * DAY));
    expect((await get(WK.pending.id, 'seeded-past')).status).toBe(200);
    await sb.http.put('/ns/seeded-past/_sandbox/clock').send({ now: '2026-03-10T12:00:00.000Z', frozen: true }).expect(200);
    await advance(7 * DAY, 'seeded-past');
    expect(await statuses('seeded-past')).toEqual(asSeeded());
  });
});
