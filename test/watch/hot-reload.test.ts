// --watch with --fixtures-dir, through the CLI: an edit of a fixtures file shows after the next
// reset without a restart; a broken edit is logged and ignored, keeping the last good version.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { ensureBuilt, type RunningCli, startCli, waitFor } from '../cli/support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const buyerId = WELL_KNOWN.buyers.default.id;
const extraId = 'b9999999-0000-4000-8000-000000000001';

describe('hot reload of fixtures', () => {
  const dir = tempDir('sandbox-watch-');
  const buyersFile = join(dir, 'buyers.json');
  let cli: RunningCli;

  beforeAll(async () => {
    await ensureBuilt();
    writeFileSync(buyersFile, JSON.stringify([{ id: buyerId, display_name: 'Boot Name' }]));
    cli = await startCli(['--port', '0', '--watch', '--fixtures-dir', dir, '--log-level', 'info']);
  }, 180_000);
  afterAll(() => cli?.stop('SIGKILL'));

  const buyer = async (id: string) => {
    const res = await fetch(`${cli.url}/_sandbox/records/buyers/${id}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const reset = async () => expect((await fetch(`${cli.url}/_sandbox/reset`, { method: 'POST' })).status).toBe(200);
  const logEvents = (event: string) =>
    cli
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === event);

  it('lists the watched folder in the banner and merges the file at boot', async () => {
    expect(cli.stderr()).toContain(`  watch     reloading on change: ${dir}\n`);
    expect(cli.stderr()).toContain(`  fixtures  generated from the seed, with overrides from ${dir}\n`);
    const { status, body } = await buyer(buyerId);
    expect(status).toBe(200);
    expect(body.display_name).toBe('Boot Name');
    // Fields the file does not name keep their generated values.
    expect(body.external_identifier).toBe(WELL_KNOWN.buyers.default.externalIdentifier);
  });

  it('applies an edit on the next reset, without a restart', async () => {
    const reloads = logEvents('fixtures-reloaded').length;
    const template = (await buyer(buyerId)).body;
    writeFileSync(
      buyersFile,
      JSON.stringify([
        { id: buyerId, display_name: 'Edited Name' },
        { ...template, id: extraId, display_name: 'Added Buyer' },
      ]),
    );
    await waitFor(() => (logEvents('fixtures-reloaded').length > reloads ? true : undefined), 'the reload log line');
    // Fixtures seed namespaces: the live state is unchanged until a reset.
    expect((await buyer(buyerId)).body.display_name).toBe('Boot Name');
    await reset();
    expect((await buyer(buyerId)).body.display_name).toBe('Edited Name');
    expect((await buyer(extraId)).body).toMatchObject({ id: extraId, display_name: 'Added Buyer', merchant_account_id: 'default' });
    expect(logEvents('fixtures-reloaded').at(-1)).toMatchObject({ level: 'info', files: [buyersFile] });
  });

  it.each([
    ['invalid JSON', '[{ "id": '],
    ['an item without id', JSON.stringify([{ display_name: 'No id' }])],
    ['an object instead of an array', JSON.stringify({ id: buyerId })],
  ])('ignores a broken edit (%s) and keeps the last good version', async (_name, text) => {
    const failures = logEvents('fixtures-reload-failed').length;
    writeFileSync(buyersFile, text);
    const failure = await waitFor(() => logEvents('fixtures-reload-failed')[failures], 'the reload failure log line');
    expect(failure.level).toBe('warn');
    expect(String(failure.msg)).toMatch(
      new RegExp(`^fixtures edit ignored, keeping the last good version: fixtures file ${buyersFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    );
    await reset();
    expect((await buyer(buyerId)).body.display_name).toBe('Edited Name');
    expect((await buyer(extraId)).status).toBe(200);
  });

  it('takes the next good edit after a broken one, and a new collection file', async () => {
    const reloads = logEvents('fixtures-reloaded').length;
    writeFileSync(buyersFile, JSON.stringify([{ id: buyerId, display_name: 'Fixed Name' }]));
    writeFileSync(join(dir, 'card-scheme-definitions.json'), JSON.stringify([{ id: 'visa', display_name: 'VISA (edited)' }]));
    await waitFor(() => (logEvents('fixtures-reloaded').length > reloads ? true : undefined), 'the reload log line');
    await waitFor(async () => {
      await reset();
      const scheme = (await (await fetch(`${cli.url}/_sandbox/records/card_scheme_definitions/visa`)).json()) as { display_name: string };
      return scheme.display_name === 'VISA (edited)' ? true : undefined;
    }, 'both files to be reloaded');
    expect((await buyer(buyerId)).body.display_name).toBe('Fixed Name');
    // The added buyer came from the file only: gone with the edit that dropped it.
    expect((await buyer(extraId)).status).toBe(404);
  });
});
