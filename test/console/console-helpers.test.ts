// The console's pure helpers: the request as curl, the records search, what falls due next, the
// scenario definitions the Scenarios page's form writes (and that the control API takes them).
import { describe, expect, it } from 'vitest';
import { COMMON_CASES, commonDefinition, ordinal, parseCalls } from '../../src/console/client/scenario-definition.js';
import { curlCommand, shellQuote } from '../../src/console/curl.js';
import { dueNext } from '../../src/console/pages/due.js';
import { recordMatches } from '../../src/console/pages/records.js';
import type { JournalEntry } from '../../src/journal/entry.js';

const entry = (overrides: Partial<JournalEntry>): JournalEntry => ({
  id: 1,
  timestamp: '2026-11-22T10:00:00.000Z',
  namespace: 'default',
  method: 'GET',
  path: '/gift-cards',
  url: 'http://127.0.0.1:4010/gift-cards?limit=5',
  query: { limit: '5' },
  headers: {},
  body: null,
  status: 200,
  response_headers: {},
  response_body: null,
  duration_ms: 1,
  operation_id: 'listGiftCards',
  merchant_account_id: 'default',
  scenario: null,
  request_id: 'r1',
  ...overrides,
});

describe('copy as curl', () => {
  it('quotes for a POSIX shell', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('$HOME "x"')).toBe(`'$HOME "x"'`);
  });

  it('repeats what the client sent, without what curl or the connection sets', () => {
    const command = curlCommand(
      entry({
        method: 'PUT',
        url: "http://127.0.0.1:4010/ns/ci-7/buyers/b1?note=it's",
        headers: {
          host: '127.0.0.1:4010',
          'content-length': '24',
          connection: 'keep-alive',
          'content-type': 'application/json',
          'x-service-merchant-account-id': 'merchant-two',
        },
        body: { display_name: "O'Brien" },
      }),
    );
    expect(command).toBe(
      [
        `curl -X PUT 'http://127.0.0.1:4010/ns/ci-7/buyers/b1?note=it'\\''s' \\`,
        `  -H 'content-type: application/json' \\`,
        `  -H 'x-service-merchant-account-id: merchant-two' \\`,
        `  --data-raw '{"display_name":"O'\\''Brien"}'`,
      ].join('\n'),
    );
  });

  it('puts shell variables, with how to set them, where the journal redacted a secret', () => {
    const command = curlCommand(
      entry({ headers: { authorization: '[redacted]', 'x-sandbox-admin-token': '[redacted]', 'x-api-secret': '[redacted]', accept: 'application/json' } }),
    );
    expect(command.split('\n')).toEqual([
      '# authorization was redacted by the journal: export TOKEN=$(npx payments-sandbox token)',
      '# x-sandbox-admin-token was redacted by the journal: export SANDBOX_ADMIN_TOKEN=<the --admin-token value>',
      '# x-api-secret was redacted by the journal: set X_API_SECRET',
      "curl 'http://127.0.0.1:4010/gift-cards?limit=5' \\",
      '  -H "authorization: Bearer $TOKEN" \\',
      '  -H "x-sandbox-admin-token: $SANDBOX_ADMIN_TOKEN" \\',
      '  -H "x-api-secret: $X_API_SECRET" \\',
      "  -H 'accept: application/json'",
    ]);
  });

  it('says when a body was cut or a private key redacted', () => {
    const cut = curlCommand(entry({ method: 'POST', body: `${'x'.repeat(10)}... [truncated: 70000 characters]` }));
    expect(cut.split('\n')[0]).toBe('# the journal kept only the beginning of this body');
    const key = curlCommand(entry({ method: 'POST', body: { public_key: '[redacted]' } }));
    expect(key.split('\n')[0]).toBe('# a private key in the body was redacted by the journal');
  });
});

describe('copy as curl of a request a scenario answered', () => {
  it('names the scenario when it was activated, not named by the client, and says when a replay may differ', () => {
    const command = curlCommand(entry({ scenario: 'server-error', status: 500 }));
    expect(command.split('\n')).toEqual([
      '# x-sandbox-scenario added: the scenario server-error answered this request (activated, not named by the client) with 500; a scenario that counts calls (calls, after, times) answers a replay as its next call, which may run normally',
      "curl 'http://127.0.0.1:4010/gift-cards?limit=5' \\",
      "  -H 'x-sandbox-scenario: server-error'",
    ]);
    // Named by the client: repeated as sent, nothing added.
    const named = curlCommand(entry({ scenario: 'server-error', status: 500, headers: { 'x-sandbox-scenario': 'server-error' } }));
    expect(named).toBe("curl 'http://127.0.0.1:4010/gift-cards?limit=5' \\\n  -H 'x-sandbox-scenario: server-error'");
  });
});

