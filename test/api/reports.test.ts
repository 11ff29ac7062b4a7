// POST /reports (creator from the calling key pair, next_execution_at per schedule and time zone)
// and GET /report-executions/{report_execution_id}.
import { describe, expect, it } from 'vitest';
import { tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import {
  expectBadRequest,
  expectJson,
  expectNotFound,
  expectUnprocessable,
  FROZEN_AT,
  freezeClock,
  MERCHANT_HEADER,
  store,
  UUID,
  useFrozenSandbox,
} from './support.js';

const SPEC = { model: 'transactions', params: { filters: { ingested_at: { start: '2026-11-01T00:00:00Z', end: '2026-11-22T00:00:00Z' } } } };
const body = (over: Record<string, unknown> = {}) => ({ name: 'Daily sales', schedule: 'daily', schedule_enabled: true, spec: SPEC, ...over });

describe('reports', () => {
  const sb = useFrozenSandbox();
  const create = (payload: unknown, auth = sb.auth) =>
    sb.http
      .post('/reports')
      .set('authorization', auth)
      .send(payload as object);
  const nextAt = async (schedule: string, schedule_timezone?: string) => {
    const res = await create(body({ schedule, ...(schedule_timezone ? { schedule_timezone } : {}) }));
    expectJson(res, 201);
    return res.body.next_execution_at;
  };

  describe('POST /reports', () => {
    it('answers 201 with every field, the caller as creator, and stores the report', async () => {
      const res = await create(body({ description: 'All sales of the day' }));
      expectJson(res, 201);
      expect(res.body).toEqual({
        type: 'report',
        id: res.body.id,
        merchant_account_id: 'default',
        name: 'Daily sales',
        description: 'All sales of the day',
        created_at: FROZEN_AT,
        updated_at: FROZEN_AT,
        schedule: 'daily',
        schedule_enabled: true,
        schedule_timezone: 'Etc/UTC',
        spec: SPEC,
        creator_id: WELL_KNOWN.keyPairs.admin.id,
        creator_display_name: 'Admin key',
        creator_type: 'private_key',
        next_execution_at: '2026-11-23T00:00:00.000Z',
        latest_execution: null,
      });
      expect(res.body.id).toMatch(UUID);
      expect(store(sb).reports.get(res.body.id)).toMatchObject({
        name: 'Daily sales',
        merchant_account_id: 'default',
        next_execution_at: '2026-11-23T00:00:00.000Z',
      });
    });

    it('records the key pair that called, and the merchant account of the header', async () => {
      const res = await create(body({ description: null }), `Bearer ${await tokenFor('rsa')}`).set(MERCHANT_HEADER, 'merchant-two');
      expectJson(res, 201);
      expect(res.body).toMatchObject({
        merchant_account_id: 'merchant-two',
        description: null,
        creator_id: WELL_KNOWN.keyPairs.rsa.id,
        creator_display_name: 'RSA key',
        creator_type: 'private_key',
      });
    });

    it('computes next_execution_at in UTC: once now, daily next midnight, weekly next Monday, monthly the 1st', async () => {
      // FROZEN_AT is Sunday 2026-11-22 10:00 UTC.
      expect(await nextAt('once')).toBe(FROZEN_AT);
      expect(await nextAt('daily')).toBe('2026-11-23T00:00:00.000Z');
      expect(await nextAt('weekly')).toBe('2026-11-23T00:00:00.000Z');
      expect(await nextAt('monthly')).toBe('2026-12-01T00:00:00.000Z');
      freezeClock(sb, '2026-11-23T00:00:00.000Z'); // a Monday at midnight: strictly after now
      expect(await nextAt('daily')).toBe('2026-11-24T00:00:00.000Z');
      expect(await nextAt('weekly')).toBe('2026-11-30T00:00:00.000Z');
      freezeClock(sb, '2026-12-15T10:00:00.000Z');
      expect(await nextAt('monthly')).toBe('2027-01-01T00:00:00.000Z');
    });

    it('computes it in the report time zone: America/New_York', async () => {
      expect(await nextAt('once', 'America/New_York')).toBe(FROZEN_AT);
      expect(await nextAt('daily', 'America/New_York')).toBe('2026-11-23T05:00:00.000Z');
      expect(await nextAt('weekly', 'America/New_York')).toBe('2026-11-23T05:00:00.000Z');
      expect(await nextAt('monthly', 'America/New_York')).toBe('2026-12-01T05:00:00.000Z');
      freezeClock(sb, '2027-03-13T12:00:00.000Z'); // the day before summer time starts
      expect(await nextAt('daily', 'America/New_York')).toBe('2027-03-14T05:00:00.000Z');
      freezeClock(sb, '2027-03-14T12:00:00.000Z');
      expect(await nextAt('daily', 'America/New_York')).toBe('2027-03-15T04:00:00.000Z');
      expect(await nextAt('monthly', 'America/New_York')).toBe('2027-04-01T04:00:00.000Z');
    });

    it('computes it in the report time zone: Asia/Kolkata, where the local date runs ahead', async () => {
      const res = await create(body({ schedule: 'daily', schedule_timezone: 'Asia/Kolkata' }));
      expect(res.body).toMatchObject({ schedule_timezone: 'Asia/Kolkata', next_execution_at: '2026-11-22T18:30:00.000Z' });
      expect(await nextAt('weekly', 'Asia/Kolkata')).toBe('2026-11-22T18:30:00.000Z');
      expect(await nextAt('monthly', 'Asia/Kolkata')).toBe('2026-11-30T18:30:00.000Z');
      freezeClock(sb, '2026-11-22T20:00:00.000Z'); // Monday 01:30 in Kolkata, Sunday in UTC
      expect(await nextAt('daily', 'Asia/Kolkata')).toBe('2026-11-23T18:30:00.000Z');
      expect(await nextAt('weekly', 'Asia/Kolkata')).toBe('2026-11-29T18:30:00.000Z');
    });

    it('starts the day at the end of the gap where clocks jump forward at midnight', async () => {
      freezeClock(sb, '2026-03-07T12:00:00.000Z'); // Havana skips 2026-03-08 00:00-01:00 (-05 -> -04)
      expect(await nextAt('daily', 'America/Havana')).toBe('2026-03-08T05:00:00.000Z');
      freezeClock(sb, '2026-09-05T12:00:00.000Z'); // Santiago skips 2026-09-06 00:00-01:00 (-04 -> -03)
      expect(await nextAt('daily', 'America/Santiago')).toBe('2026-09-06T04:00:00.000Z');
      freezeClock(sb, '2026-03-28T12:00:00.000Z'); // Beirut skips 2026-03-29 00:00-01:00 (+02 -> +03)
      expect(await nextAt('daily', 'Asia/Beirut')).toBe('2026-03-28T22:00:00.000Z');
      freezeClock(sb, '2026-04-04T12:00:00.000Z'); // Santiago turns back at midnight: 2026-04-05 starts at 00:00 -04
      expect(await nextAt('daily', 'America/Santiago')).toBe('2026-04-05T04:00:00.000Z');
    });

    it('has no next execution when the schedule is disabled', async () => {
      for (const schedule of ['once', 'daily', 'weekly', 'monthly']) {
        const res = await create(body({ schedule, schedule_enabled: false, schedule_timezone: 'Europe/Amsterdam' }));
        expectJson(res, 201);
        expect(res.body).toMatchObject({ schedule, schedule_enabled: false, next_execution_at: null, latest_execution: null });
      }
    });

    it('is 422 for a time zone that is not IANA, and stores nothing', async () => {
      const size = store(sb).reports.size;
      for (const tz of ['Mars/Olympus', '+05:00', 'Europe/Atlantis', 'not a zone']) {
        expectUnprocessable(await create(body({ schedule_timezone: tz })), [{ loc: ['body', 'schedule_timezone'], input: tz }]);
      }
      expect(store(sb).reports.size).toBe(size);
    });

    it('accepts name lengths 1 and 100 and descriptions of 1 and 1000, refuses the bounds beyond', async () => {
      expectJson(await create(body({ name: 'n', description: 'd' })), 201);
      expectJson(await create(body({ name: 'n'.repeat(100), description: 'd'.repeat(1000) })), 201);
      expectBadRequest(await create(body({ name: '', description: '' })), [
        { location: 'body', pointer: '/name', type: 'string_too_short' },
        { location: 'body', pointer: '/description', type: 'string_too_short' },
      ]);
      expectBadRequest(await create(body({ name: 'n'.repeat(101), description: 'd'.repeat(1001) })), [
        { location: 'body', pointer: '/name', type: 'string_too_long' },
        { location: 'body', pointer: '/description', type: 'string_too_long' },
      ]);
    });

    it('reports each missing or wrong field', async () => {
      expectBadRequest(
        await create({}),
        ['name', 'schedule', 'schedule_enabled', 'spec'].map((f) => ({ location: 'body', pointer: `/${f}`, type: 'missing' })),
      );
      expectBadRequest(await create(body({ schedule: 'hourly', schedule_enabled: 'yes', schedule_timezone: 5, spec: { model: 'payouts' } })), [
        { location: 'body', pointer: '/schedule', type: 'enum' },
        { location: 'body', pointer: '/schedule_enabled', type: 'bool_type' },
        { location: 'body', pointer: '/schedule_timezone', type: 'string_type' },
        { location: 'body', pointer: '/spec/model', type: 'enum' },
        { location: 'body', pointer: '/spec/params', type: 'missing' },
      ]);
      expectBadRequest(await create(body({ spec: { model: 'transactions', params: [] } })), [{ location: 'body', pointer: '/spec/params', type: 'dict_type' }]);
      expectBadRequest(await create(body({ name: 42 })), [{ location: 'body', pointer: '/name', type: 'string_type' }]);
    });
  });

  describe('GET /report-executions/{report_execution_id}', () => {
    const get = (id: string, merchant?: string) => {
      const req = sb.http.get(`/report-executions/${id}`).set('authorization', sb.auth);
      return merchant ? req.set(MERCHANT_HEADER, merchant) : req;
    };

    it('returns each well-known execution with its report summary', async () => {
      for (const execution of Object.values(WELL_KNOWN.reportExecutions)) {
        const res = await get(execution.id);
        expectJson(res, 200);
        const rec = store(sb).report_executions.get(execution.id)!;
        expect(res.body).toEqual({
          type: 'report-execution',
          id: execution.id,
          created_at: rec.created_at,
          updated_at: rec.updated_at,
          status: execution.status,
          context: { reference_timestamp: rec.context.reference_timestamp, reference_timezone: 'Europe/Amsterdam' },
          report: {
            type: 'report',
            id: WELL_KNOWN.reports.daily.id,
            merchant_account_id: 'default',
            name: 'Daily transactions',
            creator_id: WELL_KNOWN.keyPairs.admin.id,
            creator_display_name: 'Admin key',
            creator_type: 'private_key',
          },
        });
      }
    });

    it('is 404 for an unknown execution or one of another merchant account, 400 for a bad id', async () => {
      expectNotFound(await get('f6000000-0000-4000-8000-0000000000ff'));
      expectNotFound(await get(WELL_KNOWN.reportExecutions.pending.id, 'merchant-two'));
      expectBadRequest(await get('12345'), [{ location: 'path', pointer: '/report_execution_id', type: 'uuid_parsing' }]);
    });
  });
});
