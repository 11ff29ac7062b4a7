import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal, type RawJournalEntry } from '../../src/journal/journal.js';
import { MAX_BODY_CHARS } from '../../src/journal/record-request.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../support/sandbox.js';

const entry = (path: string): RawJournalEntry => ({
  timestamp: '2026-01-01T00:00:00.000Z', namespace: 'default', method: 'GET', path, url: `http://x${path}`, headers: {}, requestText: '',
  requestContentType: null, status: 200, responseText: '', responseContentType: null, duration_ms: 1, operation_id: null, scenario: null, request_id: path,
});

describe('journal bounds', () => {
  it('drops the oldest entries past the entry cap, keeping ids increasing', () => {
    const journal = new Journal(3);
    for (let i = 1; i <= 2000; i++) journal.add(entry(`/p${i}`));
    expect(journal.size).toBe(3);
    expect(journal.dropped).toBe(1997);
    expect(journal.entries().map((e) => [e.id, e.path])).toEqual([[2000, '/p2000'], [1999, '/p1999'], [1998, '/p1998']]);
    journal.clear();
    expect(journal.entries()).toEqual([]);
    journal.add(entry('/after'));
    expect(journal.entries()[0].id).toBe(2001);
  });

  it('drops the oldest entries past the byte budget, but keeps the newest one', () => {
    const journal = new Journal(100, 1000);
    journal.add(entry('/a'), 400);
    journal.add(entry('/b'), 400);
    journal.add(entry('/c'), 400);
    expect(journal.entries().map((e) => e.path)).toEqual(['/c', '/b']);
    journal.add(entry('/huge'), 5000);
    expect(journal.entries().map((e) => e.path)).toEqual(['/huge']);
  });

  it('keeps nothing with a journal size of 0', () => {
    const journal = new Journal(0);
    journal.add(entry('/a'));
    expect(journal.size).toBe(0);
  });

  describe('over HTTP', () => {
    let sb: TestSandbox;
    beforeAll(async () => {
      sb = await startTestSandbox();
    });
    afterAll(() => sb.server.close());

    it('keeps a long body as a marked prefix', async () => {
      const long = 'x'.repeat(MAX_BODY_CHARS + 10);
      const res = await sb.http.put(`/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).send({ display_name: long });
      expect(res.status).toBe(400);
      const [logged] = (await sb.http.get('/_sandbox/requests')).body.items;
      expect(typeof logged.body).toBe('string');
      expect(logged.body).toMatch(new RegExp(`^\\{"display_name":"x+\\.\\.\\. \\[truncated: ${MAX_BODY_CHARS + 29} characters\\]$`));
      expect(logged.response_body).toMatchObject({ type: 'error', code: 'bad_request' });
    });

    it('records a non-JSON body as text', async () => {
      const res = await sb.http.put(`/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).set('content-type', 'text/plain').send('private_key=abc');
      expect(res.status).toBe(400);
      const [logged] = (await sb.http.get('/_sandbox/requests')).body.items;
      expect(logged.body).toBe('private_key=abc');
      expect(logged.headers['content-type']).toBe('text/plain');
    });
  });
});
