// `payments-sandbox start`: load the options, boot the sandbox with a pino logger made from them,
// print the banner, and on SIGINT/SIGTERM (or when the npm process that launched it is gone) flush
// state and print a one-line summary (exit code 0).
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../config.js';
import { createLogger } from '../logging/logger.js';
import type { RunningSandbox } from '../start.js';
import { watchedFolders } from '../watch/watch-sources.js';
import { formatBanner, reachableUrl } from './banner.js';
import { startHelp } from './help.js';
import { findLauncher, watchLauncher } from './launcher-watch.js';
import { loadConfig } from './load-config.js';
import { readFileOrNull } from './read-file.js';
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
  // The server, loaded once the options are known good: a usage error loads none of it.
  const { startSandbox } = await import('../start.js');
  const sandbox = await startSandbox({ ...config, logger });
  const stop = stopOnSignals(sandbox, logger, io, startedAt); // before the banner: whoever reads it may signal at once
  const launcher = findLauncher(io.env);
  if (launcher) {
    watchLauncher(launcher, () => {
      logger.info({ launcher }, `the process that started payments-sandbox (${launcher.name}, pid ${launcher.pid}) has ended: stopping`);
      void stop({ launcherGone: launcher.pid });
    });
  }
  io.stderr.write(
    formatBanner({
      version: sandbox.deps.version,
      url: sandbox.url,
      secondUrl: sandbox.httpsUrl !== sandbox.url ? sandbox.httpsUrl : null,
      tls: sandbox.tls,
      forward: sandbox.deps.webhooks.forward,
      config,
      keyFile: defaultKeyFile(),
      configFile: loaded.configFile,
      watching: config.watch ? watchedFolders(config) : [],
      image: io.env.SANDBOX_IMAGE || null,
    }),
  );
  const urls = [sandbox.url, ...(sandbox.httpsUrl && sandbox.httpsUrl !== sandbox.url ? [sandbox.httpsUrl] : [])].map(reachableUrl);
  logger.info(
    {
      url: urls[0],
      ...(urls[1] ? { httpsUrl: urls[1] } : {}),
      seed: config.seed,
      dataFile: config.dataFile,
      auth: config.auth,
      ca: sandbox.tls?.caFile,
      pid: process.pid,
      launcher: launcher ?? undefined,
    },
    `listening on ${urls.join(' and ')}`,
  );
}

/** Why the server stops: a signal, or the launcher watched by launcher-watch.ts has ended. */
type StopCause = { signal: NodeJS.Signals } | { launcherGone: number };

/** Stops gracefully (flush, summary, exit 0) on SIGINT and SIGTERM; returns the same stop for other causes. */
function stopOnSignals(sandbox: RunningSandbox, logger: Logger, io: StartIo, startedAt: number): (cause: StopCause) => Promise<void> {
  let stopping = false;
  const stop = async (cause: StopCause) => {
    const what = 'signal' in cause ? cause.signal : 'launcher exit';
    if (stopping) {
      io.stderr.write(`payments-sandbox: ${what} again, exiting without waiting\n`);
      process.exit(130);
    }
    stopping = true;
    try {
      await sandbox.close();
    } catch (err) {
      io.stderr.write(`payments-sandbox: could not flush state on ${what}: ${(err as Error).message}\n`);
      process.exit(1);
    }
    let drift = false;
    const { DRIFT_EXIT_CODE, writeUpstreamFiles } = await import('./upstream-files.js');
    try {
      const written = writeUpstreamFiles(sandbox.deps, io.cwd);
      if (written) {
        if (written.summary) io.stderr.write(written.summary);
        io.stderr.write(`payments-sandbox: wrote ${written.files.join(', ')}\n`);
        drift = written.drift;
      }
    } catch (err) {
      io.stderr.write(`payments-sandbox: could not write the upstream files (compare report, recording): ${(err as Error).message}\n`);
      process.exit(1);
    }
    const summary = shutdownSummary((performance.now() - startedAt) / 1000, sandbox.deps.stats.requests, sandbox.deps.config.dataFile);
    logger.info({ ...cause, requests: sandbox.deps.stats.requests }, summary);
    io.stderr.write(`${summary}\n`);
    process.exit(drift && sandbox.deps.config.failOnDrift ? DRIFT_EXIT_CODE : 0);
  };
  process.on('SIGINT', (signal) => stop({ signal }));
  process.on('SIGTERM', (signal) => stop({ signal }));
  return stop;
}

export function shutdownSummary(seconds: number, requests: number, dataFile: string | null): string {
  // Thousands grouped by hand: toLocaleString loads the ICU data at the first call, 25 ms of every stop.
  const count = `${String(requests).replace(/\B(?=(\d{3})+$)/g, ',')} request${requests === 1 ? '' : 's'}`;
  const state = dataFile ? `state flushed to ${dataFile}` : 'state was in memory';
  return `payments-sandbox stopped after ${seconds.toFixed(1)} s: ${count}, ${state}`;
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
  for (const [flag, file] of [
    ['--tls-cert', config.tlsCert],
    ['--tls-key', config.tlsKey],
  ] as const) {
    if (file && !statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`${flag}: ${file} is not a file`);
  }
  // The CA folder is made on first use; something else by that name is a mistake.
  const tlsDir = config.tlsDir && statSync(config.tlsDir, { throwIfNoEntry: false });
  if (tlsDir && !tlsDir.isDirectory()) throw new UsageError(`--tls-dir: ${config.tlsDir} is not a folder`);
}
