// A data file that is not what it should be is never loaded: the CLI (a real process) exits 1 with
// one line naming the file, the record and the problem, and leaves the file as it was. An empty or
// blank file is what a truncated one looks like, so it is refused too; only a missing file starts
// from the fixtures. Every record passes the checks of a snapshot import, in FILE and in its log.
// Each kind of problem is checked where the sandbox is built, in this process; the CLI's own part
// (exit 1, that message as its one line) by processes below: a process costs 0.3 s of CPU to start.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSandbox } from '../../src/sandbox.js';
import { ensureBuilt, runCli, startCli } from '../cli/support/cli.js';
import { WELL_KNOWN } from '../support/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sound data file's content, as the sandbox writes it. */
let sound: any;
beforeAll(async () => {
  await ensureBuilt();
  const file = join(dir, 'sound.json');
  const deps = await buildSandbox({ dataFile: file, logLevel: 'silent' });
  await deps.namespaces.get().store.flush();
  sound = JSON.parse(readFileSync(file, 'utf8'));
}, 180_000);

/** The sound file with `change` applied to a copy. */
function variant(change: (data: any) => void): string {
  const data = structuredClone(sound);
  change(data);
  return JSON.stringify(data);
}

/** Why the sandbox refuses to start on `file` (building it here, as the CLI's start does); fails the test if it starts. */
async function refusal(file: string): Promise<string> {
  const error = await buildSandbox({ dataFile: file, logLevel: 'silent' }).then(
    () => null,
    (err: Error) => err,
  );
  expect(error, `the sandbox started on ${file}`).toBeInstanceOf(Error);
  return (error as Error).message;
}

const MISSING = '0a0a0a0a-0000-4000-8000-000000000001';

const buyerIndex = () => sound.collections.buyers.findIndex((b: any) => b.id === WELL_KNOWN.buyers.default.id);

