// The built-in scenarios as the build keeps them (dist/scenarios-catalog.json, read by built code
// instead of parsing and checking the folder at every start): the same catalog as loading the
// folder, never used once a file it was made from has changed, and still used when only their
// dates did.
import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInCatalogFile, fingerprintOf, readCatalog, writeCatalog } from '../../src/scenarios/catalog-cache.js';
import { loadScenarios, scenarioFiles, scenariosFolder } from '../../src/scenarios/load-scenarios.js';
import { loadSpec, packageRoot } from '../../src/spec/load-spec.js';
import { indexSpec } from '../../src/spec/operations.js';
import { cliToken, ensureBuilt, type RunningCli, startCli } from '../cli/support/cli.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const spec = indexSpec(loadSpec(), 'openapi.json', [], { lazy: true });
const SPEC_FILE = join(packageRoot(), 'openapi.json');

describe('kept catalog of scenarios', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'scenario-catalog-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** A copy of the built-in folder and of openapi.json, to change without touching the package. */
  function copies(name: string): { folder: string; specFile: string; file: string } {
    const folder = join(work, name, 'scenarios');
    cpSync(scenariosFolder(null), folder, { recursive: true });
    const specFile = join(work, name, 'openapi.json');
    cpSync(SPEC_FILE, specFile);
    return { folder, specFile, file: join(work, name, 'catalog.json') };
  }

  it('is the catalog loading the folder gives, for the build and for a copy written and read again', () => {
    const loaded = loadScenarios(null, spec);
    expect(loaded.byName.size).toBe(scenarioFiles(scenariosFolder(null)).length);
    // npm test builds first: the build's file matches the package's scenario files as they are.
    const built = readCatalog(builtInCatalogFile(), fingerprintOf(scenariosFolder(null), SPEC_FILE));
    expect(built).toEqual(loaded);
    expect([...built!.byName.keys()]).toEqual([...loaded.byName.keys()]);
    expect(built!.byName.get('rate-limited')!.operations).toBeInstanceOf(Set);

    const { folder, specFile, file } = copies('round-trip');
    const fromCopy = loadScenarios(folder, spec);
    writeCatalog(file, fromCopy, fingerprintOf(folder, specFile));
    expect(readCatalog(file, fingerprintOf(folder, specFile))).toEqual(fromCopy);
  });

  it('is not used once a scenario file or openapi.json changed, or a file came or went', () => {
    const { folder, specFile, file } = copies('changes');
    writeCatalog(file, loadScenarios(folder, spec), fingerprintOf(folder, specFile));
    const usable = () => readCatalog(file, fingerprintOf(folder, specFile)) !== null;
    expect(usable()).toBe(true);

    // Touched only (an installed package's files carry the tarball's dates): still usable.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(folder, 'slow.yaml'), later, later);
    utimesSync(specFile, new Date(499162500000), new Date(499162500000)); // npm's 1985-10-26 date
    expect(usable()).toBe(true);
    // Edited, same size: not usable.
    const slow = readFileSync(join(folder, 'slow.yaml'), 'utf8');
    writeFileSync(join(folder, 'slow.yaml'), slow.replace('1500', '1600'));
    expect(slow).toContain('1500');
    expect(usable()).toBe(false);
    writeCatalog(file, loadScenarios(folder, spec), fingerprintOf(folder, specFile));
    expect(usable()).toBe(true);

    writeFileSync(join(folder, 'extra.yaml'), 'name: extra\ndescription: added after the build\n');
    expect(usable()).toBe(false);
    rmSync(join(folder, 'extra.yaml'));
    expect(usable()).toBe(true);

    rmSync(join(folder, 'flaky.json'));
    expect(usable()).toBe(false);
    writeCatalog(file, loadScenarios(folder, spec), fingerprintOf(folder, specFile));
    writeFileSync(specFile, readFileSync(specFile, 'utf8').replace('"title"', '"title" '));
    expect(usable()).toBe(false);
  });

  it('is not used when missing, corrupt or of another shape', () => {
    const { folder, specFile, file } = copies('broken');
    const fingerprint = fingerprintOf(folder, specFile);
    expect(readCatalog(file, fingerprint)).toBeNull();
    writeFileSync(file, '{"fingerprint":');
    expect(readCatalog(file, fingerprint)).toBeNull();
    writeFileSync(file, JSON.stringify({ fingerprint, scenarios: 'none' }));
    expect(readCatalog(file, fingerprint)).toBeNull();
    writeFileSync(file, 'null');
    expect(readCatalog(file, fingerprint)).toBeNull();
  });

  describe('in the built CLI, which starts from it', () => {
    let cli: RunningCli;
    let inProcess: TestSandbox;
    beforeAll(async () => {
      await ensureBuilt();
      cli = await startCli(['--port', '0']);
      inProcess = await startTestSandbox(); // from source: loads and checks the folder
    }, 180_000);
    afterAll(async () => {
      await cli?.stop('SIGTERM');
      inProcess?.server.close();
    });

    it('lists the same scenarios as a sandbox that loaded the folder, and answers with them', async () => {
      const listed = await (await fetch(`${cli.url}/_sandbox/scenarios`)).json();
      expect(listed).toEqual((await inProcess.http.get('/_sandbox/scenarios')).body);
      const res = await fetch(`${cli.url}/gift-cards`, { headers: { authorization: `Bearer ${await cliToken()}`, 'x-sandbox-scenario': 'rate-limited' } });
      expect(res.status).toBe(429);
      expect(res.headers.get('x-sandbox-scenario')).toBe('rate-limited');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toMatchObject({ type: 'error', status: 429, code: 'too_many_requests' });
    });
  });
});