describe('records search', () => {
  const buyer = {
    id: 'b0000000-0000-4000-8000-000000000001',
    display_name: 'Jane Doe',
    merchant_account_id: 'default',
    billing_details: { city: 'Paris' },
    active: true,
  };

  it('finds text in the id and in every plain field, any case', () => {
    expect(recordMatches(buyer, '')).toBe(true);
    expect(recordMatches(buyer, 'b0000000')).toBe(true);
    expect(recordMatches(buyer, 'JANE')).toBe(true);
    expect(recordMatches(buyer, 'true')).toBe(true);
    expect(recordMatches(buyer, 'paris')).toBe(false); // nested objects are not searched
    expect(recordMatches(buyer, 'nobody')).toBe(false);
  });

  it('looks in one field with field:text', () => {
    expect(recordMatches(buyer, 'display_name:doe')).toBe(true);
    expect(recordMatches(buyer, 'merchant_account_id:jane')).toBe(false);
    expect(recordMatches(buyer, 'no_such_field:x')).toBe(false);
  });
});

describe('due next', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  const reports = [
    { id: 'r1', name: 'Nightly', schedule: 'daily', schedule_enabled: true, next_execution_at: '2026-11-22T23:00:00.000Z' },
    { id: 'r2', name: 'Off', schedule: 'daily', schedule_enabled: false, next_execution_at: '2026-11-22T11:00:00.000Z' },
    { id: 'r3', name: 'Once', schedule: 'once', schedule_enabled: true, next_execution_at: null },
  ];
  const lifecycle = { path: ['pending', 'dispatched', 'processing', 'succeeded'], durations_ms: [5000, 5000, 20000] };

  it('lists report runs and execution status changes, soonest first, and nothing that stays', () => {
    const executions = [
      { id: 'e1', report_id: 'r1', status: 'dispatched', created_at: '2026-11-22T09:59:55.000Z', updated_at: '2026-11-22T10:00:00.000Z', lifecycle },
      { id: 'e2', report_id: 'r1', status: 'succeeded', created_at: '2026-11-21T10:00:00.000Z', updated_at: '2026-11-21T10:00:30.000Z', lifecycle },
      { id: 'e3', report_id: 'r1', status: 'pending', created_at: '2026-11-21T10:00:00.000Z', updated_at: '2026-11-21T10:00:00.000Z', lifecycle: null },
    ];
    expect(dueNext({ reports, executions, deliveries: [] }, now)).toEqual([
      {
        atMs: Date.parse('2026-11-22T10:00:05Z'),
        what: 'Execution of report "Nightly" goes dispatched → processing',
        id: 'e1',
        link: 'records?collection=report_executions&id=e1',
      },
      { atMs: Date.parse('2026-11-22T23:00:00Z'), what: 'Report "Nightly" runs (daily)', id: 'r1', link: 'records?collection=reports&id=r1' },
    ]);
    expect(dueNext({ reports, executions, deliveries: [] }, now, 1)).toHaveLength(1);
  });

  it('lists webhook attempts waiting: retries and first attempts held back, not finished deliveries', () => {
    const delivery = (id: string, status: string, attempts: number, next: string | null, url: string | null = 'http://127.0.0.1:3000/hooks') => ({
      id,
      event_name: 'buyer.updated',
      status,
      url,
      attempts: Array.from({ length: attempts }, (_, i) => ({ number: i + 1 })),
      next_attempt_at: next,
    });
    const deliveries = [
      delivery('d1', 'pending', 1, '2026-11-22T10:01:00.000Z'),
      delivery('d2', 'pending', 0, '2026-11-22T10:00:30.000Z', null),
      delivery('d3', 'succeeded', 1, null),
      delivery('d4', 'failed', 8, null),
      delivery('d5', 'pending', 2, '2026-11-22T09:59:00.000Z'), // in flight: due already
    ];
    expect(dueNext({ reports: [], executions: [], deliveries }, now)).toEqual([
      {
        atMs: Date.parse('2026-11-22T10:00:30Z'),
        what: 'Webhook buyer.updated to a subscription that no longer exists: first attempt',
        id: 'd2',
        link: 'webhooks?delivery=d2',
      },
      {
        atMs: Date.parse('2026-11-22T10:01:00Z'),
        what: 'Webhook buyer.updated to http://127.0.0.1:3000/hooks: retry, attempt 2',
        id: 'd1',
        link: 'webhooks?delivery=d1',
      },
    ]);
  });
});

