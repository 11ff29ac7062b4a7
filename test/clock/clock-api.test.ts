// The namespace clock through the control API, and the timestamps the sandbox writes from it.
import { beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody, type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const T0 = '2026-03-10T12:00:00.000Z';

describe('clock control API', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));
  beforeEach(async () => {
    await sb.http.delete('/_sandbox/clock');
  });
  const freeze = (now = T0) => sb.http.put('/_sandbox/clock').send({ now, frozen: true });
  const advance = (body: object) => sb.http.post('/_sandbox/clock/advance').send(body);

  it('runs in real time by default', async () => {
    const res = await sb.http.get('/_sandbox/clock');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['frozen', 'now', 'offset_ms', 'wall_clock']);
    expect(res.body.frozen).toBe(false);
    expect(Math.abs(res.body.offset_ms)).toBeLessThan(1000);
    expect(Math.abs(Date.parse(res.body.now) - Date.parse(res.body.wall_clock))).toBeLessThan(1000);
  });

  it('freezes at an instant and stays there', async () => {
    const res = await freeze();
    expect(res.status).toBe(200);
    expect(res.body.now).toBe(T0);
    expect(res.body.frozen).toBe(true);
    expect(res.body.offset_ms).toBe(Date.parse(T0) - Date.parse(res.body.wall_clock));
    expect((await sb.http.get('/_sandbox/clock')).body.now).toBe(T0);
  });

  it('stamps what the sandbox writes with the clock', async () => {
    await freeze();
    const report = await sb.http
      .post('/reports')
      .set('authorization', sb.auth)
      .send({ name: 'Clocked', schedule: 'daily', schedule_enabled: true, schedule_timezone: 'Etc/UTC', spec: { model: 'transactions', params: {} } });
    expect(report.body.created_at).toBe(T0);
    expect(report.body.updated_at).toBe(T0);
    expect(report.body.next_execution_at).toBe('2026-03-11T00:00:00.000Z');
    await advance({ duration: '1h' });
    const buyer = await sb.http.put(`/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).send({ display_name: 'Clocked buyer' });
    expect(buyer.status).toBe(200);
    expect(buyer.body.updated_at).toBe('2026-03-10T13:00:00.000Z');
  });

  it('advances by ms, seconds or a duration', async () => {
    await freeze();
    expect((await advance({ ms: 1500 })).body.now).toBe('2026-03-10T12:00:01.500Z');
    expect((await advance({ seconds: 2.5 })).body.now).toBe('2026-03-10T12:00:04.000Z');
    const res = await advance({ duration: '1d2h30m' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ now: '2026-03-11T14:30:04.000Z', frozen: true });
    expect((await advance({ duration: '1w' })).body.now).toBe('2026-03-18T14:30:04.000Z');
  });

  it('advances a running clock and keeps it running', async () => {
    const res = await advance({ duration: '2d' });
    expect(res.body.frozen).toBe(false);
    expect(Math.abs(res.body.offset_ms - 2 * 86_400_000)).toBeLessThan(1000);
  });

  it('sets a running clock without freezing it, and unfreezes where it stands', async () => {
    const set = await sb.http.put('/_sandbox/clock').send({ now: T0 });
    expect(set.body.frozen).toBe(false);
    expect(Math.abs(Date.parse(set.body.now) - Date.parse(T0))).toBeLessThan(1000);
    await freeze('2027-01-01T00:00:00.000Z');
    const running = await sb.http.put('/_sandbox/clock').send({ frozen: false });
    expect(running.body.frozen).toBe(false);
    expect(Date.parse(running.body.now) - Date.parse('2027-01-01T00:00:00.000Z')).toBeGreaterThanOrEqual(0);
    expect(Date.parse(running.body.now) - Date.parse('2027-01-01T00:00:00.000Z')).toBeLessThan(1000);
    const frozenHere = await sb.http.put('/_sandbox/clock').send({ frozen: true });
    expect(frozenHere.body.frozen).toBe(true);
    expect((await sb.http.get('/_sandbox/clock')).body.now).toBe(frozenHere.body.now);
  });

  it('DELETE goes back to the wall clock', async () => {
    await freeze();
    const res = await sb.http.delete('/_sandbox/clock');
    expect(res.status).toBe(200);
    expect(res.body.frozen).toBe(false);
    expect(Math.abs(res.body.offset_ms)).toBeLessThan(1000);
  });

  it('refuses bad requests and leaves the clock as it was', async () => {
    await freeze();
    const bad: Array<[string, 'put' | 'post', object]> = [
      ['/_sandbox/clock/advance', 'post', {}],
      ['/_sandbox/clock/advance', 'post', { ms: 1, seconds: 1 }],
      ['/_sandbox/clock/advance', 'post', { ms: -1 }],
      ['/_sandbox/clock/advance', 'post', { ms: 'soon' }],
      ['/_sandbox/clock/advance', 'post', { duration: '1 day' }],
      ['/_sandbox/clock/advance', 'post', { minutes: 5 }],
      ['/_sandbox/clock/advance', 'post', { duration: '11000d' }],
      ['/_sandbox/clock', 'put', {}],
      ['/_sandbox/clock', 'put', { now: 'yesterday' }],
      ['/_sandbox/clock', 'put', { frozen: 'yes' }],
    ];
    for (const [path, method, body] of bad) {
      const res = await sb.http[method](path).send(body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expectErrorBody(res.body, 400, 'bad_request');
      expect(res.body.message.length).toBeGreaterThan(10);
    }
    const tooFar = await advance({ duration: '11000d' });
    expect(tooFar.body.message).toBe('Advance by ms, seconds or a duration such as 1d, 2h30m, 90s, of at most ten years.');
    expect((await sb.http.get('/_sandbox/clock')).body).toMatchObject({ now: T0, frozen: true });
  });

  it('keeps one clock per namespace; a namespace reset clears it', async () => {
    const inA = await sb.http.put('/_sandbox/clock').set('x-sandbox-namespace', 'clock-a').send({ now: T0, frozen: true });
    expect(inA.body.now).toBe(T0);
    expect((await sb.http.get('/_sandbox/clock')).body.frozen).toBe(false);
    const report = await sb.http
      .post('/reports')
      .set('authorization', sb.auth)
      .set('x-sandbox-namespace', 'clock-a')
      .send({ name: 'In A', schedule: 'weekly', schedule_enabled: false, spec: { model: 'transactions', params: {} } });
    expect(report.body.created_at).toBe(T0);
    expect((await sb.http.post('/_sandbox/reset').set('x-sandbox-namespace', 'clock-a').send({})).status).toBeLessThan(300);
    const after = await sb.http.get('/_sandbox/clock').set('x-sandbox-namespace', 'clock-a');
    expect(after.body.frozen).toBe(false);
    expect(Math.abs(after.body.offset_ms)).toBeLessThan(1000);
  });
});
