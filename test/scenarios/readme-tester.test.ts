// The curl lines for a tester (docs/scenarios.md, "For a tester: no header needed"), run word for word with
// bash and curl against a running sandbox (its address put in place of 127.0.0.1:4010), and what
// they print checked against the comments beside them.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/spec/load-spec.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';

const run = promisify(execFile);

/** The first sh block after the tester heading. */
function testerBlock(): string {
  const guide = readFileSync(join(packageRoot(), 'docs', 'scenarios.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## For a tester: no header needed'));
  const start = section.indexOf('```sh\n') + '```sh\n'.length;
  return section.slice(start, section.indexOf('\n```', start));
}

describe('docs/scenarios.md for a tester', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ logLevel: 'silent', validateResponses: true });
  });
  afterAll(() => sandbox.close());

  it('does what its comments say, as written', async () => {
    const script = testerBlock().replaceAll('http://127.0.0.1:4010', sandbox.url);
    expect(script).toContain('"calls": [5]');
    const { stdout } = await run('bash', ['-e', '-c', script], { env: { ...process.env, TOKEN: await sandbox.token() }, timeout: 60_000 });
    const lines = stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual(['201', '200 200 200 200 500 200 ']);
    // The slow call: at least 1.5 s late (a loaded machine may add to it; the sandbox never takes less).
    expect(Number(lines[2])).toBeGreaterThanOrEqual(1.5);
    expect(lines.slice(3, 6)).toEqual(['500 500 ', '500 201 ', '429']);
    expect(lines[6]).toBe('"counters":{"matched":6,"answered":1');
    expect(lines[7]).toBe('"status":500');
    expect(lines[8]).toBe('204');
    const listed = JSON.parse(lines[9]);
    const defined = listed.items.filter((s: { source: string }) => s.source === 'defined').map((s: { name: string }) => s.name);
    expect(defined).toEqual(['fail-me', 'fifth-list-fails', 'lost-report', 'reports-fail', 'storm']);
    // What the lines without output set up: every report fails, and the lost answer.
    const token = await sandbox.token();
    const report = (name: string) =>
      fetch(`${sandbox.url}/reports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-sandbox-scenario': name },
        body: JSON.stringify({ name: 'x', schedule: 'once', schedule_enabled: false, spec: { model: 'transactions', params: {} } }),
      });
    expect((await report('reports-fail')).status).toBe(500);
    expect((await report('lost-report')).status).toBe(504);
    expect((await report('lost-report')).status).toBe(201);
  });
});