describe('a data file that is not what it should be', () => {
  const cases: Array<[name: string, content: () => string, message: (file: string) => string]> = [
    [
      'an empty file (0 bytes)',
      () => '',
      (f) =>
        `the data file ${f} is empty (0 bytes), as a file cut short or emptied would be; the sandbox never writes it empty. Restore it, or remove it (and ${f}.log) to start from the fixtures; the sandbox does not reset it silently.`,
    ],
    ['a file of whitespace only', () => ' \n\t\n', (f) => `the data file ${f} is empty (4 bytes), as a file cut short or emptied would be;`],
    ['a file cut short', () => JSON.stringify(sound).slice(0, 5000), (f) => `the data file ${f} cannot be loaded: `],
    [
      'a collection that is not an array',
      () => variant((d) => (d.collections.buyers = 'oops')),
      (f) => `the data file ${f}: collections.buyers must be an array of records, not string "oops". Fix or remove it; the sandbox does not reset it silently.`,
    ],
    [
      'a record with a number id',
      () => variant((d) => d.collections.buyers.push({ id: 5 })),
      (f) =>
        `the data file ${f}: buyers[${sound.collections.buyers.length}] (id 5): field 'reconciliation_id' is required; field 'merchant_account_id' is required; field 'created_at' is required; and 6 more. Fix`,
    ],
    [
      'a record with a field of the wrong type',
      () => variant((d) => (d.collections.buyers[buyerIndex()].display_name = 5)),
      (f) =>
        `the data file ${f}: buyers[${buyerIndex()}] (id "${WELL_KNOWN.buyers.default.id}"): field 'display_name' must be of type string or null. Fix or remove it;`,
    ],
    [
      'two records with a problem each',
      () =>
        variant((d) => {
          d.collections.gift_cards[2].last4 = '12x4';
          delete d.collections.roles[0].scopes;
        }),
      (f) => `the data file ${f}: roles[0] (id "${sound.collections.roles[0].id}"): field 'scopes' is required (and 1 more record with problems).`,
    ],
    [
      'a record that is not an object',
      () => variant((d) => (d.collections.webhook_subscriptions[1] = [1, 2])),
      (f) => `the data file ${f}: webhook_subscriptions[1] must be a record (a JSON object), not an array.`,
    ],
    [
      'the same id twice in a collection',
      () => variant((d) => d.collections.webhook_subscriptions.push(structuredClone(d.collections.webhook_subscriptions[0]))),
      (f) =>
        `the data file ${f}: webhook_subscriptions[${sound.collections.webhook_subscriptions.length}] (id "${sound.collections.webhook_subscriptions[0].id}"): the same id as webhook_subscriptions[0]; ids are unique in a collection.`,
    ],
    [
      'an unknown collection',
      () => variant((d) => (d.collections.dragons = [])),
      (f) => `the data file ${f}: collections has "dragons", which is not a collection name (merchant_accounts, roles,`,
    ],
    [
      'an unknown top-level key',
      () => variant((d) => (d.extra = true)),
      (f) => `the data file ${f}: unknown top-level key "extra" (a data file holds schema_version, seed, collections and log_seq).`,
    ],
    ['a seed that is not an integer', () => variant((d) => (d.seed = '4010')), (f) => `the data file ${f}: seed must be an integer, not string "4010".`],
    [
      'a log_seq that is not a count',
      () => variant((d) => (d.log_seq = -1)),
      (f) => `the data file ${f}: log_seq must be an integer of 0 or more, not number -1.`,
    ],
    ['JSON of another shape', () => JSON.stringify({ hello: 'world' }), (f) => `the data file ${f} is not a payments-sandbox data file`],
    [
      'a gift card naming a missing buyer',
      () => variant((d) => (d.collections.gift_cards[2].buyer_id = MISSING)),
      (f) =>
        `the data file ${f}: gift_cards[2] (id "${sound.collections.gift_cards[2].id}"): buyer_id names buyers record "${MISSING}", which is not there. Fix or remove it; the sandbox does not reset it silently.`,
    ],
    [
      'two references naming missing records',
      () =>
        variant((d) => {
          d.collections.gift_cards[0].buyer_id = MISSING;
          d.collections.api_key_pairs[0].merchant_account_ids = ['default', 'nowhere'];
        }),
      (f) =>
        `the data file ${f}: api_key_pairs[0] (id "${sound.collections.api_key_pairs[0].id}"): merchant_account_ids.1 names merchant_accounts record "nowhere", which is not there (and 1 more reference naming missing records). Fix`,
    ],
  ];

  it.each(cases)('refuses %s: one message naming the file and the problem, the file untouched', async (name, content, message) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.json`);
    const text = content();
    writeFileSync(file, text);
    const refused = await refusal(file);
    expect(refused.split('\n')).toHaveLength(1);
    expect(refused.slice(0, message(file).length)).toBe(message(file));
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(`${file}.log`)).toBe(false);
  });

  it('exits 1 from the CLI with that message as its one line, and nothing on stdout', async () => {
    const file = join(dir, 'cli-refusal.json');
    const [name, content] = cases[5];
    expect(name).toBe('a record with a field of the wrong type');
    const text = content();
    writeFileSync(file, text);
    const refused = await refusal(file);
    const result = await runCli(['--port', '0', '--log-level', 'warn', '--data-file', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`payments-sandbox: cannot start: ${refused}\n`);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(`${file}.log`)).toBe(false);
  });

  it('refuses a log line whose record fails the checks, naming the log, the line and the record', async () => {
    const file = join(dir, 'bad-log-record.json');
    writeFileSync(file, JSON.stringify(sound));
    const buyer = { ...sound.collections.buyers[buyerIndex()], display_name: 'Fine' };
    const bad = { ...buyer, billing_details: 'not an object' };
    const log = `${JSON.stringify({ c: 'buyers', put: buyer })}\n${JSON.stringify({ c: 'buyers', put: bad })}\n`;
    writeFileSync(`${file}.log`, log);
    const result = await runCli(['--port', '0', '--log-level', 'warn', '--data-file', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `payments-sandbox: cannot start: the change log ${file}.log is corrupt at line 2: the buyers record "${buyer.id}": field 'billing_details' must be of type object. Only a torn last line (a crash mid-write) is skipped; fix or remove that line, or remove ${file}.log to lose the changes since the last snapshot; the sandbox does not reset it silently.\n`,
    );
    expect(readFileSync(`${file}.log`, 'utf8')).toBe(log);
  });

  it('refuses a log that leaves a record naming a missing one, naming the file, the record and the field', async () => {
    const file = join(dir, 'dangling-by-log.json');
    writeFileSync(file, JSON.stringify(sound));
    const card = { ...sound.collections.gift_cards[0], id: '0b0b0b0b-0000-4000-8000-000000000002', buyer_id: MISSING };
    const log = `${JSON.stringify({ c: 'gift_cards', ins: card })}\n`;
    writeFileSync(`${file}.log`, log);
    const result = await runCli(['--port', '0', '--log-level', 'warn', '--data-file', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `payments-sandbox: cannot start: the data file ${file} (with the 1 change of ${file}.log replayed): gift_cards[${sound.collections.gift_cards.length}] (id "${card.id}"): buyer_id names buyers record "${MISSING}", which is not there. Fix or remove it; the sandbox does not reset it silently.\n`,
    );
    expect(readFileSync(`${file}.log`, 'utf8')).toBe(log);
  });

  it('refuses a data file, or a change log line, that is not UTF-8, naming the line and the byte offset', async () => {
    const file = join(dir, 'not-utf8.json');
    const text = Buffer.from(variant((d) => (d.collections.buyers[buyerIndex()].display_name = 'AB')));
    const at = text.indexOf('"AB"') + 1;
    text[at] = 0xff; // a byte no UTF-8 character starts or continues with
    writeFileSync(file, text);
    const result = await runCli(['--port', '0', '--log-level', 'warn', '--data-file', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `payments-sandbox: cannot start: the data file ${file} is not UTF-8: at line 1, the byte at offset ${at} (0xff) is not the start of a well-formed UTF-8 character. Fix or remove it; the sandbox does not reset it silently.\n`,
    );
    expect(readFileSync(file).equals(text)).toBe(true);

    // In the log: refused on a whole line; on a torn last line (a crash mid-character) that line is skipped as before.
    const logged = join(dir, 'log-not-utf8.json');
    writeFileSync(logged, JSON.stringify(sound));
    const buyer = sound.collections.buyers[buyerIndex()];
    const line = Buffer.from(`${JSON.stringify({ c: 'buyers', put: { ...buyer, display_name: 'Zoë' } })}\n`);
    const bad = Buffer.from(line);
    bad[bad.indexOf('Zo') + 3] = 0xc3; // ë's first byte twice: the second cannot continue the first
    writeFileSync(`${logged}.log`, Buffer.concat([line, bad]));
    const refused = await runCli(['--port', '0', '--log-level', 'warn', '--data-file', logged]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `payments-sandbox: cannot start: the change log ${logged}.log is not UTF-8: at line 2, the byte at offset ${line.length + bad.indexOf('Zo') + 2} (0xc3) is not the start of a well-formed UTF-8 character. Fix or remove it; the sandbox does not reset it silently.\n`,
    );
    writeFileSync(`${logged}.log`, Buffer.concat([line, line.subarray(0, line.indexOf('Zo') + 3)])); // cut inside ë
    const started = await startCli(['--port', '0', '--log-level', 'warn', '--data-file', logged]);
    const served = await (await fetch(`${started.url}/_sandbox/records/buyers/${buyer.id}`)).json();
    expect(served.display_name).toBe('Zoë');
    expect(await started.stop('SIGTERM')).toBe(0);
  }, 60_000);

  it('starts from the fixtures when the file is missing, and loads the file it wrote', async () => {
    const file = join(dir, 'fresh.json');
    const first = await startCli(['--port', '0', '--log-level', 'warn', '--data-file', file]);
    expect((await fetch(`${first.url}/_sandbox/health`)).status).toBe(200);
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).collections.buyers).toHaveLength(sound.collections.buyers.length);
    const second = await startCli(['--port', '0', '--log-level', 'warn', '--data-file', file]);
    expect((await fetch(`${second.url}/_sandbox/records/buyers/${WELL_KNOWN.buyers.default.id}`)).status).toBe(200);
    expect(await second.stop('SIGTERM')).toBe(0);
  });
});
