// Reads a scenario folder at boot: every .yaml, .yml and .json file is parsed, checked and compiled
// (compile-scenario.ts). Any problem fails start-up with one line per problem: file, path inside
// it, what. The scenarios a sandbox serves from files are the built-in ones with those of
// --scenarios-dir added (a file of the same name replaces the built-in one).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { readYamlText, yamlProblemText } from '../errors/yaml-text.js';
import { packageRoot } from '../spec/load-spec.js';
import type { SpecIndex } from '../spec/operations.js';
import { compileScenario, type Problem } from './compile-scenario.js';
import type { Scenario, ScenarioCatalog } from './types.js';

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

export class ScenarioFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? `invalid scenario file: ${problems[0]}` : `invalid scenario files:\n  ${problems.join('\n  ')}`);
  }
}

/** The built-in folder when `dir` is null. */
export function scenariosFolder(dir: string | null): string {
  return dir ?? join(packageRoot(), 'scenarios');
}

/** The scenario files of a folder (.yaml, .yml, .json), sorted by name. */
export function scenarioFiles(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((f) => EXTENSIONS.has(extname(f).toLowerCase()) && statSync(join(folder, f)).isFile())
      .sort();
  } catch (err) {
    throw new Error(`cannot read the scenarios folder ${folder}: ${(err as Error).message}`);
  }
}

/** The scenario files of one folder (the built-in one when `dir` is null), checked: a problem throws a ScenarioFileError. */
export function loadScenarios(dir: string | null, spec: SpecIndex): ScenarioCatalog {
  const folder = resolve(scenariosFolder(dir));
  const entries = scenarioFiles(folder);
  // Messages name files as a person would type them: relative to the working folder when inside it.
  const shown = (file: string) => {
    if (dir === null) return `scenarios/${file}`;
    const rel = relative(process.cwd(), join(folder, file));
    return rel.startsWith('..') || isAbsolute(rel) ? join(folder, file) : rel;
  };
  const problems: string[] = [];
  const byName = new Map<string, Scenario>();
  for (const file of entries) {
    const label = shown(file);
    const fileProblems: string[] = [];
    const scenario = compileFile(label, readFileSync(join(folder, file), 'utf8'), extname(file).toLowerCase(), spec, dir === null, fileProblems);
    problems.push(...fileProblems);
    if (!scenario) continue;
    const other = byName.get(scenario.name);
    if (other) problems.push(`${label}: /name: '${scenario.name}' is also the name of ${other.file}; scenario names must be unique`);
    else byName.set(scenario.name, scenario);
  }
  if (problems.length) throw new ScenarioFileError(problems);
  return { byName };
}

/**
 * The scenarios of the files: the built-in ones, then those of --scenarios-dir (null: none), which
 * add to them and replace a built-in one of the same name.
 */
export function fileCatalog(builtIn: ScenarioCatalog, dir: string | null, spec: SpecIndex): ScenarioCatalog {
  if (dir === null) return builtIn;
  const byName = new Map(builtIn.byName);
  const replaced = new Map<string, string>();
  for (const [name, scenario] of loadScenarios(dir, spec).byName) {
    const before = byName.get(name);
    if (before?.file) replaced.set(name, before.file);
    byName.set(name, scenario);
  }
  return { byName: new Map([...byName].sort(([a], [b]) => (a < b ? -1 : 1))), replaced };
}

function compileFile(label: string, text: string, ext: string, spec: SpecIndex, builtIn: boolean, problems: string[]): Scenario | null {
  let doc: unknown;
  if (ext === '.json') {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      problems.push(`${label}: is not valid JSON: ${(err as Error).message.split('\n')[0]}`);
      return null;
    }
  } else {
    const read = readYamlText(text);
    if ('problem' in read) {
      problems.push(`${label}: is not valid YAML: ${yamlProblemText(read.problem)}`);
      return null;
    }
    doc = read.value;
  }
  const compiled = compileScenario(doc, { spec, source: builtIn ? 'built-in' : 'file', file: label });
  problems.push(...compiled.problems.map((p: Problem) => `${label}: ${p.pointer || '/'}: ${p.message}`));
  return compiled.scenario;
}
