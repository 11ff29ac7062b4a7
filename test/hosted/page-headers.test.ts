// The hosted pages' headers are what docs/hosted-flows.md says they are (issue 36 part 5: the docs
// said referrer-policy no-referrer while the pages sent same-origin): every `name: value` the
// paragraph names is read from it and compared with the answers of the approval and completion pages.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const DOC = readFileSync(join(import.meta.dirname, '../../docs/hosted-flows.md'), 'utf8');

/** The headers the paragraph "The page's answers carry ..." names, as `name: value` in backticks. */
function documentedHeaders(): Record<string, string> {
  const start = DOC.indexOf("The page's answers carry");
  const paragraph = DOC.slice(start, DOC.indexOf('\n\n', start));
  return Object.fromEntries([...paragraph.matchAll(/`([a-z-]+): ([^`]+)`/g)].map((m) => [m[1], m[2]]));
}

describe('the hosted pages’ headers against docs/hosted-flows.md', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb.server.close());

  it('sends every header the docs name, with the value they give', async () => {
    const documented = documentedHeaders();
    expect(Object.keys(documented).sort()).toEqual(['cache-control', 'content-security-policy', 'referrer-policy', 'x-frame-options']);
    const transaction = (await sb.http.get('/_sandbox/records/transactions?limit=1')).body.items[0].id;
    const token = (await sb.http.get('/_sandbox/records/payment_service_tokens?limit=1')).body.items[0].id;
    for (const path of [`/_sandbox/hosted/approvals/${token}`, `/_sandbox/hosted/transactions/${transaction}/complete`]) {
      const res = await sb.http.get(path);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      for (const [name, value] of Object.entries(documented)) expect([path, name, res.headers[name]]).toEqual([path, name, value]);
    }
  });
});
