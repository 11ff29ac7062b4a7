// `payments-sandbox start`: load the options, boot the sandbox with a pino logger made from them,
// print the banner, and on SIGINT/SIGTERM flush state and print a one-line summary (exit code 0).
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../config.js';
import { createLogger } from '../logging/logger.js';
import { type RunningSandbox, startSandbox } from '../start.js';
import { watchedFolders } from '../watch/watch-sources.js';
import { formatBanner, reachableUrl } from './banner.js';
import { startHelp } from './help.js';
import { loadConfig } from './load-config.js';
import { defaultKeyFile } from './token-command.js';
import { UsageError } from './usage-error.js';

export interface StartIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export async function runStartCommand(argv: readonly string[], io: StartIo): Promise<void> {
  const startedAt = performance.now();
  const loaded = loadConfig(argv, io.env, readFileOrNull, { cwd: io.cwd, stdoutIsTty: io.stdout.isTTY });
  if (loaded.help) {
    io.stdout.write(startHelp());
    return;
  }
  const { config } = loaded;
  checkPaths(config);
  const logger = createLogger(config, { out: io.stdout });
  const sandbox = await startSandbox({ ...config, logger });
  stopOnSignals(sandbox, logger, io, startedAt); // before the banner: whoever reads it may signal at once
  io.stderr.write(
    formatBanner({
      version: sandbox.deps.version,
      url: sandbox.url,
      forward: sandbox.deps.webhooks.forward,
      config,
      keyFile: defaultKeyFile(),
      configFile: loaded.configFile,
      watching: config.watch ? watchedFolders(config) : [],
    }),
  );
  logger.info({ url: reachableUrl(sandbox.url), seed: config.seed, dataFile: config.dataFile, auth: config.auth }, `listening on ${reachableUrl(sandbox.url)}`);
}

function stopOnSignals(sandbox: RunningSandbox, logger: Logger, io: StartIo, startedAt: number): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      io.stderr.write(`payments-sandbox: ${signal} again, exiting without waiting\n`);
      process.exit(130);
    }
    stopping = true;
    try {
      await sandbox.close();
    } catch (err) {
      io.stderr.write(`payments-sandbox: could not flush state on ${signal}: ${(err as Error).message}\n`);
      process.exit(1);
    }
    const summary = shutdownSummary((performance.now() - startedAt) / 1000, sandbox.deps.stats.requests, sandbox.deps.config.dataFile);
    logger.info({ signal, requests: sandbox.deps.stats.requests }, summary);
    io.stderr.write(`${summary}\n`);
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

export function shutdownSummary(seconds: number, requests: number, dataFile: string | null): string {
  const count = `${requests.toLocaleString('en-US')} request${requests === 1 ? '' : 's'}`;
  const state = dataFile ? `state flushed to ${dataFile}` : 'state was in memory';
  return `payments-sandbox stopped after ${seconds.toFixed(1)} s: ${count}, ${state}`;
}

function readFileOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Folders must exist and the data file's folder too: a typo is a usage error, not a crash later. */
function checkPaths(config: SandboxConfig): void {
  const folders: Array<[string, string | null]> = [
    ['--fixtures-dir', config.fixturesDir],
    ['--scenarios-dir', config.scenariosDir],
    ['--data-file (its folder)', config.dataFile && dirname(config.dataFile)],
  ];
  for (const [flag, dir] of folders) {
    if (!dir) continue;
    const stat = statSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) throw new UsageError(`${flag}: ${dir} is not a folder`);
  }
}
