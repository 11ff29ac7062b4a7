// A bad scenario file fails boot, naming the file, the path inside it and what is wrong.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSandbox } from '../../src/sandbox.js';
import { loadScenarios } from '../../src/scenarios/load-scenarios.js';
import { loadSpec } from '../../src/spec/load-spec.js';
import { indexSpec } from '../../src/spec/operations.js';
import { scenarioDir } from './helpers.js';

const spec = indexSpec(loadSpec(), 'openapi.json');

/** The loader buildSandbox runs at boot, against openapi.json (compiled once for speed). */
async function bootError(files: Record<string, string>): Promise<{ message: string; dir: string }> {
  const dir = scenarioDir(files);
  try {
    loadScenarios(dir, spec);
  } catch (err) {
    return { message: (err as Error).message, dir };
  }
  throw new Error('the scenario files were accepted');
}

const header = (name: string) => `name: ${name}\ndescription: test\n`;

describe('scenario files checked at boot', () => {
  it('buildSandbox fails, naming an undeclared status with the operation', async () => {
    const dir = scenarioDir({ 'foo.yaml': `${header('foo')}operations: [listGiftCards]\nsteps:\n  - respond: { status: 418 }\n` });
    const message = await buildSandbox({ scenariosDir: dir, logLevel: 'silent' }).then(
      () => 'booted',
      (err: Error) => err.message,
    );
    expect(message).toBe(
      `invalid scenario file: ${join(dir, 'foo.yaml')}: /steps/0/respond/status: 418 is not declared by operation listGiftCards (it declares 200, 400, 401, 403, 404, 405, 409, 422, 425, 429, 500, 502, 504; 429 and 5xx may be answered on any operation)`,
    );
  });

  it('names an unknown operation, by id or by method and path', async () => {
    const { message, dir } = await bootError({
      'ops.yaml': `${header('ops')}operations: [listGiftCards, listGiftCardz, "GET /nowhere"]\nsteps:\n  - pass: true\n`,
    });
    const file = join(dir, 'ops.yaml');
    expect(message).toContain(`${file}: /operations/1: 'listGiftCardz' is not an operation of openapi.json`);
    expect(message).toContain(`${file}: /operations/2: 'GET /nowhere' is not an operation of openapi.json`);
  });

  it('reports schema problems with their path', async () => {
    const { message, dir } = await bootError({
      'shape.json': JSON.stringify({
        name: 'shape',
        description: 'x',
        operations: '*',
        steps: [{ respond: { status: 429, retry: 3 } }, { times: 0, pass: true }],
        extra: 1,
      }),
    });
    const file = join(dir, 'shape.json');
    expect(message).toContain(`${file}: /: unknown property 'extra'`);
    expect(message).toContain(`${file}: /steps/0/respond: unknown property 'retry'`);
    expect(message).toContain(`${file}: /steps/1/times: must be >= 1`);
  });

  it('requires a name and a description', async () => {
    const { message, dir } = await bootError({ 'bare.yaml': 'operations: "*"\nsteps:\n  - pass: true\n' });
    expect(message).toContain(`${join(dir, 'bare.yaml')}: /: must have required property 'name'`);
    expect(message).toContain(`${join(dir, 'bare.yaml')}: /: must have required property 'description'`);
  });

  it('rejects YAML and JSON that do not parse', async () => {
    const yaml = await bootError({ 'broken.yaml': 'name: [unclosed\n' });
    expect(yaml.message).toMatch(
      new RegExp(`^invalid scenario file: ${join(yaml.dir, 'broken.yaml').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: is not valid YAML: `),
    );
    const json = await bootError({ 'broken.json': '{"name": ' });
    expect(json.message).toContain(`${join(json.dir, 'broken.json')}: is not valid JSON: `);
  });

  it("says where YAML breaks and what to fix, without the parser library's advice to programmers", async () => {
    for (const [text, problem] of [
      [`${header('two')}operations: "*"\n---\nname: other\n`, "line 4, column 1: a second YAML document starts here ('---' or '...'): give one document"],
      [
        `${header('nested')}operations: [listGiftCards]\nrespond: status: 500\n`,
        'line 4, column 10: a value holding ": " is read as a nested mapping: quote the value, or write the mapping on the next lines, indented',
      ],
      [`${header('twice')}name: again\n`, 'line 3, column 1: a key is given twice in one mapping: keep one'],
      [`${header('tab')}match:\n\tpath: /a\n`, 'line 4, column 1: a tab indents this line: indent with spaces'],
    ]) {
      const { message, dir } = await bootError({ 'bad.yaml': text });
      expect(message).toBe(`invalid scenario file: ${join(dir, 'bad.yaml')}: is not valid YAML: ${problem}`);
      expect(message).not.toMatch(/please use|YAML\./);
    }
  });

  it('refuses YAML tags that JSON cannot hold (!!set would silently become {}), keeping the core ones', async () => {
    const tagged = await bootError({
      'set.yaml': `${header('set')}operations: [createReport]\nmatch:\n  body:\n    /name:\n      equals: !!set {a, b}\nrespond: { status: 500 }\n`,
    });
    expect(tagged.message).toBe(
      `invalid scenario file: ${join(tagged.dir, 'set.yaml')}: is not valid YAML: line 7, column 15: the tag !!set has no JSON equivalent: write a plain mapping, sequence or scalar instead`,
    );
    const custom = await bootError({ 'custom.yaml': `${header('custom')}operations: !ops [createReport]\nrespond: { status: 500 }\n` });
    expect(custom.message).toContain('the tag !ops has no JSON equivalent');
    const dir = scenarioDir({
      'core.yaml': `${header('core')}operations: [createReport]\nmatch:\n  body:\n    /name: !!str 5\nrespond: { status: !!int 500 }\n`,
    });
    expect(loadScenarios(dir, spec).byName.get('core')?.match).toEqual({ body: { '/name': '5' } });
  });

  it('rejects a step that does two things, or nothing', async () => {
    const { message, dir } = await bootError({
      'two.yaml': `${header('two')}operations: [listGiftCards]\nsteps:\n  - respond: { status: 500 }\n    drop: true\n  - times: 2\n`,
    });
    const file = join(dir, 'two.yaml');
    expect(message).toContain(
      `${file}: /steps/0: a step does one thing: use one of respond, override, merge, drop, pass, lose_answer, random (found respond and drop)`,
    );
    expect(message).toContain(`${file}: /steps/1: the step does nothing`);
  });

  it('rejects "*" when no operation declares the statuses, and steps without operations', async () => {
    const { message, dir } = await bootError({
      'none.yaml': `${header('none')}operations: "*"\nsteps:\n  - respond: { status: 418 }\n`,
      'noops.yaml': `${header('noops')}steps:\n  - pass: true\n`,
    });
    expect(message).toContain(`${join(dir, 'none.yaml')}: /operations: "*" matches no operation`);
    expect(message).toContain(`${join(dir, 'noops.yaml')}: /operations: name the operations the steps apply to`);
  });

  it('rejects a rewrite of an operation without a body, unknown codes, bad lifecycles and duplicate names', async () => {
    const { message, dir } = await bootError({
      'a.yaml': `${header('same')}operations: [deleteWebhookSubscription]\nsteps:\n  - merge: { x: 1 }\n`,
      'b.yaml': `${header('same')}report_execution:\n  path: [pending, failed]\n  durations: [5s, 5s]\n`,
      'c.yaml': `${header('codes')}operations: [listGiftCards]\nsteps:\n  - respond: { status: 500, code: kaboom }\n`,
      'd.yaml': `${header('same')}report_execution:\n  path: [pending, exploded]\n`,
    });
    expect(message).toContain(
      `${join(dir, 'a.yaml')}: /steps/0/merge: operation deleteWebhookSubscription answers 204 without a body: there is nothing to merge`,
    );
    expect(message).toContain(`${join(dir, 'b.yaml')}: /report_execution/durations: give one duration per state but the last (1 for 2 states), got 2`);
    expect(message).toContain(`${join(dir, 'c.yaml')}: /steps/0/respond/code: 'kaboom' is not an error code of openapi.json`);
    expect(message).toContain(`${join(dir, 'd.yaml')}: /report_execution/path/1: must be equal to one of the allowed values`);
    expect(message.split('\n')[0]).toBe('invalid scenario files:');
  });

  it('reports a duplicate scenario name naming both files', async () => {
    const { message, dir } = await bootError({
      'one.yaml': `${header('twin')}operations: [listGiftCards]\nsteps:\n  - pass: true\n`,
      'two.yaml': `${header('twin')}operations: [listGiftCards]\nsteps:\n  - pass: true\n`,
    });
    expect(message).toBe(
      `invalid scenario file: ${join(dir, 'two.yaml')}: /name: 'twin' is also the name of ${join(dir, 'one.yaml')}; scenario names must be unique`,
    );
  });

  it('fails on a folder that does not exist; a folder adds its scenarios to the built-in ones and ignores files that are not scenarios', async () => {
    const missing = await buildSandbox({ scenariosDir: '/nonexistent/scenarios', logLevel: 'silent' }).then(
      () => null,
      (e: Error) => e,
    );
    expect(missing?.message).toMatch(/^cannot read the scenarios folder \/nonexistent\/scenarios: ENOENT/);
    const deps = await buildSandbox({
      scenariosDir: scenarioDir({ 'README.md': '# notes', 'ok.yml': `${header('ok')}operations: [listGiftCards]\nsteps:\n  - pass: true\n` }),
      logLevel: 'silent',
    });
    expect([...deps.scenarios.byName.keys()]).toEqual([...(await buildSandbox({ logLevel: 'silent' })).scenarios.byName.keys(), 'ok'].sort());
    expect(deps.scenarios.byName.get('ok')).toMatchObject({ source: 'file', file: expect.stringMatching(/ok\.yml$/) });
    expect(deps.scenarios.byName.get('slow')).toMatchObject({ source: 'built-in', file: 'scenarios/slow.yaml' });
  });
});
