// The tests' temporary folders are removed after the file that made them (temp-dir.setup.ts).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir, tempDirWith } from './temp-dir.js';

describe('tempDir', () => {
  it('makes a new empty folder in the temp folder, named by its prefix', () => {
    const dir = tempDir('sandbox-temp-test-');
    expect(dirname(dir)).toBe(tmpdir());
    expect(basename(dir)).toMatch(/^sandbox-temp-test-[A-Za-z0-9]{6}$/);
    expect(readdirSync(dir)).toEqual([]);
    expect(tempDir('sandbox-temp-test-')).not.toBe(dir);
  });

  it('fills one with the files given', () => {
    const dir = tempDirWith('sandbox-temp-test-', { 'a.json': '[]', 'b.yaml': 'name: b\n' });
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.yaml']);
    expect(readFileSync(join(dir, 'b.yaml'), 'utf8')).toBe('name: b\n');
  });

  it('removes every folder made until then, with what it holds, and none made after', () => {
    const first = tempDir('sandbox-temp-test-');
    const second = tempDir('sandbox-temp-test-');
    writeFileSync(join(first, 'state.json'), '{}');
    removeTempDirs();
    expect([existsSync(first), existsSync(second)]).toEqual([false, false]);
    const later = tempDir('sandbox-temp-test-');
    removeTempDirs();
    removeTempDirs(); // nothing left to remove: no error
    expect(existsSync(later)).toBe(false);
  });
});
