#!/usr/bin/env -S node --max-semi-space-size=8
// --max-semi-space-size=8 (MB, npm start passes it too): V8 grows the young generation to 2 x 16 MB
// under load by default, 16 MB more resident memory with no measurable gain in requests a second.
// The payments-sandbox command: `start` (the default), `record`, `token`, `wait`, `trigger`, `upstream`, `listen` and `cluster`. Each lives in src/cli/; this file
// only dispatches and turns errors into exit codes (2: wrong usage, 1: could not start).
import { runClusterCommand } from './cli/cluster-command.js';
import { MAIN_HELP, startHelp } from './cli/help.js';
import { ListenError, runListenCommand } from './cli/listen-command.js';
import { readFileOrNull } from './cli/read-file.js';
import { runTokenCommand } from './cli/token-command.js';
import { runTriggerCommand, TriggerError } from './cli/trigger-command.js';
import { runUpstreamCommand } from './cli/upstream-command.js';
import { USAGE_EXIT_CODE, UsageError } from './cli/usage-error.js';
import { runWaitCommand } from './cli/wait-command.js';
import { packageVersion } from './spec/load-spec.js';

/**
 * The start command, loaded only when a command starts the sandbox: --version, help, token and the
 * commands that call a running sandbox then load none of the server (2.6 MB of bundle, 0.2 s of CPU).
 */
async function runStartCommand(...args: Parameters<typeof import('./cli/start-command.js').runStartCommand>): Promise<void> {
  const { runStartCommand: run } = await import('./cli/start-command.js');
  return run(...args);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${MAIN_HELP}\n${startHelp()}`);
  } else if (command === '--version' || command === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
  } else if (command === 'token') {
    process.stdout.write(await runTokenCommand(rest, process.cwd()));
  } else if (command === 'wait') {
    const io = { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr, readFile: readFileOrNull };
    process.exitCode = await runWaitCommand(rest, io);
  } else if (command === 'trigger') {
    process.stdout.write(await runTriggerCommand(rest, process.env));
  } else if (command === 'upstream') {
    process.stdout.write(await runUpstreamCommand(rest, process.env));
  } else if (command === 'listen') {
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.exitCode = await runListenCommand(rest, process.env, { write: (text) => process.stdout.write(text), signal: stop.signal });
  } else if (command === 'cluster') {
    process.stdout.write(await runClusterCommand(rest, process.env));
  } else if (command === 'record') {
    // The upstream answers, the sandbox records: start with --record (an option like any other, so a config file may set it too).
    await runStartCommand([...rest, '--record'], { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
  } else if (command === 'start') {
    await runStartCommand(rest, { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
  } else if (command === undefined || command.startsWith('-')) {
    await runStartCommand(argv, { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
  } else {
    throw new UsageError(
      `unknown command '${command}' (commands: start, record, token, wait, trigger, upstream, listen, cluster; see payments-sandbox --help)`,
    );
  }
}

const argv = process.argv.slice(2);
/** Whether the command starts the sandbox (its failures say "cannot start"; another command's, such as cluster's, do not). */
const starting = argv[0] === undefined || argv[0] === 'start' || argv[0] === 'record' || argv[0].startsWith('-');

main(argv).catch((err: Error) => {
  const usage = err instanceof UsageError;
  process.stderr.write(
    `payments-sandbox: ${usage || err instanceof TriggerError || err instanceof ListenError || !starting ? '' : 'cannot start: '}${err.message}\n`,
  );
  process.exit(usage ? USAGE_EXIT_CODE : 1);
});
