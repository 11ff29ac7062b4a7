// No relative link in the documentation points at nothing: every [text](path) and ![alt](path) in
// README.md, CONTRIBUTING.md and docs/**/*.md names a file of the repository, and a #anchor a
// heading of the page it points at (GitHub's anchors: lower case, punctuation dropped, spaces as -).
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownPages, page, ROOT } from './doc-pages.js';

/** The text outside fenced blocks, where headings are headings. */
function outsideBlocks(text: string): string {
  return text.replace(/^```[\s\S]*?^```$/gm, '');
}

/** The text outside fenced blocks and inline code, where links are links. */
function prose(text: string): string {
  return outsideBlocks(text).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of each heading of a page (a repeated one gets -1, -2, ...). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const heading of outsideBlocks(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading[1]
      .replace(/`/g, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

/** Relative link targets of a page: neither a URL with a scheme nor a mail address. */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('documentation links', () => {
  const pages = markdownPages();

  it('covers the front page, CONTRIBUTING.md and at least eight pages under docs/', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('CONTRIBUTING.md');
    expect(pages.filter((p) => p.startsWith('docs/')).length).toBeGreaterThanOrEqual(8);
  });

  it('has no relative link to a missing file or heading', () => {
    const dead: string[] = [];
    for (const from of pages) {
      for (const target of relativeLinks(page(from))) {
        const [path, anchor] = target.split('#');
        const file = path === '' ? from : normalize(join(dirname(from), decodeURIComponent(path)));
        if (file.startsWith('..') || !existsSync(join(ROOT, file))) {
          dead.push(`${from}: ${target} (no file ${file})`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchors(page(file)).has(anchor)) {
          dead.push(`${from}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    expect(dead).toEqual([]);
  });

  it('reads links and anchors as GitHub does', () => {
    expect(relativeLinks('[a](docs/x.md) ![b](y.png "t") [c](https://e.org) `[d](no.md)`\n```\n[e](no.md)\n```\n')).toEqual(['docs/x.md', 'y.png']);
    expect([...anchors('# HTTPS (`--tls`)\n## A first session with curl\n## A first session with curl\n')]).toEqual([
      'https---tls',
      'a-first-session-with-curl',
      'a-first-session-with-curl-1',
    ]);
  });
});
