// What the README lists is what the code has: the operations served (method, path, operationId and
// scopes, row for row as openapi.json has them) and every start option (flag, variables, config key).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { START_OPTIONS } from '../../src/cli/options.js';

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

describe('README operations list', () => {
  it('lists the 19 operations of openapi.json with method, path, operationId and scope', () => {
    const documented = fromDocument();
    expect(documented).toHaveLength(19);
    expect(fromReadme()).toEqual(documented);
  });
});

describe('README options table', () => {
  it('has a row for every start option with its flag, variables and config key', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const rows = readme.split('\n').filter((line) => line.startsWith('| `--'));
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
