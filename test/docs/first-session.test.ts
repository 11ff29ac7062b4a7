// The front page's first session with curl, run as written by bash against a running sandbox (its
// address put in place of 127.0.0.1:4010; the sandbox started here stands for `npm start &`), each
// command's output checked: the last one shows the execution of the "Nightly" report it promises.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { block, ROOT } from './doc-pages.js';

const run = promisify(execFile);
const CUT = '-----8<-----';

/** The block's commands (continuation lines joined), without comments and blank lines. */
function commands(script: string): string[] {
  return script
    .replaceAll('\\\n', ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

describe('README: a first session with curl', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ logLevel: 'silent', validateResponses: true });
  });
  afterAll(() => sandbox.close());

  it('runs as written, and its last line shows the Nightly report execution', { timeout: 90_000 }, async () => {
    const lines = commands(block('README.md', '## A first session with curl', 'sh'));
    expect(lines[0]).toMatch(/^npm start &/);
    expect(lines[1]).toMatch(/^export TOKEN=\$\(npx payments-sandbox token\)/);
    // npm start is the sandbox above; every other line runs as written, its output cut from the next one's.
    const script = lines
      .slice(1)
      .map((line) => `${line.replaceAll('http://127.0.0.1:4010', sandbox.url)}\necho; echo '${CUT}'`)
      .join('\n');
    const { stdout } = await run('bash', ['-e', '-c', script], { cwd: ROOT, timeout: 80_000 });
    const outputs = stdout.split(`${CUT}\n`).map((out) => out.trim());
    expect(outputs).toHaveLength(lines.length - 1 + 1); // one output per command, and the empty rest
    const [token, connections, buyer, giftCards, rateLimited, report, clock, executions] = outputs;
    expect(token).toBe('');
    expect(JSON.parse(connections).items.length).toBeGreaterThan(0);
    expect(JSON.parse(buyer)).toMatchObject({ id: 'b0000000-0000-4000-8000-000000000001', display_name: 'Ada Lovelace' });
    expect(JSON.parse(giftCards).items).toHaveLength(5);
    expect(rateLimited).toMatch(/^HTTP\/1\.1 429/);
    expect(rateLimited.toLowerCase()).toContain('retry-after: 1');
    const nightly = JSON.parse(report);
    expect(nightly).toMatchObject({ type: 'report', name: 'Nightly', schedule: 'daily' });
    expect(JSON.parse(clock).frozen).toBe(false);
    // A day of sandbox time later the Nightly report has run once: its execution is among the default
    // account's three newest (the fixtures' daily report runs at the same midnight, their monthly one on the 1st).
    const listed = JSON.parse(executions).items as Array<{ type: string; status: string; report: { id: string; name: string } }>;
    expect(listed).toHaveLength(3);
    const ran = listed.filter((execution) => execution.report.id === nightly.id);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatchObject({ type: 'report-execution', report: { id: nightly.id, name: 'Nightly' } });
    expect(['dispatched', 'processing', 'succeeded']).toContain(ran[0].status);
  });
});