describe('the scenario definitions of the common cases', () => {
  const fields = { kind: 'nth-call', operation: 'listBuyerPaymentMethods', status: '500', call: '2', delay_ms: '1500', name: '', description: '' };

  it('offers three cases', () => {
    expect(COMMON_CASES.map(([kind]) => kind)).toEqual(['nth-call', 'delay', 'report-executions-fail']);
  });

  it('writes "STATUS on the Nth call of OPERATION" with the calls shorthand, named and described after what it does', () => {
    expect(commonDefinition(fields)).toEqual({
      name: 'listbuyerpaymentmethods-call-2-500',
      description: 'The 2nd call of listBuyerPaymentMethods answers 500; the others run normally.',
      operations: ['listBuyerPaymentMethods'],
      calls: [2],
      respond: { status: 500 },
    });
    expect(commonDefinition({ ...fields, name: ' mine ', description: ' Mine. ' })).toMatchObject({ name: 'mine', description: 'Mine.' });
  });

  it('writes "delay OPERATION by N ms" and "fail every report execution"', () => {
    expect(commonDefinition({ ...fields, kind: 'delay', delay_ms: ' 250 ' })).toEqual({
      name: 'listbuyerpaymentmethods-delay-250ms',
      description: 'listBuyerPaymentMethods answers normally, 250 ms late.',
      operations: ['listBuyerPaymentMethods'],
      delay_ms: 250,
      pass: true,
    });
    expect(commonDefinition({ ...fields, kind: 'report-executions-fail' })).toEqual({
      name: 'report-executions-fail',
      description: 'Report executions created while it is active go pending, dispatched, processing, then failed.',
      report_execution: { path: ['pending', 'dispatched', 'processing', 'failed'] },
    });
  });

  it('sends what is not a whole number as typed, so that the API names the field', () => {
    const definition = commonDefinition({ ...fields, status: 'five hundred', call: '1.5' });
    expect(definition.respond).toEqual({ status: 'five hundred' });
    expect(definition.calls).toEqual(['1.5']);
    expect(definition.name).toBe('listbuyerpaymentmethods-call-1.5-five-hundred');
  });

  it('takes a list and ranges of calls (issue 37): 1,2 and 3-5, in order, each once', () => {
    expect(commonDefinition({ ...fields, call: '1,2' })).toEqual({
      name: 'listbuyerpaymentmethods-calls-1-2-500',
      description: 'The 1st and 2nd calls of listBuyerPaymentMethods answer 500; the others run normally.',
      operations: ['listBuyerPaymentMethods'],
      calls: [1, 2],
      respond: { status: 500 },
    });
    expect(commonDefinition({ ...fields, call: '8, 3-5 1 4' })).toMatchObject({
      name: 'listbuyerpaymentmethods-calls-1-3-4-5-8-500',
      description: 'The 1st, 3rd to 5th and 8th calls of listBuyerPaymentMethods answer 500; the others run normally.',
      calls: [1, 3, 4, 5, 8],
    });
    expect(commonDefinition({ ...fields, call: '4-4' })).toMatchObject({ calls: [4], description: expect.stringMatching(/^The 4th call /) });
  });

  it('says what to write when the calls are not numbers and ranges', () => {
    expect(parseCalls('')).toBe('Give a call number, such as 2, or a list and ranges: 1,2 or 3-5.');
    expect(parseCalls('1;2')).toBe("'1;2' is not a call number or a range: write 2, 1,2 or 3-5.");
    expect(parseCalls('0')).toBe("Calls are numbered from 1 to 1000000: '0' is outside.");
    expect(parseCalls('5-3')).toBe("'5-3' runs backwards: write the smaller number first, 3-5.");
    expect(parseCalls('1-101')).toBe('At most 100 calls: for more, write a definition with after and times.');
    expect(parseCalls('1-100')).toHaveLength(100);
  });

  it('says ordinals in English', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '101st',
      '111th',
    ]);
  });
});
