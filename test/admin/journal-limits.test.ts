import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { clip, MAX_BODY_CHARS } from '../../src/journal/record-request.js';
import { rawEntry } from '../support/journal.js';
import { type TestSandbox, useTestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const entry = (path: string) => rawEntry(path);

describe('journal bounds', () => {
  it('drops the oldest entries past the entry cap, keeping ids increasing', () => {
    const journal = new Journal(3);
    for (let i = 1; i <= 2000; i++) journal.add(entry(`/p${i}`));
    expect(journal.size).toBe(3);
    expect(journal.dropped).toBe(1997);
    expect(journal.entries().map((e) => [e.id, e.path])).toEqual([
      [2000, '/p2000'],
      [1999, '/p1999'],
      [1998, '/p1998'],
    ]);
    journal.clear();
    expect(journal.entries()).toEqual([]);
    journal.add(entry('/after'));
    expect(journal.entries()[0].id).toBe(2001);
  });

  it('drops the oldest entries past the byte budget, but keeps the newest one', () => {
    const journal = new Journal(100, 1000);
    const withBody = (path: string, chars: number) => ({ ...entry(path), responseText: 'r'.repeat(chars) });
    journal.add(withBody('/a', 300)); // about 400 bytes each, encoded
    journal.add(withBody('/b', 300));
    journal.add(withBody('/c', 300));
    expect(journal.entries().map((e) => e.path)).toEqual(['/c', '/b']);
    expect(journal.dropped).toBe(1);
    // The entries' bytes stay within the budget; the buffer holds at most one largest entry more (where the ring wraps).
    expect(journal.bytes).toBeLessThanOrEqual(1000);
    expect(journal.allocatedBytes).toBeLessThanOrEqual(1000 + journal.bytes / 2);
    journal.add(withBody('/huge', 5000));
    expect(journal.entries().map((e) => [e.path, (e.response_body as string).length])).toEqual([['/huge', 5000]]);
    expect(journal.dropped).toBe(3);
    journal.add(withBody('/d', 10));
    expect(journal.entries().map((e) => e.path)).toEqual(['/d']); // the two would pass the budget
  });

  it('wraps around its buffer many times without mixing up entries', () => {
    const journal = new Journal(50, 4096);
    const sizes = [0, 1, 7, 300, 900, 1500, 13];
    for (let i = 1; i <= 400; i++) {
      journal.add({
        ...entry(`/w${i}`),
        requestText: 'q'.repeat(sizes[i % 7]),
        responseText: JSON.stringify({ i, pad: 'é'.repeat(sizes[(i + 3) % 7]) }),
        status: 200 + (i % 5),
      });
      const [newest, ...older] = journal.entries();
      expect(newest).toMatchObject({ id: i, path: `/w${i}`, status: 200 + (i % 5), response_body: { i } });
      older.forEach((e, k) => {
        expect(e).toMatchObject({ id: i - 1 - k, path: `/w${i - 1 - k}`, response_body: { i: i - 1 - k } });
      });
    }
    expect(journal.allocatedBytes).toBeLessThanOrEqual(4096 + 2 * (1500 + 3 * 1500)); // the budget and its largest entry
    expect(journal.size + journal.dropped).toBe(400);
  });

  it('gives back every field as recorded, nulls included, and a NUL inside a field cannot shift the others', () => {
    const journal = new Journal(10);
    journal.add({
      ...entry('/buyers/1'),
      method: 'PUT',
      url: 'http://x/buyers/1?a=1&a=2&b=%00',
      headerLines: 'content-type: application/json\nx-many: 1\nx-many: 2\n',
      requestText: '{"display_name":"Zoë \\u0000"}',
      requestContentType: 'application/json',
      status: 200,
      responseText: '{"ok":true}',
      responseContentType: 'application/json',
      responseHeaderLines: 'content-type: application/json\nretry-after: 1\n',
      duration_ms: 1.234,
      operation_id: 'updateBuyer',
      merchant_account_id: 'merchant-two',
      scenario: 'slow',
      request_id: 'req-1',
    });
    journal.add({ ...entry('/odd\u0000path'), url: 'http://x/odd\u0000path', headerLines: 'x-odd: a\u0000b\n', duration_ms: 0.5, request_id: 'req-2' });
    const [odd, put] = journal.entries();
    expect(put).toEqual({
      id: 1,
      timestamp: '2026-01-01T00:00:00.000Z',
      namespace: 'default',
      method: 'PUT',
      path: '/buyers/1',
      url: 'http://x/buyers/1?a=1&a=2&b=%00',
      query: { a: ['1', '2'], b: '\u0000' },
      headers: { 'content-type': 'application/json', 'x-many': '1, 2' },
      body: { display_name: 'Zoë \u0000' },
      status: 200,
      response_headers: { 'content-type': 'application/json', 'retry-after': '1' },
      response_body: { ok: true },
      duration_ms: 1.234,
      operation_id: 'updateBuyer',
      merchant_account_id: 'merchant-two',
      scenario: 'slow',
      request_id: 'req-1',
    });
    expect(odd).toEqual({
      id: 2,
      timestamp: '2026-01-01T00:00:00.000Z',
      namespace: 'default',
      method: 'GET',
      path: '/odd\uFFFDpath',
      url: 'http://x/odd\uFFFDpath',
      query: {},
      headers: { 'x-odd': 'a\uFFFDb' },
      body: null,
      status: 200,
      response_headers: {},
      response_body: null,
      duration_ms: 0.5,
      operation_id: null,
      merchant_account_id: null,
      scenario: null,
      request_id: 'req-2',
    });
  });

  it('keeps nothing with a journal size of 0', () => {
    const journal = new Journal(0);
    journal.add(entry('/a'));
    expect(journal.size).toBe(0);
  });

  it('cuts an answer sent as bytes at a character boundary, never past MAX_BODY_CHARS characters', () => {
    const asBytes = (text: string) => ({ bytes: Buffer.from(text), chars: text.length });
    // Short: kept whole, as the same bytes.
    const short = asBytes('{"name":"Zoë 漢字 🎁"}');
    expect(clip(short)).toEqual({ text: short.bytes, length: short.chars });
    // MAX_BODY_CHARS characters are kept whole, whatever their bytes.
    const atLimit = asBytes('é'.repeat(MAX_BODY_CHARS));
    expect(clip(atLimit)).toEqual({ text: atLimit.bytes, length: MAX_BODY_CHARS });
    // Two-byte characters from the first byte on: the limit falls on a character's first byte.
    const even = asBytes('é'.repeat(MAX_BODY_CHARS + 1));
    const evenCut = clip(even);
    expect(evenCut.length).toBe(MAX_BODY_CHARS + 1);
    expect(evenCut.text.toString()).toBe('é'.repeat(MAX_BODY_CHARS / 2));
    // One byte first: the limit falls inside a character, which is left out whole.
    const odd = asBytes(`a${'é'.repeat(MAX_BODY_CHARS)}`);
    const oddCut = clip(odd);
    expect(oddCut.text.toString()).toBe(`a${'é'.repeat(MAX_BODY_CHARS / 2 - 1)}`);
    expect(oddCut.text.toString()).not.toContain('\uFFFD');
    // Four-byte characters (two UTF-16 units each): whole ones only, and the length counts units.
    const emoji = asBytes('🎁'.repeat(MAX_BODY_CHARS));
    const emojiCut = clip(emoji);
    expect(emojiCut).toMatchObject({ length: 2 * MAX_BODY_CHARS });
    expect(emojiCut.text.toString()).toBe('🎁'.repeat(MAX_BODY_CHARS / 4));
    // ASCII: exactly MAX_BODY_CHARS characters.
    const ascii = asBytes('x'.repeat(MAX_BODY_CHARS + 1));
    expect(clip(ascii).text.toString()).toBe('x'.repeat(MAX_BODY_CHARS));
  });

  describe('over HTTP', () => {
    let sb: TestSandbox;
    useTestSandbox((started) => (sb = started));

    it('keeps a long body as a marked prefix', async () => {
      const long = 'x'.repeat(MAX_BODY_CHARS + 10);
      const res = await sb.http.put(`/buyers/${WELL_KNOWN.buyers.default.id}`).set('authorization', sb.auth).send({ display_name: long });
      expect(res.status).toBe(400);
      const [logged] = (await sb.http.get('/_sandbox/requests')).body.items;
      expect(typeof logged.body).toBe('string');
      expect(logged.body).toMatch(new RegExp(`^\\{"display_name":"x+\\.\\.\\. \\[truncated: ${MAX_BODY_CHARS + 29} characters\\]$`));
      expect(logged.response_body).toMatchObject({ type: 'error', code: 'bad_request' });
    });

    it('records a list page (sent as bytes) whole when short, and as a marked prefix of its text when long', async () => {
      const small = await sb.http.get('/gift-cards?limit=2').set('authorization', sb.auth);
      expect(small.status).toBe(200);
      const [logged] = (await sb.http.get('/_sandbox/requests')).body.items;
      expect(logged).toMatchObject({ operation_id: 'listGiftCards', status: 200, path: '/gift-cards', query: { limit: '2' } });
      expect(logged.response_body).toEqual(small.body);

      // The first page, and the second, which is copied from two kept blocks of rows (rows 100 to 156).
      const first = await sb.http.get('/gift-cards?limit=100').set('authorization', sb.auth);
      const second = await sb.http.get(`/gift-cards?limit=100&cursor=${encodeURIComponent(first.body.next_cursor)}`).set('authorization', sb.auth);
      for (const large of [first, second]) {
        expect(large.status).toBe(200);
        expect(large.text.length).toBeGreaterThan(MAX_BODY_CHARS);
        expect(Buffer.byteLength(large.text)).toBeGreaterThan(large.text.length); // multi-byte characters, counted as characters
      }
      const journal = (await sb.http.get('/_sandbox/requests?limit=2')).body.items;
      expect(journal.map((e: any) => e.query)).toEqual([{ limit: '100', cursor: first.body.next_cursor }, { limit: '100' }]);
      journal.reverse().forEach((logged: any, i: number) => {
        const large = [first, second][i];
        const marker = `... [truncated: ${large.text.length} characters]`;
        expect(logged.response_body.endsWith(marker)).toBe(true);
        const prefix = logged.response_body.slice(0, -marker.length);
        expect(prefix).toBe(large.text.slice(0, prefix.length));
        // Cut as UTF-8 at a character boundary: at most MAX_BODY_CHARS bytes, and less than one
        // character short of them (the fixtures' names hold multi-byte characters).
        expect(Buffer.byteLength(prefix)).toBeLessThanOrEqual(MAX_BODY_CHARS);
        expect(Buffer.byteLength(prefix)).toBeGreaterThan(MAX_BODY_CHARS - 4);
        expect(prefix).not.toContain('\uFFFD');
      });
    });

    it('records a non-JSON body as text', async () => {
      const res = await sb.http
        .put(`/buyers/${WELL_KNOWN.buyers.default.id}`)
        .set('authorization', sb.auth)
        .set('content-type', 'text/plain')
        .send('private_key=abc');
      expect(res.status).toBe(400);
      const [logged] = (await sb.http.get('/_sandbox/requests')).body.items;
      expect(logged.body).toBe('private_key=abc');
      expect(logged.headers['content-type']).toBe('text/plain');
    });
  });
});
