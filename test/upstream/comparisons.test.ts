// Comparisons as compare mode keeps them: one byte array each, copied into a ring of bounded bytes,
// read back whole (the upstream's body with line breaks and any characters), with the totals, groups
// and outcome filter counted from the summary that travels beside the bytes.
import { describe, expect, it } from 'vitest';
import { type Comparison, Comparisons, comparisonView, packComparison } from '../../src/upstream/comparisons.js';

function comparison(journalId: number | null, overrides: Partial<Comparison> = {}): Comparison {
  return {
    namespace: 'ci-1',
    journal_id: journalId,
    request_id: `req-${journalId}`,
    operation_id: 'listGiftCards',
    method: 'GET',
    path: '/gift-cards',
    outcome: 'same',
    differences: [],
    sandbox_status: 200,
    upstream: { status: 200, headers: { 'content-type': 'application/json' }, bodyText: '{"items":[]}', duration_ms: 12.5, failure: null },
    ...overrides,
  };
}

const missingBin = {
  kind: 'missing_field' as const,
  at: 'items[].bin',
  sandbox: '41111111',
  upstream: null,
  message: "the declared field items[].bin is missing from the upstream's answer",
};

describe('Comparisons', () => {
  it('keeps each comparison as one byte array and gives it back whole', () => {
    const body = '{\n  "items": [{"name": "Zoë \\"the\\" 🎁", "note": "line\\nbreak"}]\n}\n';
    const original = comparison(7, {
      outcome: 'differs',
      differences: [{ ...missingBin, sandbox: { nested: 'a\nb' } }],
      upstream: { status: 200, headers: { 'content-type': 'application/json', etag: 'W/"1"' }, bodyText: body, duration_ms: 3, failure: null },
    });
    const packed = packComparison(original);
    expect(packed.bytes).toBeInstanceOf(Uint8Array);
    expect(packed.bytes.byteOffset).toBe(0);
    expect(packed.bytes.buffer.byteLength).toBe(packed.bytes.byteLength); // its own buffer: movable to another thread
    expect(packed.summary).toEqual({
      namespace: 'ci-1',
      journal_id: 7,
      request_id: 'req-7',
      operation_id: 'listGiftCards',
      path: '/gift-cards',
      outcome: 'differs',
      differences: [{ kind: 'missing_field', at: 'items[].bin' }],
      failure: null,
    });
    const kept = new Comparisons();
    kept.add(packed);
    expect(kept.of('ci-1', 7)).toEqual(original);
    expect(kept.outcomeOf('ci-1', 7)).toBe('differs');
    expect(kept.of('ci-1', 8)).toBeUndefined();
    expect(kept.of('other', 7)).toBeUndefined();
    expect(comparisonView(kept.of('ci-1', 7) as Comparison).upstream).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json', etag: 'W/"1"' },
      body: { items: [{ name: 'Zoë "the" 🎁', note: 'line\nbreak' }] },
      duration_ms: 3,
      failure: null,
    });
  });

  it('counts every call and groups each difference and failure once, with its first call', () => {
    const kept = new Comparisons();
    kept.add(packComparison(comparison(1, { outcome: 'differs', differences: [missingBin] })));
    kept.add(packComparison(comparison(2, { outcome: 'differs', differences: [{ ...missingBin, sandbox: '55555555' }], path: '/gift-cards?limit=1' })));
    kept.add(packComparison(comparison(null, { outcome: 'same' }))); // not journaled: counted, not kept
    const down = { status: 503, headers: {}, bodyText: '', duration_ms: 1, failure: 'status 503' };
    kept.add(packComparison(comparison(3, { outcome: 'upstream_failed', upstream: down })));
    kept.add(packComparison(comparison(4, { outcome: 'upstream_failed', upstream: down })));
    expect(kept.outcomes).toEqual({ same: 1, differs: 2, upstream_failed: 2, not_sent: 0 });
    expect(kept.differenceGroups()).toEqual([
      {
        operation_id: 'listGiftCards',
        kind: 'missing_field',
        at: 'items[].bin',
        message: missingBin.message,
        count: 2,
        example: { request_id: 'req-1', path: '/gift-cards', sandbox: '41111111', upstream: null },
      },
    ]);
    expect(kept.failures()).toEqual([{ operation_id: 'listGiftCards', failure: 'status 503', count: 2, example_request_id: 'req-3' }]);
    expect(kept.differenceCounts()).toEqual([{ operation: 'listGiftCards', kind: 'missing_field', count: 2 }]);
    expect([1, 2, 3, 4].map((id) => kept.outcomeOf('ci-1', id))).toEqual(['differs', 'differs', 'upstream_failed', 'upstream_failed']);
    kept.clear();
    expect(kept.outcomes).toEqual({ same: 0, differs: 0, upstream_failed: 0, not_sent: 0 });
    expect(kept.of('ci-1', 1)).toBeUndefined();
    expect(kept.outcomeOf('ci-1', 1)).toBeUndefined();
    expect(kept.differenceGroups()).toEqual([]);
  });

  it('keeps their bytes within a budget, the newest first, and reads each back whole after the ring wraps', () => {
    const page = (id: number) => JSON.stringify({ items: [{ id, name: `card ${id} `.padEnd(1000, 'x') }] });
    const kept = new Comparisons(10 * 1024);
    for (let id = 1; id <= 40; id++) {
      const body = page(id);
      kept.add(packComparison(comparison(id, { outcome: id % 2 ? 'same' : 'differs', upstream: { ...comparison(id).upstream, bodyText: body } })));
    }
    const held = Array.from({ length: 40 }, (_, i) => i + 1).filter((id) => kept.of('ci-1', id) !== undefined);
    expect(held.length).toBeGreaterThanOrEqual(5); // 10 KB of records of 1.3 KB or so
    expect(held.length).toBeLessThan(10);
    expect(held).toEqual(Array.from({ length: held.length }, (_, i) => 41 - held.length + i)); // the newest, without a gap
    for (const id of held) {
      expect(kept.of('ci-1', id)?.upstream.bodyText).toBe(page(id));
      expect(kept.outcomeOf('ci-1', id)).toBe(id % 2 ? 'same' : 'differs');
    }
    expect(kept.outcomeOf('ci-1', held[0] - 1)).toBeUndefined(); // dropped: its outcome too
    expect(kept.outcomes).toEqual({ same: 20, differs: 20, upstream_failed: 0, not_sent: 0 });
  });

  it('reads an entry kept again (its journal cleared since) as the newer comparison', () => {
    const kept = new Comparisons();
    kept.add(packComparison(comparison(1, { request_id: 'first' })));
    kept.add(packComparison(comparison(2)));
    kept.add(packComparison(comparison(1, { request_id: 'again', outcome: 'differs', differences: [missingBin] })));
    expect(kept.of('ci-1', 1)?.request_id).toBe('again');
    expect(kept.outcomeOf('ci-1', 1)).toBe('differs');
    expect(kept.of('ci-1', 2)?.request_id).toBe('req-2');
  });

  it('keeps the newest 10,000 and forgets the oldest, outcome included', () => {
    const kept = new Comparisons();
    for (let id = 1; id <= 10_001; id++) kept.add(packComparison(comparison(id)));
    expect(kept.of('ci-1', 1)).toBeUndefined();
    expect(kept.outcomeOf('ci-1', 1)).toBeUndefined();
    expect(kept.of('ci-1', 2)?.request_id).toBe('req-2');
    expect(kept.of('ci-1', 10_001)?.request_id).toBe('req-10001');
    expect(kept.outcomes.same).toBe(10_001);
  });
});
