// Buffers for large answers (list pages, about 128 KB), used again once their response has been
// written. A fresh buffer per list call made malloc hand out and take back about 180 MB a second
// under load: glibc kept about 30 MB of it as resident memory afterwards, and V8 counts every such
// buffer as external memory, which brings garbage collections forward.
//
// A buffer goes back to the pool only when Node has handed every byte of its response to the
// operating system (the response's 'finish'); one whose response never finishes (a dropped
// connection, an in-process request without a socket) is simply left to the garbage collector.

/** Sizes are rounded up to this, so a buffer serves any page of about the same size. */
const GRAIN = 16 * 1024;

export class BufferPool {
  private readonly free: Buffer<ArrayBuffer>[] = [];

  constructor(
    /** Buffers kept for reuse at most: one per connection in flight is plenty. */
    private readonly keep = 64,
  ) {}

  get kept(): number {
    return this.free.length;
  }

  /** `size` bytes, uninitialized, in a buffer of their own (never a slice of Node's shared pool). */
  take(size: number): Buffer<ArrayBuffer> {
    for (let i = this.free.length - 1; i >= 0; i--) {
      const whole = this.free[i];
      if (whole.length >= size && whole.length < 2 * size + GRAIN) {
        this.free[i] = this.free[this.free.length - 1];
        this.free.pop();
        return whole.subarray(0, size);
      }
    }
    return Buffer.allocUnsafeSlow(Math.ceil(size / GRAIN) * GRAIN).subarray(0, size);
  }

  /** `bytes` (from take()) may be written over from now on. */
  give(bytes: Buffer<ArrayBuffer>): void {
    if (this.free.length >= this.keep) return;
    this.free.push(Buffer.from(bytes.buffer, 0, bytes.buffer.byteLength));
  }
}
