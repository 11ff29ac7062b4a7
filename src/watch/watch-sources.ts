// --watch: fixture files and scenario files reload when they change.
// A broken edit is logged and ignored, so the sandbox keeps serving the last good version.
// Fixtures seed namespaces, so an edit shows on the next reset (POST /_sandbox/reset).
import type { Logger } from 'pino';
import type { SandboxConfig } from '../config.js';
import type { SandboxDeps } from '../sandbox.js';
import { reloadScenarios, type ScenarioReloadDeps } from './reload-scenarios.js';
import { type FolderWatcher, watchFolder } from './watch-folder.js';

export interface SourceWatcher {
  close(): void;
}

/** The folders --watch follows for this config (the banner lists them). */
export function watchedFolders(config: Pick<SandboxConfig, 'fixturesDir' | 'scenariosDir'>): string[] {
  return [config.fixturesDir, config.scenariosDir].filter((dir): dir is string => Boolean(dir));
}

export function watchSources(deps: Pick<SandboxDeps, 'fixtureSource'> & ScenarioReloadDeps, logger: Logger, debounceMs?: number): SourceWatcher {
  const watchers: FolderWatcher[] = [];
  const onError = (what: string) => (err: Error) => logger.warn({ err: err.message }, `watching ${what} failed: ${err.message}`);
  const fixturesDir = deps.fixtureSource.dir;
  if (fixturesDir) {
    watchers.push(
      watchFolder(fixturesDir, (files) => reloadFixtures(deps, logger, files), {
        debounceMs,
        filter: (name) => name.endsWith('.json'),
        onError: onError(fixturesDir),
      }),
    );
    logger.info({ dir: fixturesDir }, `watching fixtures in ${fixturesDir}`);
  }
  const scenariosDir = deps.config.scenariosDir;
  if (scenariosDir) {
    const isScenarioFile = (name: string) => /\.(ya?ml|json)$/i.test(name);
    watchers.push(
      watchFolder(scenariosDir, (files) => reloadScenarioFiles(deps, logger, files), { debounceMs, filter: isScenarioFile, onError: onError(scenariosDir) }),
    );
    logger.info({ dir: scenariosDir }, `watching scenarios in ${scenariosDir}`);
  }
  return {
    close() {
      for (const w of watchers) w.close();
    },
  };
}

function reloadFixtures(deps: Pick<SandboxDeps, 'fixtureSource'>, logger: Logger, files: string[]): void {
  try {
    deps.fixtureSource.reload();
    logger.info({ files, event: 'fixtures-reloaded' }, `fixtures reloaded (${files.join(', ')}): they apply from the next reset`);
  } catch (err) {
    logger.warn(
      { files, event: 'fixtures-reload-failed', error: (err as Error).message },
      `fixtures edit ignored, keeping the last good version: ${(err as Error).message}`,
    );
  }
}

function reloadScenarioFiles(deps: ScenarioReloadDeps, logger: Logger, files: string[]): void {
  try {
    const names = reloadScenarios(deps);
    logger.info(
      { files, scenarios: names, event: 'scenarios-reloaded' },
      `scenarios reloaded (${files.join(', ')}): ${names.join(', ') || '(none)'}; sequences restart`,
    );
  } catch (err) {
    logger.warn(
      { files, event: 'scenarios-reload-failed', error: (err as Error).message },
      `scenario edit ignored, keeping the last good version: ${(err as Error).message}`,
    );
  }
}
