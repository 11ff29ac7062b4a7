// The cached JSON of an ordered view (Collection.view: all of a merchant account's gift cards,
// newest first), copied into blocks of consecutive rows. Why: in a store of 100,000 cards, a page
// copied record by record reached 100 records, 100 cached-JSON objects and 100 small buffers spread
// over a 450 MB heap, and those cache misses made a page about 70 µs slower than on the default
// fixtures. From a block, a page of up to 100 rows is one or two copies of memory read in order.
//
// A block holds while its generation (the state of the source collections, record-json.ts) is the
// current one. After a change it is checked once: if every row's cached JSON is still the same object,
// it is stamped with the new generation; else it is copied again from the rows' cached JSON. A view
// rebuilt after its collection changed is a new array with new blocks (record-json.ts keys them by
// the array), made as its pages are asked for.
//
// Each row's cached JSON is then pointed at its bytes in the block, so the text is held once, not
// twice. A record can pin at most one block this way (the last one it was copied into).
import type { CachedJson, Generation } from './generations.js';

/** Rows per block: a page (at most 100 rows) spans one or two blocks. */
const BLOCK_ROWS = 128;

/** The byte between two records' JSON in a block, as on a page (http/json-response.ts). */
const COMMA = 0x2c;

interface Block {
  generation: Generation;
  /** Each row's cached JSON when the block was made: the block is current while they are the same objects. */
  cached: readonly CachedJson[];
  /** The rows' JSON, UTF-8, separated by commas. */
  bytes: Buffer;
  /** Where row i's JSON begins in `bytes`; entry [rows] is bytes.length + 1, as if a comma followed the last row. */
  starts: Uint32Array;
  /** The same in UTF-16 units, which the journal counts its limits in. */
  charStarts: Uint32Array;
}

export class ViewBlocks<R> {
  private readonly blocks: Block[] = [];

  /** `rows[start, end)` as pieces of JSON to be joined by commas, and their length in UTF-16 units. */
  range(rows: readonly R[], start: number, end: number, generation: Generation, cachedOf: (row: R) => CachedJson): { pieces: Buffer[]; chars: number } {
    const pieces: Buffer[] = [];
    let chars = 0;
    for (let index = Math.floor(start / BLOCK_ROWS); index * BLOCK_ROWS < end; index++) {
      const block = this.blockOf(rows, index, generation, cachedOf);
      const first = index * BLOCK_ROWS;
      const from = Math.max(start, first) - first;
      const to = Math.min(end, first + block.cached.length) - first;
      if (from >= to) continue;
      pieces.push(block.bytes.subarray(block.starts[from], block.starts[to] - 1));
      chars += block.charStarts[to] - block.charStarts[from] - 1;
    }
    return { pieces, chars };
  }

  private blockOf(rows: readonly R[], index: number, generation: Generation, cachedOf: (row: R) => CachedJson): Block {
    const block = this.blocks[index];
    if (block !== undefined && block.generation === generation) return block;
    const first = index * BLOCK_ROWS;
    const count = Math.min(BLOCK_ROWS, rows.length - first);
    const cached: CachedJson[] = new Array(count);
    let unchanged = block !== undefined && block.cached.length === count;
    for (let i = 0; i < count; i++) {
      cached[i] = cachedOf(rows[first + i]);
      if (unchanged && cached[i] !== block.cached[i]) unchanged = false;
    }
    if (unchanged) {
      block.generation = generation;
      return block;
    }
    const made = makeBlock(cached, generation);
    this.blocks[index] = made;
    return made;
  }
}

function makeBlock(cached: CachedJson[], generation: Generation): Block {
  const starts = new Uint32Array(cached.length + 1);
  const charStarts = new Uint32Array(cached.length + 1);
  for (let i = 0; i < cached.length; i++) {
    starts[i + 1] = starts[i] + cached[i].bytes.length + 1;
    charStarts[i + 1] = charStarts[i] + cached[i].chars + 1;
  }
  // A buffer of its own, not a slice of Node's shared pool: rows point into it for as long as they live.
  const bytes = Buffer.allocUnsafeSlow(Math.max(0, starts[cached.length] - 1));
  for (let i = 0; i < cached.length; i++) {
    const at = starts[i];
    const length = cached[i].bytes.length;
    bytes.set(cached[i].bytes, at);
    if (i + 1 < cached.length) bytes[at + length] = COMMA;
    cached[i].bytes = bytes.subarray(at, at + length);
  }
  return { generation, cached, bytes, starts, charStarts };
}
