// A recorded request as the journal keeps it, for tests of the journal itself.
import type { RawJournalEntry } from '../../src/journal/entry.js';

export const rawEntry = (path: string, overrides: Partial<RawJournalEntry> = {}): RawJournalEntry => ({
  timestamp: '2026-01-01T00:00:00.000Z',
  namespace: 'default',
  method: 'GET',
  path,
  url: `http://x${path}`,
  headerLines: '',
  requestText: '',
  requestContentType: null,
  status: 200,
  responseText: '',
  responseContentType: null,
  responseMayHoldPrivateKey: false,
  duration_ms: 1,
  operation_id: null,
  scenario: null,
  request_id: path,
  ...overrides,
});
