// The records record mode saw in the upstream's answers: every object with a string `type` and `id`,
// at any depth (a transaction's expanded buyer is a buyer too), the newest answer's copy of each,
// whole: its references stay as the upstream gave them, so the data file made of them (admin/
// recording.ts) keeps a payment method pointing at its buyer.
import { redactFields } from '../journal/redact.js';

/** Records kept at most: a recording session is a test run, not a copy of the service. */
const MAX_RECORDS = 100_000;

export class SeenRecords {
  private readonly records = new Map<string, Record<string, unknown>>();

  /** Takes every record found in an answer body (private keys and tokens redacted first). */
  collect(body: unknown): void {
    const stack: unknown[] = [redactFields(body, true)];
    while (stack.length) {
      const value = stack.pop();
      if (!value || typeof value !== 'object') continue;
      if (Array.isArray(value)) {
        stack.push(...value);
        continue;
      }
      const record = value as Record<string, unknown>;
      if (typeof record.type === 'string' && typeof record.id === 'string') this.keep(record);
      for (const key in record) if (record[key] && typeof record[key] === 'object') stack.push(record[key]);
    }
  }

  private keep(record: Record<string, unknown>): void {
    const key = `${record.type}\u0000${record.id}`;
    if (!this.records.has(key) && this.records.size >= MAX_RECORDS) return;
    this.records.delete(key); // the newest copy last
    this.records.set(key, record);
  }

  /** Oldest first. */
  list(): Record<string, unknown>[] {
    return [...this.records.values()];
  }

  get size(): number {
    return this.records.size;
  }
}
