// Record mode through the real command: the upstream (a second sandbox) answers, the recording is
// a HAR file and a data file, secrets redacted; a sandbox started from that data file serves the
// records the upstream showed, with their references.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../cli/support/cli.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { silentServer, useSecondSandbox } from './support.js';

const { suite, call } = useSecondSandbox('record-test-');
const { work } = suite;

describe('record mode', { timeout: 60_000 }, () => {
  it('answers with the upstream, and leaves a HAR file and a data file a sandbox starts from', async () => {
    const dir = join(work, 'rec');
    const recorder = await startCli(['record', '--port', '0', '--upstream', suite.upstream.url, '--report-dir', dir]);
    let giftCards: { items: Array<{ id: string; buyer: { id: string } | null; gift_card_service: { id: string } }> };
    try {
      const res = await call(recorder.url, '/gift-cards?limit=5');
      expect(res.status).toBe(200);
      giftCards = await res.json();
      // The upstream's answer, not the sandbox's own (another seed: other records).
      expect(giftCards).toEqual(await (await call(suite.upstream.url, '/gift-cards?limit=5')).json());
      expect(giftCards.items).toHaveLength(5);
      const created = await call(recorder.url, '/api-key-pairs', {
        method: 'POST',
        body: JSON.stringify({ display_name: 'recorded', role_ids: [WELL_KNOWN.roles.readOnly.id] }),
      });
      expect(created.status).toBe(201);
      expect((await created.json()).private_key).toMatch(/PRIVATE KEY/);
      const data = await (await fetch(`${recorder.url}/_sandbox/upstream/recording?format=data-file`)).json();
      expect(data.collections.gift_cards.map((g: { id: string }) => g.id)).toEqual(expect.arrayContaining(giftCards.items.map((g) => g.id)));
    } finally {
      expect(await recorder.stop()).toBe(0);
    }

    const har = JSON.parse(readFileSync(join(dir, 'recording.har'), 'utf8'));
    expect(
      har.log.entries.map(
        (e: { request: { method: string; url: string }; response: { status: number } }) =>
          `${e.request.method} ${new URL(e.request.url).pathname} ${e.response.status}`,
      ),
    ).toEqual(['GET /gift-cards 200', 'POST /api-key-pairs 201']);
    expect(har.log.entries[0].request.headers).toContainEqual({ name: 'authorization', value: '[redacted]' });
    expect(JSON.parse(har.log.entries[0].response.content.text)).toEqual(giftCards);
    expect(JSON.parse(har.log.entries[1].response.content.text).private_key).toBe('[redacted]');
    for (const file of ['recording.har', 'recording.data.json']) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text).not.toContain(suite.token.split('.')[2]);
      expect(text).not.toMatch(/PRIVATE KEY/);
    }

    // A sandbox started from the data file serves the recorded gift cards, their buyers and services with them.
    const dataFile = join(work, 'from-recording.json');
    copyFileSync(join(dir, 'recording.data.json'), dataFile);
    const replay = await startCli(['--port', '0', '--data-file', dataFile]);
    try {
      // Each as the API shows it, its buyer and gift card service expanded from the records the file holds.
      for (const card of giftCards.items) {
        const res = await fetch(`${replay.url}/_sandbox/records/gift_cards/${card.id}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual(card);
      }
    } finally {
      expect(await replay.stop()).toBe(0);
    }
  });

  it('answers 502 in the reference error shape when the upstream is unreachable', async () => {
    const gone = await silentServer();
    await gone.close();
    const recorder = await startCli(['record', '--port', '0', '--upstream', gone.url, '--report-dir', join(work, 'gone')]);
    try {
      const res = await call(recorder.url, '/gift-cards');
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({
        type: 'error',
        code: 'bad_gateway',
        status: 502,
        message: expect.stringMatching(/^the upstream did not answer: ECONNREFUSED/),
        details: [],
      });
      // The sandbox answered it, not the upstream: journaled, but not in the recording.
      const journal = await (await fetch(`${recorder.url}/_sandbox/requests?view=summary`)).json();
      expect(journal.items.map((e: { status: number; answered_by?: string }) => `${e.status} ${e.answered_by ?? 'sandbox'}`)).toEqual(['502 sandbox']);
      const har = await (await fetch(`${recorder.url}/_sandbox/upstream/recording`)).json();
      expect(har.log.entries).toEqual([]);
    } finally {
      expect(await recorder.stop()).toBe(0);
    }
  });
});
