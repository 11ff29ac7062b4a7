// One comparison as the compare worker makes it, against a real local upstream: the upstream's body
// is first read as Latin-1 (its bytes copied, not decoded), and decoded as UTF-8 only when a
// difference is found, so what a difference quotes and what is kept must be the text the upstream
// sent, accents and all; kept bytes must read back as that text, without a private key, and clipped
// past MAX_BODY_CHARS as the journal clips an answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_CHARS } from '../../src/journal/redact.js';
import { loadSpec } from '../../src/spec/load-spec.js';
import { indexSpec } from '../../src/spec/operations.js';
import { UpstreamClient } from '../../src/upstream/client.js';
import { type CompareJob, runCompareJob } from '../../src/upstream/compare-job.js';
import { type Comparison, Comparisons, packComparison } from '../../src/upstream/comparisons.js';
import { ContractComparer } from '../../src/upstream/contract.js';
import { card } from './gift-card.js';

const comparer = new ContractComparer(indexSpec(loadSpec(), 'openapi.json', [], { lazy: true }));

const page = (...items: unknown[]) => JSON.stringify({ items, limit: 20, next_cursor: null, previous_cursor: null });

/** What the local upstream answers next: its body as UTF-8 bytes. */
let answer = '';
let server: Server;
let client: UpstreamClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(Buffer.from(answer, 'utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new UpstreamClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 5_000);
});
afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

/** The sandbox answered `ours`, the upstream answers `theirs`: the comparison, and what Comparisons keeps of it. */
async function compare(ours: string, theirs: string): Promise<{ comparison: Comparison; kept: Comparison }> {
  answer = theirs;
  const job: CompareJob = {
    base: { namespace: 'ns', journal_id: 1, request_id: 'r1', operation_id: 'listGiftCards', method: 'GET', path: '/gift-cards', sandbox_status: 200 },
    request: { method: 'GET', pathAndQuery: '/gift-cards', headers: {}, body: undefined },
    sandbox: { status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(ours) },
  };
  const { comparison, body } = await runCompareJob(job, client, comparer);
  const comparisons = new Comparisons();
  comparisons.add(packComparison(comparison, body));
  return { comparison, kept: comparisons.of('ns', 1) as Comparison };
}

describe('a comparison of answers with characters beyond ASCII', () => {
  it('finds none where only the values differ, and keeps the upstream body as the text it sent', async () => {
    const theirs = page(card({ gift_card_service: { ...card().gift_card_service, display_name: 'Zoë Ångström 日本 🎁' } }), card());
    const { comparison, kept } = await compare(page(card()), theirs);
    expect(comparison.outcome).toBe('same');
    expect(comparison.differences).toEqual([]);
    expect(kept.outcome).toBe('same');
    expect(kept.upstream.bodyText).toBe(theirs);
    expect(kept.upstream.status).toBe(200);
  });

  it('quotes a drifted constant and a date-time with accents or other digits as the upstream sent them', async () => {
    const theirs = page(card({ type: 'gïft-card' }), card({ created_at: '٢٠٢٦-10-01T10:00:00.000Z' }));
    const { comparison, kept } = await compare(page(card(), card()), theirs);
    expect(comparison.outcome).toBe('differs');
    expect(comparison.differences.map(({ kind, at, sandbox, upstream }) => ({ kind, at, sandbox, upstream }))).toEqual([
      { kind: 'enum_value', at: 'items[].type', sandbox: 'gift-card', upstream: 'gïft-card' },
      { kind: 'format', at: 'items[].created_at', sandbox: '2026-10-01T10:00:00.000Z', upstream: '٢٠٢٦-10-01T10:00:00.000Z' },
    ]);
    expect(kept.differences).toEqual(comparison.differences);
    expect(kept.upstream.bodyText).toBe(theirs);
  });

  it('keeps an upstream body holding a private key without it, and one past MAX_BODY_CHARS clipped', async () => {
    const key = '-----BEGIN PRIVATE KEY-----MIIEvQIBADANBg-----END PRIVATE KEY-----';
    const withKey = `{"items":[],"limit":20,"next_cursor":null,"previous_cursor":null,"private_key":"${key}","note":"é"}`;
    const { comparison, kept } = await compare(page(), withKey);
    expect(comparison.differences.map((d) => [d.kind, d.at, d.upstream])).toEqual([
      ['new_field', 'private_key', '[redacted]'],
      ['new_field', 'note', 'é'],
    ]);
    expect(kept.upstream.bodyText).not.toContain('MIIEvQIBADANBg');
    expect(kept.upstream.bodyText).toContain('"note":"é"');

    const many = page(
      ...Array.from({ length: 60 }, (_, i) => card({ gift_card_service: { ...card().gift_card_service, display_name: `Zoë ${i} ${'x'.repeat(1200)}` } })),
    );
    expect(many.length).toBeGreaterThan(MAX_BODY_CHARS);
    const clipped = await compare(page(card()), many);
    expect(clipped.comparison.outcome).toBe('same');
    expect(clipped.kept.upstream.bodyText).toBe(many.slice(0, MAX_BODY_CHARS));
  });
});
