// A FIFO of byte records in one growable circular Buffer, oldest dropped first when a new record
// needs the room. The journal keeps its entries here rather than as objects: thousands of
// mid-lived entries on the JS heap cost the request path more in garbage collection (each is
// promoted, then dies in the old generation) than recording them did, and the heap grows with them.
// Here they cost one Buffer whatever their number, and the byte budget is what is really held.

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

  constructor(private readonly budgetBytes: number) {}

  get count(): number {
    return this.offsets.length - this.first;
  }

  /** Bytes allocated (at most the budget, or one record when a single record is larger). */
  get allocatedBytes(): number {
    return this.buf.length;
  }

  /** Room for `length` bytes at the newest end, dropping the oldest records as needed; returns where to write. */
  reserve(length: number): { buffer: Buffer; offset: number } {
    if (this.buf.length < length || (this.buf.length < this.budgetBytes && this.freeOffset(length) === null)) this.grow(length);
    const offset = this.placeFor(length);
    this.offsets.push(offset);
    this.lengths.push(length);
    this.tail = offset + length;
    return { buffer: this.buf, offset };
  }

  /** The `index`-th live record (0 is the oldest). Valid until the next reserve(). */
  record(index: number): Buffer {
    const i = this.first + index;
    return this.buf.subarray(this.offsets[i], this.offsets[i] + this.lengths[i]);
  }

  dropOldest(): void {
    this.first++;
    if (this.first > 1024 && this.first * 2 > this.offsets.length) {
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
    if (release) this.buf = Buffer.alloc(0);
  }

  /** Live records sit in [oldest, tail) or, once wrapped, in [oldest, end) and [0, tail). */
  private freeOffset(length: number): number | null {
    if (this.count === 0) return 0;
    const oldest = this.offsets[this.first];
    if (oldest < this.tail) {
      if (this.tail + length <= this.buf.length) return this.tail;
      return length <= oldest ? 0 : null;
    }
    return this.tail + length <= oldest ? this.tail : null;
  }

  private placeFor(length: number): number {
    for (;;) {
      const offset = this.freeOffset(length);
      if (offset !== null) return offset;
      this.dropOldest();
    }
  }

  /** Doubles (up to the budget, or to one record's size), copying the live records to the front in order. */
  private grow(length: number): void {
    let size = Math.max(this.buf.length * 2, INITIAL_BYTES);
    while (size < length) size *= 2;
    size = Math.max(Math.min(size, this.budgetBytes), length);
    const next = Buffer.allocUnsafeSlow(size);
    let at = 0;
    const keep = this.count;
    const offsets: number[] = [];
    const lengths: number[] = [];
    // Newest records first: when even the budget cannot hold them all, the oldest are the ones left out.
    let kept = 0;
    let bytes = 0;
    for (let i = keep - 1; i >= 0; i--) {
      if (bytes + this.lengths[this.first + i] + length > size) break;
      bytes += this.lengths[this.first + i];
      kept++;
    }
    for (let i = keep - kept; i < keep; i++) {
      const from = this.offsets[this.first + i];
      const len = this.lengths[this.first + i];
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
