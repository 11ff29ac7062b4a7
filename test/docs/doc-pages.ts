// Reading the documentation the tests check: a page's text, a section of it, and the fenced blocks
// in it, so a test runs or compares a block where the reader finds it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');

/** The text of a page, by its path from the repository root (`README.md`, `docs/webhooks.md`). */
export function page(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The section under a heading (`## Webhooks`), up to the next heading of the same or a higher level (not a `#` line in a block). */
export function section(path: string, heading: string): string {
  const lines = page(path).split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${path} has no heading "${heading}"`);
  const level = heading.indexOf(' ');
  let fenced = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i].startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#+ /.test(lines[i]) && lines[i].indexOf(' ') <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start + 1, end).join('\n');
}

/** The fenced blocks of a text with their language (`sh`, `ts`, `yaml`). */
export function blocks(text: string): Array<{ lang: string; body: string }> {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], body: m[2] }));
}

/** The first block of a language in a section. */
export function block(path: string, heading: string, lang: string): string {
  const found = blocks(section(path, heading)).find((b) => b.lang === lang);
  if (!found) throw new Error(`${path}, "${heading}": no ${lang} block`);
  return found.body;
}

/** README.md, CONTRIBUTING.md and every Markdown file under docs/, as paths from the root. */
export function markdownPages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  return ['README.md', 'CONTRIBUTING.md', ...walk('docs')].map((p) => relative(ROOT, join(ROOT, p)));
}
