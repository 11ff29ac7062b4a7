// What the documentation lists is what the code has: the operations served (README.md: method, path,
// operationId and scopes, row for row as openapi.json has them), every start option (docs/configuration.md:
// flag, variables, config key, as START_OPTIONS has them) and every control route (docs/control-api.md:
// a table made from openapi.admin.json; UPDATE_DOCS=1 writes it anew).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { START_OPTIONS } from '../../src/cli/options.js';
import { page } from './doc-pages.js';

const ROOT = join(import.meta.dirname, '../..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Operation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
}

function fromDocument(): string[][] {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as {
    paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
    security: Array<Record<string, string[]>>;
  };
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = item[method];
      if (!op) return [];
      const security = op.security ?? doc.security;
      const scopes = security.flatMap((requirement) => requirement.bearerAuth ?? []);
      const scope = security.length === 0 ? 'none (no token)' : scopes.map((s) => `\`${s}\``).join(' or ');
      return [[`\`${method.toUpperCase()}\``, `\`${path}\``, `\`${op.operationId}\``, scope]];
    }),
  );
}

function fromReadme(): string[][] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## The 19 operations\n');
  expect(start).toBeGreaterThan(0);
  const section = readme.slice(start + 1, readme.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

describe('README: a front page', () => {
  it('stays under 20,000 characters (wc -m): the rest lives in docs/', () => {
    expect([...page('README.md')].length).toBeLessThanOrEqual(20_000);
  });
});

describe('README operations list', () => {
  it('lists the 19 operations of openapi.json with method, path, operationId and scope', () => {
    const documented = fromDocument();
    expect(documented).toHaveLength(19);
    expect(fromReadme()).toEqual(documented);
  });
});

describe('Configuration: the options table', () => {
  it('has a row for every start option with its flag, variables and config key', () => {
    const rows = page('docs/configuration.md')
      .split('\n')
      .filter((line) => line.startsWith('| `--'));
    for (const option of START_OPTIONS) {
      const row = rows.find((r) => r.startsWith(`| \`--${option.flag}`));
      expect(row, `--${option.flag}`).toBeDefined();
      const [flag, env, key] = row!.split(' | ');
      expect(flag).toContain(`--${option.flag}`);
      for (const name of option.env) expect(env).toContain(`\`${name}\``);
      expect(key).toBe(`\`${option.key}\``);
    }
    expect(rows).toHaveLength(START_OPTIONS.length);
  });
});

const CONTROL_API_PAGE = 'docs/control-api.md';
const BEGIN = '<!-- every control route: made from openapi.admin.json by test/docs/readme.test.ts (UPDATE_DOCS=1 writes it) -->';
const END = '<!-- end of the control routes -->';

/** One row per operation of openapi.admin.json, in its order: method, path, operationId, summary. */
function controlRoutesTable(): string {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.admin.json'), 'utf8')) as {
    paths: Record<string, Partial<Record<(typeof METHODS)[number], { operationId: string; summary?: string }>>>;
  };
  const rows = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = item[method];
      if (!op) return [];
      const summary = (op.summary ?? '').replaceAll('|', '\\|');
      return [`| \`${method.toUpperCase()}\` | \`${path}\` | \`${op.operationId}\` | ${summary} |`];
    }),
  );
  return ['| method | path | operationId | what it does |', '|---|---|---|---|', ...rows].join('\n');
}

describe('The control API reference', () => {
  it('lists every path and method of openapi.admin.json, as the document has them', () => {
    const text = page(CONTROL_API_PAGE);
    const start = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    expect(start, `${CONTROL_API_PAGE} keeps the marker lines of the generated table`).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const expected = controlRoutesTable();
    const current = text.slice(start + BEGIN.length, end).trim();
    if (process.env.UPDATE_DOCS === '1' && current !== expected) {
      writeFileSync(join(ROOT, CONTROL_API_PAGE), `${text.slice(0, start + BEGIN.length)}\n${expected}\n${text.slice(end)}`);
      return;
    }
    expect(current, 'run UPDATE_DOCS=1 npx vitest run test/docs/readme.test.ts to write the table anew').toBe(expected);
  });
});
