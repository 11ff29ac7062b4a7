// The journal's ring against a plain array model (issue 27 part 4): for any sequence of record
// sizes, the ring holds exactly the newest records that fit in the entry count and the byte
// budget, dropping an older one only when keeping it would really pass one of them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteRing } from '../../src/journal/byte-ring.js';
import { Journal } from '../../src/journal/journal.js';
import { rawEntry } from '../support/journal.js';

interface ModelRecord {
  id: number;
  length: number;
}

/** What a bounded FIFO keeps: drop the oldest while the count or the byte budget would be passed. */
function modelAdd(model: ModelRecord[], record: ModelRecord, capacity: number, budget: number): void {
  if (model.length >= capacity) model.shift();
  let bytes = model.reduce((sum, r) => sum + r.length, 0);
  while (model.length > 0 && bytes + record.length > budget) bytes -= (model.shift() as ModelRecord).length;
  model.push(record);
}

/** A record's bytes: its id repeated, so a record moved or overwritten shows. */
function fill(buffer: Buffer, offset: number, { id, length }: ModelRecord): void {
  for (let i = 0; i < length; i++) buffer[offset + i] = (id * 31 + i) & 0xff;
}

function holds(record: Buffer, { id, length }: ModelRecord): boolean {
  if (record.length !== length) return false;
  for (let i = 0; i < length; i++) if (record[i] !== ((id * 31 + i) & 0xff)) return false;
  return true;
}

// Sizes from tiny to larger than the budget, in runs (a burst of list pages among small reads).
const sizes = (budget: number) =>
  fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1, max: Math.max(1, Math.floor(budget / 20)) }) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: Math.floor(budget / 2) }) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: budget * 2 }) },
    ),
    { minLength: 1, maxLength: 300 },
  );

describe('ByteRing against an array model', () => {
  it('keeps exactly the newest records within the budget, each intact, whatever the sizes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64, max: 64 * 1024 }).chain((budget) => fc.tuple(fc.constant(budget), sizes(budget), fc.integer({ min: 0, max: 8 }))),
        ([budget, lengths, compactAfter]) => {
          // Compaction of the record index after a few drops, not 1,024: each run reaches it, most many times.
          const ring = new ByteRing(budget, compactAfter);
          const model: ModelRecord[] = [];
          let largest = 0;
          lengths.forEach((length, id) => {
            const record = { id, length };
            modelAdd(model, record, Number.POSITIVE_INFINITY, budget);
            const { buffer, offset } = ring.reserve(length);
            fill(buffer, offset, record);
            largest = Math.max(largest, length);
            expect(ring.count).toBe(model.length);
            expect(ring.bytes).toBe(model.reduce((sum, r) => sum + r.length, 0));
            model.forEach((r, i) => {
              if (!holds(ring.record(i), r)) throw new Error(`record ${r.id} (${r.length} bytes) not intact at index ${i}`);
            });
            // Memory: the budget plus one largest record (the room a wrap may leave), or one record alone.
            expect(ring.allocatedBytes).toBeLessThanOrEqual(Math.max(budget + largest, 2 * largest));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('wraps a record that exactly fills the room before the oldest into it, in the same buffer (no copy)', () => {
    const ring = new ByteRing(100);
    for (const length of [20, 10, 10, 50]) ring.reserve(length);
    const before = ring.reserve(40); // the two oldest dropped; the 10 and 50 left copied to a buffer of 150, at 0..60
    expect(before.offset).toBe(60);
    // Dropping the 10 and the 50 leaves exactly 60 bytes before the oldest (the 40 at 60): the 60 goes there.
    const wrapped = ring.reserve(60);
    expect(wrapped.offset).toBe(0);
    expect(wrapped.buffer).toBe(before.buffer);
    expect([ring.count, ring.bytes, ring.allocatedBytes]).toEqual([2, 100, 150]);
  });

  it('keeps a journal of random entries as the model does: count, bytes, drops and every entry', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 2048, max: 32 * 1024 }),
        fc.array(fc.integer({ min: 0, max: 12 * 1024 }), { minLength: 1, maxLength: 120 }),
        (capacity, budget, bodies) => {
          const journal = new Journal(capacity, budget);
          const model: ModelRecord[] = [];
          bodies.forEach((chars, i) => {
            const id = i + 1;
            journal.add({ ...rawEntry(`/e${id}`), responseText: 'r'.repeat(chars) });
            // The entry's encoded length, as the journal stored it, drives the model.
            const entryBytes = encodedLength(journal);
            modelAdd(model, { id, length: entryBytes }, capacity, budget);
            expect(journal.size).toBe(model.length);
            expect(journal.dropped).toBe(id - model.length);
            expect(journal.bytes).toBe(model.reduce((sum, r) => sum + r.length, 0));
            expect(journal.entries('summary').map((e) => e.id)).toEqual(model.map((r) => r.id).reverse());
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

/** The newest entry's encoded length: what the journal stored for it. */
function encodedLength(journal: Journal): number {
  const [newest] = journal.recordsAfter(journal.lastId - 1);
  return newest.length;
}
