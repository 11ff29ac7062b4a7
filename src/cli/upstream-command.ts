// `payments-sandbox upstream [off|record|compare]`: shows or switches the mode of a running sandbox
// started with --upstream URL (GET and PUT /_sandbox/upstream). The upstream's address is the one
// the sandbox was started with: no command or request chooses another.

import { UPSTREAM_MODES, type UpstreamMode } from '../upstream/modes.js';
import { parseCommandArgs } from './command-args.js';
import { controlCall, sandboxUrlOf } from './control-call.js';
import { UPSTREAM_HELP } from './help.js';
import { UsageError } from './usage-error.js';

/** Thrown when the sandbox refused or could not be reached: exit code 1. */
export class UpstreamCommandError extends Error {}

interface UpstreamState {
  url: string;
  mode: string;
  compare_writes: boolean;
  modes_used: string[];
}

/** Runs the command; resolves to the text for stdout. */
export async function runUpstreamCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const mode = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  const { help, values } = parseCommandArgs(mode === undefined ? argv : argv.slice(1), 'upstream', ['url', 'admin-token']);
  if (help) return UPSTREAM_HELP;
  if (mode !== undefined && !UPSTREAM_MODES.includes(mode as UpstreamMode))
    throw new UsageError(`upstream takes a mode: off, record or compare, not '${mode.slice(0, 40)}'`);
  const options = new Map(values);
  const target = { url: sandboxUrlOf(options.get('url'), env), adminToken: options.get('admin-token') ?? (env.SANDBOX_ADMIN_TOKEN || undefined) };
  const fail = (message: string) => new UpstreamCommandError(message);
  const state: UpstreamState =
    mode === undefined ? await controlCall(target, 'GET', '/upstream', undefined, fail) : await controlCall(target, 'PUT', '/upstream', { mode }, fail);
  const used = state.modes_used.length ? state.modes_used.join(' and ') : 'none yet';
  const writes = state.compare_writes ? 'sent (--compare-writes)' : 'not sent';
  return `upstream ${state.url}: mode ${state.mode}\n  modes used since start: ${used} (a stop writes their files)\n  writes in compare mode: ${writes}\n`;
}
