// The contract comparison on its own, with openapi.json as served: the kinds of difference the
// drift test through the command does not provoke (type, format, a nested record's kind), and what
// must not count as drift (other records, other values, nulls the schema allows).
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/load-spec.js';
import { indexSpec } from '../../src/spec/operations.js';
import { ContractComparer } from '../../src/upstream/contract.js';
import { card } from './gift-card.js';

const spec = indexSpec(loadSpec(), 'openapi.json', [], { lazy: true });
const comparer = new ContractComparer(spec);
const listGiftCards = spec.byId.get('listGiftCards');
if (!listGiftCards) throw new Error('openapi.json has no listGiftCards');

const page = (...items: unknown[]) => ({ status: 200, headers: {}, body: { items, limit: 20, next_cursor: null, previous_cursor: null } });

describe('contract comparison', () => {
  it('finds nothing between two answers of other records and values', () => {
    const other = card({ id: '8f1c3b8e-0000-4000-8000-000000000002', bin: '11112222', usage_count: 0, last4: '0001' });
    expect(comparer.compare(listGiftCards, page(card()), page(other, card()))).toEqual([]);
  });

  it('finds a value of another type, and a string not of its declared format', () => {
    const differences = comparer.compare(listGiftCards, page(card()), page(card({ usage_count: '3', created_at: 'yesterday' })));
    expect(differences).toEqual([
      { kind: 'format', at: 'items[].created_at', sandbox: '2026-10-01T10:00:00.000Z', upstream: 'yesterday', message: 'not a date-time as declared' },
      { kind: 'type', at: 'items[].usage_count', sandbox: 'integer', upstream: 'string', message: 'declared integer, the upstream sent string' },
    ]);
  });

  it('finds a wrong type constant, and a nested record of another type', () => {
    const differences = comparer.compare(listGiftCards, page(card()), page(card({ type: 'giftcard', buyer: 42 })));
    expect(differences.map((d) => `${d.kind} ${d.at}`)).toEqual(['enum_value items[].type', 'type items[].buyer']);
  });

  it('finds a field missing from a nested record, and a nested field that allows null holding another type', () => {
    const { buyer } = card() as { buyer: Record<string, unknown> };
    const { reconciliation_id: _gone, ...withoutId } = buyer;
    const differences = comparer.compare(listGiftCards, page(card()), page(card({ buyer: { ...withoutId, display_name: 7 } })));
    expect(differences).toEqual([
      {
        kind: 'missing_field',
        at: 'items[].buyer.reconciliation_id',
        sandbox: '2AbCdEfGhIjKlMnOpQrStU',
        upstream: null,
        message: "the declared field items[].buyer.reconciliation_id is missing from the upstream's answer",
      },
      { kind: 'type', at: 'items[].buyer.display_name', sandbox: 'string', upstream: 'integer', message: 'declared string or null, the upstream sent integer' },
    ]);
  });

  it('compares only statuses when they differ', () => {
    expect(comparer.compare(listGiftCards, page(card()), { status: 404, headers: {}, body: { type: 'error' } })).toEqual([
      { kind: 'status', at: 'status', sandbox: 200, upstream: 404, message: 'the sandbox answered 200, the upstream 404' },
    ]);
  });
});
