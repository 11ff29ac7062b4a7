// The console's pure helpers: the request as curl, the records search, what falls due next.
import { describe, expect, it } from 'vitest';
import { curlCommand, shellQuote } from '../../src/console/curl.js';
import { dueNext } from '../../src/console/pages/due.js';
import { recordMatches } from '../../src/console/pages/records.js';
import type { JournalEntry } from '../../src/journal/journal.js';

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
    expect(dueNext(reports, executions, now)).toEqual([
      {
        atMs: Date.parse('2026-11-22T10:00:05Z'),
        what: 'Execution of report "Nightly" goes dispatched → processing',
        collection: 'report_executions',
        id: 'e1',
      },
      { atMs: Date.parse('2026-11-22T23:00:00Z'), what: 'Report "Nightly" runs (daily)', collection: 'reports', id: 'r1' },
    ]);
    expect(dueNext(reports, executions, now, 1)).toHaveLength(1);
  });
});
