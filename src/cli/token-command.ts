// `payments-sandbox token`: prints one signed bearer token on stdout and nothing else, so
// TOKEN=$(npx payments-sandbox token) works in shells and CI scripts.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mintToken, parseTtl } from '../auth/mint-token.js';
import { packageRoot } from '../spec/load-spec.js';
import { parseCommandArgs } from './command-args.js';
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
  const { help, values } = parseCommandArgs(argv, 'token', ['key', 'scopes', 'ttl']);
  const args: TokenArgs = { keyFile: defaultKeyFile(), scopes: undefined, ttlSeconds: 3600, help };
  for (const [name, value] of values) {
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
