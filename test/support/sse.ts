// Server-sent events read from a response body, for tests of the live journal stream.
import type { IncomingMessage } from 'node:http';

export interface SseEvent {
  event: string;
  data: any;
}

/** Reads server-sent events from a response body, one at a time. */
export class EventReader {
  private buffer = '';
  private readonly queue: SseEvent[] = [];
  private waiting: (() => void) | null = null;
  ended = false;

  constructor(res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf('\n\n'); end >= 0; end = this.buffer.indexOf('\n\n')) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event) this.queue.push({ event, data: data === undefined ? undefined : JSON.parse(data) });
      }
      this.waiting?.();
    });
    res.on('end', () => {
      this.ended = true;
      this.waiting?.();
    });
  }

  /** The next event, waiting at most `ms` (the sandbox sends within a tenth of a second). */
  async next(ms = 5000): Promise<SseEvent> {
    const deadline = Date.now() + ms;
    while (!this.queue.length) {
      if (this.ended) throw new Error('the stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${ms} ms`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, left);
      });
      this.waiting = null;
    }
    return this.queue.shift() as SseEvent;
  }

  /** Whatever arrives within `ms`. */
  async drain(ms: number): Promise<SseEvent[]> {
    const got: SseEvent[] = [];
    for (;;) {
      try {
        got.push(await this.next(ms));
      } catch {
        return got;
      }
    }
  }
}
