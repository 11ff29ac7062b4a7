// A decision on the approval page is recorded before the buyer is sent on: with --data-file, the
// token's change is in FILE.log when the 303 arrives, and a new sandbox on the same files (the first
// never flushed nor closed) reads the token decided.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, WELL_KNOWN } from '../support/sandbox.js';

const WAITING = WELL_KNOWN.paymentServiceTokens.braintree.id;
const dir = mkdtempSync(join(tmpdir(), 'hosted-durable-'));
const opened: TestSandbox[] = [];
afterAll(() => {
  for (const sb of opened) sb.server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the approval page with a data file', () => {
  it('answers the decision once it is in the change log; a new sandbox on the files sees it', async () => {
    const file = join(dir, 'sandbox.json');
    const first = await startTestSandbox({ dataFile: file });
    opened.push(first);
    const form = await first.http.get(`/_sandbox/hosted/approvals/${WAITING}`).expect(200);
    const version = /name="version" value="([^"]+)"/.exec(form.text)?.[1] as string;
    await first.http.post(`/_sandbox/hosted/approvals/${WAITING}`).type('form').send({ decision: 'decline', version }).expect(303);
    const logged = readFileSync(`${file}.log`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(logged.some((change) => JSON.stringify(change).includes(WAITING) && JSON.stringify(change).includes('"declined"'))).toBe(true);

    const second = await startTestSandbox({ dataFile: file });
    opened.push(second);
    const stored = await second.http.get(`/_sandbox/records/payment_service_tokens/${WAITING}?shape=stored`).expect(200);
    expect(stored.body).toMatchObject({ status: 'failed', approval_url: null, approval_outcome: 'declined' });
  });
});
