// docs/sdk.md shows, per official client, the lines that point it at the sandbox; they must be the
// lines its suite runs. Every fenced block right after a `<!-- snippet: PATH -->` line equals the
// region of PATH between the lines containing `snippet-start` and `snippet-end` (both excluded),
// line for line, after removing the region's common indentation (a Java or Go snippet sits inside
// a class or a function; the page shows it flush left). Each client section whose suite exists in
// the repository (TypeScript's test file, clients/<lang>/ for the others) must hold one.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const PAGE = readFileSync(join(ROOT, 'docs/sdk.md'), 'utf8');

interface Snippet {
  path: string;
  /** The fenced block's lines, fences excluded. */
  block: string[];
  /** The `### ` heading the marker sits under. */
  section: string;
}

/** Every `<!-- snippet: PATH -->` of the page with the fenced block that must follow it at once. */
function snippets(page: string): Snippet[] {
  const lines = page.split('\n');
  const found: Snippet[] = [];
  let section = '';
  lines.forEach((line, i) => {
    if (line.startsWith('### ')) section = line.slice(4);
    const marker = /^<!-- snippet: (\S+) -->$/.exec(line);
    if (!marker) return;
    const open = lines[i + 1] ?? '';
    if (!/^```\w+$/.test(open)) throw new Error(`docs/sdk.md line ${i + 2}: a fenced block must follow <!-- snippet: ${marker[1]} --> at once`);
    const close = lines.findIndex((l, j) => j > i + 1 && l === '```');
    if (close === -1) throw new Error(`docs/sdk.md line ${i + 2}: the block after <!-- snippet: ${marker[1]} --> is not closed`);
    found.push({ path: marker[1], block: lines.slice(i + 2, close), section });
  });
  return found;
}

/** The lines strictly between the one containing `snippet-start` and the one containing `snippet-end`, dedented. */
function region(text: string, path: string): string[] {
  const lines = text.split('\n');
  const starts = lines.flatMap((l, i) => (l.includes('snippet-start') ? [i] : []));
  const ends = lines.flatMap((l, i) => (l.includes('snippet-end') ? [i] : []));
  if (starts.length !== 1 || ends.length !== 1 || ends[0] < starts[0]) {
    throw new Error(`${path}: needs exactly one snippet-start line and one snippet-end line after it (found ${starts.length} and ${ends.length})`);
  }
  const inner = lines.slice(starts[0] + 1, ends[0]);
  const indent = Math.min(...inner.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return inner.map((l) => l.slice(Math.min(indent, /^ */.exec(l)?.[0].length ?? 0)));
}

/** The four tested clients: their section heading in docs/sdk.md and what marks their suite as present. */
const SUITES = [
  { heading: 'TypeScript (`@gr4vy/sdk`)', suite: 'test/clients/typescript.test.ts' },
  { heading: 'Python (`gr4vy`)', suite: 'clients/python' },
  { heading: 'Java (`com.gr4vy:sdk`)', suite: 'clients/java' },
  { heading: 'Go (`github.com/gr4vy/gr4vy-go`)', suite: 'clients/go' },
];

describe('docs/sdk.md snippets', () => {
  const all = snippets(PAGE);

  it('finds the TypeScript snippet at least (the parser sees the markers)', () => {
    expect(all.map((s) => s.path)).toContain('test/clients/typescript/sandbox-client.ts');
  });

  for (const snippet of all) {
    it(`${snippet.path} (under "${snippet.section}") is the region its suite runs`, () => {
      const file = join(ROOT, snippet.path);
      expect(existsSync(file), `${snippet.path} does not exist`).toBe(true);
      expect(snippet.block).toEqual(region(readFileSync(file, 'utf8'), snippet.path));
      expect(
        snippet.block.some((line) => line.trim() !== ''),
        'an empty snippet',
      ).toBe(true);
    });
  }

  for (const { heading, suite } of SUITES) {
    it(`the ${heading} section holds a snippet of its suite once ${suite} exists`, () => {
      expect(PAGE).toContain(`\n### ${heading}\n`);
      const inSection = all.filter((s) => s.section === heading);
      if (!existsSync(join(ROOT, suite))) {
        expect(inSection, `no suite at ${suite}, yet a snippet`).toEqual([]);
        return;
      }
      expect(inSection.length, `the ${heading} section has no <!-- snippet: PATH --> block`).toBeGreaterThan(0);
      const folder = suite.endsWith('.test.ts') ? suite.replace(/\.test\.ts$/, '/') : `${suite}/`;
      for (const s of inSection) expect(s.path.startsWith(folder), `${s.path} is not a file of the suite in ${folder}`).toBe(true);
    });
  }
});

describe('the snippet region reader', () => {
  it('takes the lines between the markers, dedented, and refuses missing or doubled markers', () => {
    expect(region('a\n  // snippet-start\n    x();\n      y();\n  // snippet-end\nb', 'f')).toEqual(['x();', '  y();']);
    expect(region('// snippet-start\nx\n\n  y\n// snippet-end', 'f')).toEqual(['x', '', '  y']);
    expect(() => region('x();', 'f')).toThrow('f: needs exactly one snippet-start line and one snippet-end line after it (found 0 and 0)');
    expect(() => region('// snippet-start\n// snippet-start\n// snippet-end', 'f')).toThrow('(found 2 and 1)');
    expect(() => region('// snippet-end\n// snippet-start', 'f')).toThrow('(found 1 and 1)');
  });

  it('refuses a marker without its block right after it', () => {
    expect(() => snippets('### X\n<!-- snippet: a.ts -->\n\n```ts\nx\n```')).toThrow('a fenced block must follow <!-- snippet: a.ts --> at once');
    expect(() => snippets('<!-- snippet: a.ts -->\n```ts\nx')).toThrow('is not closed');
    expect(snippets('### X\n<!-- snippet: a.ts -->\n```ts\nx\n```\n')).toEqual([{ path: 'a.ts', block: ['x'], section: 'X' }]);
  });
});
