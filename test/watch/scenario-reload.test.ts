// --watch with --scenarios-dir, through the CLI (GET /gift-cards declares 500, 502 and 504): an
// edited scenario file answers the next request without a restart, active scenarios stay active,
// and a broken edit is logged and ignored.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type RunningCli, startCli, waitFor } from '../cli/support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const scenario = (status: number, name = 'custom') =>
  `name: ${name}\ndescription: Answers ${status}.\noperations: "*"\nsteps:\n  - respond: { status: ${status} }\n`;

describe('hot reload of scenario files', () => {
  const dir = tempDir('sandbox-scn-');
  let cli: RunningCli;

  beforeAll(async () => {
    await ensureBuilt();
    writeFileSync(join(dir, 'custom.yaml'), scenario(500));
    cli = await startCli(['--port', '0', '--watch', '--scenarios-dir', dir, '--auth', 'none']);
  }, 180_000);
  afterAll(() => cli?.stop('SIGKILL'));

  const events = (event: string) =>
    cli
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === event);
  const statusWith = async (name: string) => (await fetch(`${cli.url}/gift-cards`, { headers: { 'x-sandbox-scenario': name } })).status;
  const edit = async (file: string, text: string, event: string) => {
    const before = events(event).length;
    writeFileSync(join(dir, file), text);
    return waitFor(() => events(event)[before], `a ${event} log line`);
  };

  it('watches the folder and answers with the file as loaded at boot', async () => {
    expect(cli.stderr()).toContain(`  watch     reloading on change: ${dir}\n`);
    expect(await statusWith('custom')).toBe(500);
  });

  it('answers with the edited file without a restart', async () => {
    const reloaded = await edit('custom.yaml', scenario(502), 'scenarios-reloaded');
    expect(reloaded).toMatchObject({ level: 'info', scenarios: ['custom'] });
    expect(await statusWith('custom')).toBe(502);
  });

  it('adds a new file and keeps active scenarios active', async () => {
    const put = await fetch(`${cli.url}/_sandbox/scenarios/active`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scenarios: ['custom'] }),
    });
    expect(put.status).toBe(200);
    expect((await fetch(`${cli.url}/gift-cards`)).status).toBe(502);
    const reloaded = await edit('second.yaml', scenario(504, 'second'), 'scenarios-reloaded');
    expect(reloaded.scenarios).toEqual(['custom', 'second']);
    expect(await statusWith('second')).toBe(504);
    const active = (await (await fetch(`${cli.url}/_sandbox/scenarios/active`)).json()) as { active: unknown[] };
    expect(active.active).toEqual([{ merchant_account_id: null, scenarios: ['custom'] }]);
    expect((await fetch(`${cli.url}/gift-cards`)).status).toBe(502);
  });

  it.each([
    ['YAML that does not parse', 'name: [custom\n'],
    ['an unknown operation', 'name: custom\ndescription: x\noperations: [noSuchOperation]\nsteps:\n  - respond: { status: 500 }\n'],
  ])('ignores a broken edit (%s), keeping the last good version', async (_name, text) => {
    const failed = await edit('custom.yaml', text, 'scenarios-reload-failed');
    expect(failed.level).toBe('warn');
    expect(String(failed.msg)).toMatch(/^scenario edit ignored, keeping the last good version: invalid scenario file/);
    expect(await statusWith('custom')).toBe(502);
    expect(await statusWith('second')).toBe(504);
  });
});
