// The built-in scenarios, checked and compiled once at build time (`npm run build`) into
// dist/scenarios-catalog.json: a start with the built-in folder then reads one JSON file instead of
// parsing a dozen YAML files and compiling the scenario-file schema (about 110 ms of a 500 ms
// start-up budget). The file carries a fingerprint of what it was made from (each scenario file's
// name and content hash, and openapi.json's): when any of them has changed since, it is
// ignored and the folder is loaded and checked as usual. Only built code uses it (like the seed
// cache): the tests run from src/, where a catalog built by older code could be stale.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSpec, packageRoot, RUNNING_BUILT } from '../spec/load-spec.js';
import { indexSpec, type SpecIndex } from '../spec/operations.js';
import { loadScenarios, scenarioFiles, scenariosFolder } from './load-scenarios.js';
import type { Scenario, ScenarioCatalog } from './types.js';

interface KeptScenario extends Omit<Scenario, 'operations'> {
  operations: string[];
}

interface KeptCatalog {
  fingerprint: string;
  scenarios: KeptScenario[];
}

export function builtInCatalogFile(): string {
  return join(packageRoot(), 'dist', 'scenarios-catalog.json');
}

function builtInSpecFile(): string {
  return join(packageRoot(), 'openapi.json');
}

/** Grows when the kept form of a scenario changes: a catalog written by older code is then not used. */
const CATALOG_FORMAT = 3;

/**
 * What a catalog is compiled from, as one line per file (name and a hash of its content), and the
 * catalog format: any change to them changes it. Contents, not modification times: an installed
 * package's files carry the times its tarball gave them, not the build's (npm packs every file with
 * one fixed date).
 */
export function fingerprintOf(folder: string, specFile: string): string {
  const line = (path: string, name: string) => `${name} ${createHash('sha256').update(readFileSync(path)).digest('base64url')}`;
  return [`format ${CATALOG_FORMAT}`, line(specFile, basename(specFile)), ...scenarioFiles(folder).map((file) => line(join(folder, file), file))].join('\n');
}

export function writeCatalog(file: string, catalog: ScenarioCatalog, fingerprint: string): void {
  const scenarios = [...catalog.byName.values()].map((s): KeptScenario => ({ ...s, operations: [...s.operations] }));
  writeFileSync(file, JSON.stringify({ fingerprint, scenarios } satisfies KeptCatalog));
}

/** The kept catalog, or null when the file is missing, unreadable or made from other files. */
export function readCatalog(file: string, fingerprint: string): ScenarioCatalog | null {
  let kept: KeptCatalog;
  try {
    kept = JSON.parse(readFileSync(file, 'utf8')) as KeptCatalog;
  } catch {
    return null;
  }
  if (kept?.fingerprint !== fingerprint || !Array.isArray(kept.scenarios)) return null;
  return { byName: new Map(kept.scenarios.map((s) => [s.name, { ...s, operations: new Set(s.operations) }])) };
}

/** The built-in scenarios: the build's catalog when it still matches its files, else the folder, loaded and checked. */
export function builtInScenarios(spec: SpecIndex): ScenarioCatalog {
  if (RUNNING_BUILT) {
    const kept = readCatalog(builtInCatalogFile(), fingerprintOf(scenariosFolder(null), builtInSpecFile()));
    if (kept) return kept;
  }
  return loadScenarios(null, spec);
}

/** Build step: `node dist/src/scenarios/catalog-cache.js` writes dist/scenarios-catalog.json. */
function writeBuiltInCatalog(): void {
  const spec = indexSpec(loadSpec(builtInSpecFile()), 'openapi.json', [], { lazy: true });
  writeCatalog(builtInCatalogFile(), loadScenarios(null, spec), fingerprintOf(scenariosFolder(null), builtInSpecFile()));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeBuiltInCatalog();
