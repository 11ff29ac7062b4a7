// The arguments of the small commands (token, wait): --name value or --name=value for the options
// they know, and --help. Each problem is a UsageError naming the command's help.
import { UsageError } from './usage-error.js';

export interface CommandArgs {
  help: boolean;
  /** Option name (without dashes) and trimmed value, in the order given. */
  values: Array<[name: string, value: string]>;
}

export function parseCommandArgs(argv: readonly string[], command: string, names: readonly string[]): CommandArgs {
  const parsed: CommandArgs = { help: false, values: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      parsed.help = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? (eq >= 0 ? arg.slice(2, eq) : arg.slice(2)) : null;
    if (name === null) throw new UsageError(`unexpected argument '${arg}' (see payments-sandbox ${command} --help)`);
    if (!names.includes(name)) throw new UsageError(`unknown option --${name} (see payments-sandbox ${command} --help)`);
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    parsed.values.push([name, value.trim()]);
  }
  return parsed;
}
