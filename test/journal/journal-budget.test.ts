// Issue 27 part 4: a journal keeps every entry until its entry count or byte budget is really
// reached, whatever the mix of entry sizes; a drop is announced on the live stream and counted.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { type TestSandbox, useTestSandbox } from '../support/sandbox.js';
import { EventReader } from '../support/sse.js';

describe('journal over HTTP, entries of mixed sizes', () => {
  let sb: TestSandbox;
  useTestSandbox((started) => (sb = started));

  it('keeps small entries when larger ones follow, far below the budget', async () => {
    await sb.http.delete('/_sandbox/requests').expect(204);
    const count = async () => (await sb.http.get('/_sandbox/requests/count')).body.count;
    for (let i = 0; i < 5; i++) expect((await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth)).status).toBe(200);
    expect(await count()).toBe(5);
    expect((await sb.http.get('/gift-cards?limit=20').set('authorization', sb.auth)).status).toBe(200);
    expect(await count()).toBe(6);
    expect((await sb.http.get('/gift-cards?limit=50').set('authorization', sb.auth)).status).toBe(200);
    expect(await count()).toBe(7);
    const { body } = await sb.http.get('/_sandbox/requests?view=summary');
    expect(body.items.map((e: { path: string; query: Record<string, string> }) => [e.path, e.query.limit ?? null])).toEqual([
      ['/gift-cards', '50'],
      ['/gift-cards', '20'],
      ...Array(5).fill(['/card-scheme-definitions', null]),
    ]);
    const namespaces = (await sb.http.get('/_sandbox/namespaces')).body.items;
    expect(namespaces.find((n: { name: string }) => n.name === 'default')).toMatchObject({ journal_size: 7, journal_dropped: 0 });
  });
});

describe('a full journal over HTTP (journalSize 3)', () => {
  let sandbox: RunningSandbox;
  let auth: Record<string, string>;
  const opened: IncomingMessage[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, journalSize: 3, logger: createLogger({ logLevel: 'silent', logFormat: 'json' }) });
    auth = { authorization: `Bearer ${await sandbox.token()}` };
  });
  afterAll(async () => {
    for (const res of opened) res.destroy();
    await sandbox.close();
  });

  const call = (path: string) => fetch(`${sandbox.url}${path}`, { headers: auth });

  it('announces each drop on the stream and counts them in the namespace list', async () => {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      httpRequest(`${sandbox.url}/ns/full1/_sandbox/requests/stream?view=summary`, (r) => {
        opened.push(r);
        resolve(r);
      })
        .on('error', reject)
        .end();
    });
    const events = new EventReader(res);
    expect((await events.next()).event).toBe('ready');
    const listed = async () => (await (await fetch(`${sandbox.url}/_sandbox/namespaces`)).json()).items.find((n: { name: string }) => n.name === 'full1');

    for (let i = 1; i <= 3; i++) expect((await call(`/ns/full1/card-scheme-definitions?i=${i}`)).status).toBe(200);
    const first = [await events.next(), await events.next(), await events.next()];
    expect(first.map((e) => [e.event, e.data.id])).toEqual([
      ['request', 1],
      ['request', 2],
      ['request', 3],
    ]);
    expect(await listed()).toMatchObject({ journal_size: 3, journal_dropped: 0 });

    // Two more: the journal holds 3, so the two oldest go, and the stream says so.
    expect((await call('/ns/full1/card-scheme-definitions?i=4')).status).toBe(200);
    expect((await call('/ns/full1/card-scheme-definitions?i=5')).status).toBe(200);
    // One batch, or two if the second request came after the first batch was read: read until both are in.
    const after = [];
    while (after.filter((e) => e.event === 'request').length < 2) after.push(await events.next());
    const requests = after.filter((e) => e.event === 'request').map((e) => e.data.id);
    expect(requests).toEqual([4, 5]);
    const drops = after.filter((e) => e.event === 'dropped').map((e) => e.data);
    const counts = drops.length === 1 ? [2] : [1, 1];
    expect(drops).toEqual(
      counts.map((count, i) => {
        const total = counts.slice(0, i + 1).reduce((n, c) => n + c, 0);
        return {
          reason: 'journal_full',
          namespace: 'full1',
          count,
          total,
          message: `The journal of namespace full1 was full (its entry count, --journal-size, or its 16 MiB): its ${count === 1 ? '1 oldest request was' : `${count} oldest requests were`} dropped (${total} since the namespace was made).`,
        };
      }),
    );
    expect(await listed()).toMatchObject({ journal_size: 3, journal_dropped: 2 });
    const journal = await (await fetch(`${sandbox.url}/ns/full1/_sandbox/requests?view=summary`)).json();
    expect(journal.items.map((e: { id: number }) => e.id)).toEqual([5, 4, 3]);
  });
});
