// The fixtures-folder loader (shape checks, merge by id) and the debounced folder watcher.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFixtures } from '../../fixtures/build-fixtures.js';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { applyFixtureOverrides, collectionOfFile, FixtureSource, loadFixtureOverrides, parseFixtureFile } from '../../src/store/fixture-overrides.js';
import { watchFolder } from '../../src/watch/watch-folder.js';
import { waitFor } from '../cli/support/cli.js';
import { tempDirWith } from '../support/temp-dir.js';

const folder = (files: Record<string, string>) => tempDirWith('sandbox-fx-', files);

describe('fixture files', () => {
  it('names collections by snake_case or kebab-case file names', () => {
    expect(collectionOfFile('/x/buyers.json')).toBe('buyers');
    expect(collectionOfFile('/x/payment-methods.json')).toBe('payment_methods');
    expect(collectionOfFile('/x/payment_methods.json')).toBe('payment_methods');
    expect(collectionOfFile('/x/customers.json')).toBeNull();
  });

  it.each([
    ['{', /^fixtures file f\.json: not valid JSON: /],
    ['{"id":"a"}', /^fixtures file f\.json: must be a JSON array of records$/],
    ['[1]', /^fixtures file f\.json: item 0 is not an object$/],
    ['[{"id":"a"},[]]', /^fixtures file f\.json: item 1 is not an object$/],
    ['[{"id":""}]', /^fixtures file f\.json: item 0 has no string "id"$/],
    ['[{"id":3}]', /^fixtures file f\.json: item 0 has no string "id"$/],
    ['[{"id":"a"},{"id":"a"}]', /^fixtures file f\.json: id 'a' appears twice$/],
  ])('rejects %s naming the file', (text, message) => {
    expect(() => parseFixtureFile('f.json', text)).toThrow(message);
  });

  it('rejects an unknown collection and a missing folder, naming them', () => {
    const dir = folder({ 'customers.json': '[]' });
    expect(() => loadFixtureOverrides(dir)).toThrow(
      `fixtures file ${join(dir, 'customers.json')}: 'customers' is not a collection (use one of merchant_accounts, roles,`,
    );
    expect(() => loadFixtureOverrides(join(dir, 'nope'))).toThrow(`fixtures folder ${join(dir, 'nope')}: does not exist`);
    const twice = folder({ 'payment-methods.json': '[]', 'payment_methods.json': '[]' });
    expect(() => loadFixtureOverrides(twice)).toThrow(`fixtures file ${join(twice, 'payment_methods.json')}: a second file for collection payment_methods`);
  });

  it('ignores files that are not *.json', () => {
    expect(loadFixtureOverrides(folder({ 'README.md': '# notes', 'buyers.json': '[]' }))).toEqual({ buyers: [] });
  });

  it('merges by id: fields over an existing record, new records appended, the base untouched', async () => {
    const base = await buildFixtures(4010);
    const id = WELL_KNOWN.buyers.default.id;
    const before = base.collections.buyers.find((b) => b.id === id)!;
    const merged = applyFixtureOverrides(base, {
      buyers: [
        { id, display_name: 'Over' },
        { id: 'new-buyer', display_name: 'New' },
      ],
    });
    expect(merged.collections.buyers.find((b) => b.id === id)).toEqual({ ...before, display_name: 'Over' });
    expect(merged.collections.buyers.at(-1)).toEqual({ id: 'new-buyer', display_name: 'New' });
    expect(merged.collections.buyers).toHaveLength(base.collections.buyers.length + 1);
    expect(base.collections.buyers.find((b) => b.id === id)).toEqual(before);
    expect(merged.collections.payment_methods).toEqual(base.collections.payment_methods);
  });

  it('keeps the last good fixtures when a reload fails', async () => {
    const id = WELL_KNOWN.buyers.default.id;
    const dir = folder({ 'buyers.json': JSON.stringify([{ id, display_name: 'One' }]) });
    const source = new FixtureSource(await buildFixtures(4010), dir);
    const name = () => source.fixtures().collections.buyers.find((b) => b.id === id)!.display_name;
    expect(name()).toBe('One');
    writeFileSync(join(dir, 'buyers.json'), '[');
    expect(() => source.reload()).toThrow(/^fixtures file .*buyers\.json: not valid JSON/);
    expect(name()).toBe('One');
    writeFileSync(join(dir, 'buyers.json'), JSON.stringify([{ id, display_name: 'Two' }]));
    source.reload();
    expect(name()).toBe('Two');
    // Each call is a fresh copy: a namespace changing its data cannot change the fixtures.
    source.fixtures().collections.buyers[0].display_name = 'mutated';
    expect(source.fixtures().collections.buyers[0].display_name).not.toBe('mutated');
  });
});

describe('watchFolder', () => {
  it('calls back once per burst with the changed files that pass the filter', async () => {
    const dir = folder({});
    const calls: string[][] = [];
    const watcher = watchFolder(dir, (files) => calls.push(files), { debounceMs: 100, filter: (n) => n.endsWith('.json') });
    try {
      writeFileSync(join(dir, 'a.json'), '1');
      writeFileSync(join(dir, 'a.json'), '2');
      writeFileSync(join(dir, 'b.json'), '3');
      writeFileSync(join(dir, 'notes.txt'), 'x');
      await waitFor(() => (calls.length ? true : undefined), 'a callback');
      expect(calls[0]).toEqual([join(dir, 'a.json'), join(dir, 'b.json')]);
    } finally {
      watcher.close();
    }
  });

  it('stops calling back once closed', async () => {
    const dir = folder({});
    const calls: string[][] = [];
    const watcher = watchFolder(dir, (files) => calls.push(files), { debounceMs: 20 });
    watcher.close();
    writeFileSync(join(dir, 'a.json'), '1');
    // A second, live watcher on the same folder proves events were delivered meanwhile.
    const seen: string[][] = [];
    const probe = watchFolder(dir, (files) => seen.push(files), { debounceMs: 20 });
    writeFileSync(join(dir, 'b.json'), '1');
    await waitFor(() => (seen.length ? true : undefined), 'the probe callback');
    probe.close();
    expect(calls).toEqual([]);
  });
});
