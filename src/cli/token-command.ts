// `payments-sandbox token`: prints one signed bearer token on stdout and nothing else, so
// TOKEN=$(npx payments-sandbox token) works in shells and CI scripts.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mintToken, parseTtl } from '../auth/mint-token.js';
import { packageRoot } from '../spec/load-spec.js';
import { TOKEN_HELP } from './help.js';
import { UsageError } from './usage-error.js';

export interface TokenArgs {
  keyFile: string;
  scopes: string[] | undefined;
  ttlSeconds: number;
  help: boolean;
}

/** The well-known admin key pair's private key, shipped with the package. */
export function defaultKeyFile(): string {
  return join(packageRoot(), 'fixtures', 'keys', 'admin.pem');
}

const SCOPE = /^[A-Za-z0-9*][A-Za-z0-9_.*-]*$/;

export function parseTokenArgs(argv: readonly string[], cwd: string): TokenArgs {
  const args: TokenArgs = { keyFile: defaultKeyFile(), scopes: undefined, ttlSeconds: 3600, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      args.help = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? (eq >= 0 ? arg.slice(2, eq) : arg.slice(2)) : null;
    if (name === null) throw new UsageError(`unexpected argument '${arg}' (see payments-sandbox token --help)`);
    if (!['key', 'scopes', 'ttl'].includes(name)) throw new UsageError(`unknown option --${name} (see payments-sandbox token --help)`);
    let value: string | undefined = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    value = value.trim();
    if (name === 'key') args.keyFile = resolve(cwd, value);
    if (name === 'scopes') args.scopes = parseScopes(value);
    if (name === 'ttl') args.ttlSeconds = parseTtlOption(value);
  }
  return args;
}

function parseScopes(text: string): string[] {
  const scopes = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!scopes.length) throw new UsageError('--scopes needs at least one scope, e.g. --scopes buyers.read,transactions.read');
  const badScope = scopes.find((s) => !SCOPE.test(s));
  if (badScope) throw new UsageError(`--scopes: '${badScope}' is not a scope (e.g. buyers.read, *.write, embed)`);
  return scopes;
}

function parseTtlOption(text: string): number {
  let seconds: number;
  try {
    seconds = parseTtl(text);
  } catch (err) {
    throw new UsageError(`--ttl: ${(err as Error).message}`);
  }
  if (seconds <= 0) throw new UsageError('--ttl must be longer than 0 seconds');
  return seconds;
}

/** Runs the command; resolves to the text for stdout. */
export async function runTokenCommand(argv: readonly string[], cwd: string): Promise<string> {
  const args = parseTokenArgs(argv, cwd);
  if (args.help) return TOKEN_HELP;
  let pem: string;
  try {
    pem = readFileSync(args.keyFile, 'utf8');
  } catch (err) {
    throw new UsageError(`--key: cannot read ${args.keyFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return `${await mintToken({ privateKeyPem: pem, scopes: args.scopes, ttlSeconds: args.ttlSeconds })}\n`;
  } catch (err) {
    throw new UsageError(`--key: ${args.keyFile} is not a usable private key (PEM, ECDSA P-521 or RSA): ${(err as Error).message}`);
  }
}
