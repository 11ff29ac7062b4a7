// A recorded request as the journal keeps it, for tests of the journal itself.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { RawJournalEntry } from '../../src/journal/entry.js';
import { JOURNAL } from '../../src/journal/journal.js';
import type { TestSandbox } from './sandbox.js';

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

/** The first `request` event of a server-sent event stream, read until it comes (at most 5 s). */
function firstRequestEvent(res: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('no request event within 5 s')), 5000);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      const found = /event: request\ndata: (.*)\n\n/.exec(buffer);
      if (!found) return;
      clearTimeout(timer);
      res.destroy();
      resolve(JSON.parse(found[1]));
    });
  });
}

function openStream(sb: TestSandbox, path: string): Promise<IncomingMessage> {
  const { port } = sb.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path }, (res) =>
      res.statusCode === 200 ? resolve(res) : reject(new Error(`stream: ${res.statusCode}`)),
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Makes one request (`send`) in a fresh namespace and gives every form of its journal entry but the
 * live stream's: the list (whole and summary), HAR, the state export and the bytes a shared sandbox
 * sends to Redis (recordsAfter); `streamed` gives the live stream's (whole and summary, opened
 * before the request), checked against the list's, once its batch comes (journal-stream.ts's
 * BATCH_MS later): a caller making many requests awaits them together. The sandbox listens.
 */
export async function journalViewsAndStream(sb: TestSandbox, ns: string, send: () => PromiseLike<unknown>) {
  await sb.http.get(`/ns/${ns}/card-scheme-definitions`).set('authorization', sb.auth).expect(200); // the namespace exists
  const streams = await Promise.all([openStream(sb, `/ns/${ns}/_sandbox/requests/stream`), openStream(sb, `/ns/${ns}/_sandbox/requests/stream?view=summary`)]);
  const [streamed, streamedSummary] = streams.map(firstRequestEvent);
  await send();
  const entry = (await sb.http.get('/_sandbox/requests?limit=1').set('x-sandbox-namespace', ns).expect(200)).body.items[0];
  const summary = (await sb.http.get('/_sandbox/requests?limit=1&view=summary').set('x-sandbox-namespace', ns).expect(200)).body.items[0];
  const har = JSON.parse((await sb.http.get('/_sandbox/requests?limit=1&format=har').set('x-sandbox-namespace', ns).expect(200)).text).log.entries[0];
  const state = (await sb.http.get('/_sandbox/state').set('x-sandbox-namespace', ns).expect(200)).body.parts.journal.entries.at(-1);
  const records = sb.deps.namespaces.get(ns).part(JOURNAL).recordsAfter(1);
  expect(records).toHaveLength(1);
  const views = { entry, summary, har, state, redis: records[0].toString('utf8') };
  const streamViews = Promise.all([streamed, streamedSummary]).then(([stream, streamSummary]) => {
    expect(stream.id).toBe(entry.id);
    expect(streamSummary).toEqual(summary);
    return { stream, streamSummary };
  });
  return { views, streamed: streamViews };
}

/** Every form of the journal entry of one request `send` makes in a fresh namespace, the live stream's included. */
export async function everyJournalView(sb: TestSandbox, ns: string, send: () => PromiseLike<unknown>) {
  const { views, streamed } = await journalViewsAndStream(sb, ns, send);
  return { ...views, ...(await streamed) };
}
