// A FIFO of byte records in one growable circular Buffer, oldest dropped first when a new record
// would pass the byte budget. The journal keeps its entries here rather than as objects: thousands of
// mid-lived entries on the JS heap cost the request path more in garbage collection (each is
// promoted, then dies in the old generation) than recording them did, and the heap grows with them.
// Here they cost one Buffer whatever their number.
//
// The budget counts the records' bytes, not the buffer's: a record is dropped only when the live
// records plus the new one would really pass it. Records of mixed sizes leave gaps where the ring
// wraps, so the buffer may hold up to one largest record more than the budget; with that room a new
// record always finds a contiguous place once the budget is respected (no copying at steady state).

// Small to start: a namespace used for a handful of requests (most CI namespaces) holds a few KB, not 64 KB.
const INITIAL_BYTES = 8 * 1024;

export class ByteRing {
  private buf: Buffer = Buffer.alloc(0);
  /** Offsets and lengths of the live records, oldest first from `first`. */
  private offsets: number[] = [];
  private lengths: number[] = [];
  private first = 0;
  /** Where the next record goes when it fits there. */
  private tail = 0;
  private liveBytes = 0;
  /** The largest record stored since the buffer was last given back: the slack the buffer keeps beyond the budget. */
  private largest = 0;

  constructor(
    private readonly budgetBytes: number,
    /** Dropped slots at the front of offsets/lengths past which both are cut back (tests make it small, to reach it). */
    private readonly compactAfter = 1024,
  ) {}

  get count(): number {
    return this.offsets.length - this.first;
  }

  /** Bytes of the live records (at most the budget, or one record when a single record is larger). */
  get bytes(): number {
    return this.liveBytes;
  }

  /** Bytes allocated: at most the budget plus the largest record held since the ring was emptied. */
  get allocatedBytes(): number {
    return this.buf.length;
  }

  /** Room for `length` bytes at the newest end, dropping the oldest records only as the budget needs; returns where to write. */
  reserve(length: number): { buffer: Buffer; offset: number } {
    while (this.count > 0 && this.liveBytes + length > this.budgetBytes) this.dropOldest();
    if (length > this.largest) this.largest = length;
    let offset = this.freeOffset(length);
    if (offset === null) {
      this.grow(length);
      offset = this.tail;
    }
    this.offsets.push(offset);
    this.lengths.push(length);
    this.tail = offset + length;
    this.liveBytes += length;
    return { buffer: this.buf, offset };
  }

  /** The `index`-th live record (0 is the oldest). Valid until the next reserve(). */
  record(index: number): Buffer {
    const i = this.first + index;
    return this.buf.subarray(this.offsets[i], this.offsets[i] + this.lengths[i]);
  }

  dropOldest(): void {
    this.liveBytes -= this.lengths[this.first];
    this.first++;
    if (this.first > this.compactAfter && this.first * 2 > this.offsets.length) {
      this.offsets = this.offsets.slice(this.first);
      this.lengths = this.lengths.slice(this.first);
      this.first = 0;
    }
    if (this.count === 0) this.clear(false);
  }

  /** `release`: give the memory back too (an emptied journal). */
  clear(release = true): void {
    this.offsets = [];
    this.lengths = [];
    this.first = 0;
    this.tail = 0;
    this.liveBytes = 0;
    if (!release) return;
    this.buf = Buffer.alloc(0);
    this.largest = 0;
  }

  /** Live records sit in [oldest, tail) or, once wrapped, in [oldest, end) and [0, tail). */
  private freeOffset(length: number): number | null {
    if (this.count === 0) return length <= this.buf.length ? 0 : null;
    const oldest = this.offsets[this.first];
    if (oldest < this.tail) {
      if (this.tail + length <= this.buf.length) return this.tail;
      return length <= oldest ? 0 : null;
    }
    return this.tail + length <= oldest ? this.tail : null;
  }

  /**
   * A larger buffer (doubling while below the budget, then the budget plus the largest record:
   * enough that a record within the budget always has a contiguous place), with the live records
   * copied to its front in order and the free room after them.
   */
  private grow(length: number): void {
    const needed = this.liveBytes + length;
    let size = Math.max(this.buf.length * 2, INITIAL_BYTES);
    while (size < needed) size *= 2;
    size = Math.max(Math.min(size, this.budgetBytes + this.largest), needed, this.buf.length);
    const next = Buffer.allocUnsafeSlow(size);
    const offsets: number[] = [];
    const lengths: number[] = [];
    let at = 0;
    for (let i = this.first; i < this.offsets.length; i++) {
      const from = this.offsets[i];
      const len = this.lengths[i];
      this.buf.copy(next, at, from, from + len);
      offsets.push(at);
      lengths.push(len);
      at += len;
    }
    this.buf = next;
    this.offsets = offsets;
    this.lengths = lengths;
    this.first = 0;
    this.tail = at;
  }
}
