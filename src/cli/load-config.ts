// loadConfig(argv, env, readFile): the start options from flags, SANDBOX_* variables and a config
// file, in that precedence, over the defaults. Pure (no process, no fs): the caller passes the
// file reader, so tests feed it anything. Every problem is a UsageError with one line that names
// the option, where the value came from and what is accepted.
import { dirname, isAbsolute, resolve } from 'node:path';
import { isLoopbackHost } from '../admin/exposure.js';
import { MERCHANT_ACCOUNT_HEADER } from '../auth/merchant-account.js';
import { defaultConfig, type SandboxConfig } from '../config.js';
import { urlProblem } from '../webhooks/signing.js';
import { parseTargetEntry } from '../webhooks/target-entry.js';
import { LIST_KINDS, type OptionSpec, optionByFlag, START_OPTIONS } from './options.js';
import { UsageError } from './usage-error.js';

export const CONFIG_FILE_NAME = 'sandbox.config.json';

/** Returns the file's text, or null when it does not exist (other read errors throw). */
export type ReadFile = (path: string) => string | null;

export interface LoadConfigOptions {
  cwd?: string;
  /** Whether stdout is a terminal: the log format defaults to pretty there. */
  stdoutIsTty?: boolean;
}

export interface LoadedConfig {
  config: SandboxConfig;
  /** The config file read, if any (absolute path). */
  configFile: string | null;
  help: boolean;
}

type Values = Partial<Record<keyof SandboxConfig, unknown>>;

export function loadConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  readFile: ReadFile,
  options: LoadConfigOptions = {},
): LoadedConfig {
  const cwd = options.cwd ?? '/';
  const flags = parseFlags(argv);
  if (flags.help) return { config: defaultConfig(), configFile: null, help: true };

  const configPath = flags.configFile ?? nonEmpty(env.SANDBOX_CONFIG);
  const file = readConfigFile(configPath ? resolve(cwd, configPath) : resolve(cwd, CONFIG_FILE_NAME), Boolean(configPath), readFile);

  const values: Values = {};
  for (const option of START_OPTIONS) {
    const fromFlag = flags.values.get(option.key);
    const fromEnv = option.env.map((name) => ({ name, value: nonEmpty(env[name]) })).find((e) => e.value !== undefined);
    if (fromFlag !== undefined) values[option.key] = parseText(option, fromFlag.value, `flag --${fromFlag.name}`, cwd);
    else if (fromEnv) values[option.key] = parseText(option, fromEnv.value!, `environment variable ${fromEnv.name}`, cwd);
    else if (file && option.key in file.data)
      values[option.key] = parseJson(option, file.data[option.key], `${file.path} key "${option.key}"`, dirname(file.path));
  }
  if (values.logFormat === undefined) values.logFormat = options.stdoutIsTty ? 'pretty' : 'json';

  const config = defaultConfig(values as Partial<SandboxConfig>);
  checkCombination(config);
  return { config, configFile: file?.path ?? null, help: false };
}

interface ParsedFlags {
  help: boolean;
  configFile: string | undefined;
  values: Map<keyof SandboxConfig, { name: string; value: string }>;
}

function parseFlags(argv: readonly string[]): ParsedFlags {
  const parsed: ParsedFlags = { help: false, configFile: undefined, values: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      parsed.help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument '${arg}' (options start with --; see payments-sandbox start --help)`);
    const eq = arg.indexOf('=');
    let name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    let inline: string | undefined = eq >= 0 ? arg.slice(eq + 1) : undefined;
    const takeValue = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      i++;
      return next;
    };
    if (name === 'config') {
      parsed.configFile = takeValue();
      continue;
    }
    let option = optionByFlag(name);
    if (!option && name.startsWith('no-') && optionByFlag(name.slice(3))?.kind.type === 'boolean') {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      option = optionByFlag(name.slice(3))!;
      name = name.slice(3);
      inline = 'false';
    }
    if (!option) throw new UsageError(`unknown option --${name} (see payments-sandbox start --help)`);
    const value = option.kind.type === 'boolean' ? (inline ?? 'true') : takeValue();
    // A list option given again adds to it (joined as the environment variable holds it).
    const earlier = LIST_KINDS.has(option.kind.type) ? parsed.values.get(option.key) : undefined;
    parsed.values.set(option.key, { name, value: earlier ? `${earlier.value},${value}` : value });
  }
  return parsed;
}

function readConfigFile(path: string, required: boolean, readFile: ReadFile): { path: string; data: Record<string, unknown> } | null {
  let text: string | null;
  try {
    text = readFile(path);
  } catch (err) {
    throw new UsageError(`cannot read the config file ${path}: ${(err as Error).message}`);
  }
  if (text === null) {
    if (required) throw new UsageError(`the config file ${path} does not exist`);
    return null;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the config file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UsageError(`the config file ${path} must hold a JSON object of options`);
  const known = new Set<string>(START_OPTIONS.map((o) => o.key));
  const unknown = Object.keys(data).filter((k) => !known.has(k) && k !== '$schema');
  if (unknown.length) throw new UsageError(`the config file ${path} has unknown key "${unknown[0]}" (keys: ${[...known].join(', ')})`);
  return { path, data: data as Record<string, unknown> };
}

/** A value given as text (flag or environment variable). */
function parseText(option: OptionSpec, text: string, source: string, baseDir: string): unknown {
  const kind = option.kind;
  switch (kind.type) {
    case 'string':
      checkLength(option, text, source);
      return isPathOption(option) ? resolve(baseDir, text) : text;
    case 'integer': {
      const n = /^-?\d+$/.test(text.trim()) ? Number(text) : NaN;
      return checkInteger(option, n, text, source);
    }
    case 'bytes':
      return parseBytes(option, text, source);
    case 'boolean': {
      const lower = text.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(lower)) return true;
      if (['false', '0', 'no', 'off'].includes(lower)) return false;
      throw bad(option, source, 'true or false', text);
    }
    case 'enum':
      if (!kind.values.includes(text)) throw bad(option, source, `one of ${kind.values.join(', ')}`, text);
      return text;
    case 'header-names':
    case 'host-names':
    case 'origins':
    case 'cors-origins':
    case 'webhook-targets':
      return LISTS[kind.type].parse(option, text.split(','), source);
  }
}

/** A value from the config file, already JSON-typed. */
function parseJson(option: OptionSpec, value: unknown, source: string, baseDir: string): unknown {
  const kind = option.kind;
  if (value === null && kind.type === 'string' && kind.nullable) return null;
  switch (kind.type) {
    case 'string':
      if (typeof value !== 'string' || value === '') throw bad(option, source, kind.nullable ? 'a string or null' : 'a string', value);
      checkLength(option, value, source);
      return isPathOption(option) && !isAbsolute(value) ? resolve(baseDir, value) : value;
    case 'integer':
      if (typeof value !== 'number') throw bad(option, source, 'a number', value);
      return checkInteger(option, value, value, source);
    case 'bytes':
      if (typeof value === 'number')
        return checkInteger({ ...option, kind: { type: 'integer', min: kind.min, max: Number.MAX_SAFE_INTEGER } }, value, value, source);
      if (typeof value === 'string') return parseBytes(option, value, source);
      throw bad(option, source, 'a number of bytes or a size like "512kb"', value);
    case 'boolean':
      if (typeof value !== 'boolean') throw bad(option, source, 'true or false', value);
      return value;
    case 'enum':
      if (typeof value !== 'string' || !kind.values.includes(value)) throw bad(option, source, `one of ${kind.values.join(', ')}`, value);
      return value;
    case 'header-names':
    case 'host-names':
    case 'origins':
    case 'cors-origins':
    case 'webhook-targets': {
      const list = LISTS[kind.type];
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw bad(option, source, `an array of ${list.what}`, value);
      return list.parse(option, value, source);
    }
  }
}

type ListReader = (option: OptionSpec, items: readonly string[], source: string) => string[];

/** The list options' entries: what the config file's array holds, and how each list is read. */
const LISTS: Record<'header-names' | 'host-names' | 'origins' | 'cors-origins' | 'webhook-targets', { what: string; parse: ListReader }> = {
  'header-names': { what: 'header names', parse: parseHeaderNames },
  'host-names': { what: 'host names', parse: parseHostNames },
  origins: { what: 'origins', parse: parseOrigins },
  'cors-origins': { what: 'origins or *', parse: parseCorsOrigins },
  'webhook-targets': { what: 'hosts, addresses or CIDR ranges', parse: parseWebhookTargets },
};

/** A DNS name (letters, digits, - and _ in dot-separated labels), optionally starting with a dot (it and its subdomains). */
const HOST_NAME = /^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/;

/** Lower-cased, each once: `name`, `.domain` or `*`; never a port (every port of a name is served). */
function parseHostNames(option: OptionSpec, items: readonly string[], source: string): string[] {
  const names = new Set<string>();
  for (const item of items) {
    const name = item.trim().toLowerCase();
    if (name !== '*' && !HOST_NAME.test(name)) {
      throw bad(option, source, 'host names without port or scheme (sandbox.example, .example.com for it and its subdomains, or * for any)', item);
    }
    names.add(name);
  }
  return [...names];
}

/** Each as a browser writes it in Origin (scheme://host[:port], lower case, no default port); never * or null. */
function parseOrigins(option: OptionSpec, items: readonly string[], source: string): string[] {
  const origins = new Set<string>();
  for (const item of items) {
    const url = URL.canParse(item.trim()) ? new URL(item.trim()) : null;
    const bare =
      url && (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash;
    if (!url || !bare) throw bad(option, source, 'origins such as http://localhost:5173 (scheme, host and port only; not * or null)', item);
    origins.add(url.origin);
  }
  return [...origins];
}

/** Origins as parseOrigins reads them, or `*` alone among them (every origin). */
function parseCorsOrigins(option: OptionSpec, items: readonly string[], source: string): string[] {
  const any = items.some((item) => item.trim() === '*');
  if (!any) return parseOrigins(option, items, source);
  if (items.length > 1) throw bad(option, source, '* alone (every origin) or origins such as http://localhost:5173', items.join(','));
  return ['*'];
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers the sandbox reads for something else: none of them can also choose the merchant account. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'cookie',
  'prefer',
  'x-request-id',
]);

/** Lower-cased, each once; the sandbox's own header is already read, so naming it changes nothing. */
function parseHeaderNames(option: OptionSpec, items: readonly string[], source: string): string[] {
  const names = new Set<string>();
  for (const item of items) {
    const name = item.trim().toLowerCase();
    if (!HEADER_NAME.test(name)) throw bad(option, source, 'header names (letters, digits and - _ . and the like, no spaces)', item);
    if (RESERVED_HEADERS.has(name) || name.startsWith('x-sandbox-')) {
      throw new UsageError(`--${option.flag} cannot be '${name}': the sandbox reads that header for something else (from ${source})`);
    }
    if (name !== MERCHANT_ACCOUNT_HEADER) names.add(name);
  }
  return [...names];
}

/** Hosts, addresses and CIDR ranges, each checked (targets.ts reads them). */
function parseWebhookTargets(option: OptionSpec, items: readonly string[], source: string): string[] {
  const entries = items.map((item) => item.trim()).filter((item) => item !== '');
  for (const entry of entries) {
    const parsed = parseTargetEntry(entry);
    if (typeof parsed === 'string') throw new UsageError(`--${option.flag} ${parsed} (from ${source})`);
  }
  return entries;
}

function checkLength(option: OptionSpec, text: string, source: string): void {
  const kind = option.kind as { minLength?: number; secret?: boolean };
  if (kind.minLength === undefined || text.length >= kind.minLength) return;
  const given = kind.secret ? `${text.length} character${text.length === 1 ? '' : 's'}` : JSON.stringify(text);
  throw new UsageError(`--${option.flag} must be at least ${kind.minLength} characters, got ${given} (from ${source})`);
}

function checkInteger(option: OptionSpec, n: number, given: unknown, source: string): number {
  const kind = option.kind as { min: number; max: number };
  if (!Number.isSafeInteger(n) || n < kind.min || n > kind.max) throw bad(option, source, `an integer from ${kind.min} to ${kind.max}`, given);
  return n;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, k: 1024, mb: 1024 * 1024, m: 1024 * 1024 };

function parseBytes(option: OptionSpec, text: string, source: string): number {
  const match = /^(\d+)\s*(b|kb|k|mb|m)?$/i.exec(text.trim());
  const bytes = match ? Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toLowerCase()] : NaN;
  const min = (option.kind as { min: number }).min;
  if (!Number.isSafeInteger(bytes) || bytes < min) throw bad(option, source, 'a size in bytes, or like 512kb or 2mb', text);
  return bytes;
}

const PATH_OPTIONS: ReadonlySet<keyof SandboxConfig> = new Set(['dataFile', 'fixturesDir', 'scenariosDir', 'tlsCert', 'tlsKey', 'tlsDir', 'reportDir']);

function isPathOption(option: OptionSpec): boolean {
  return PATH_OPTIONS.has(option.key);
}

function bad(option: OptionSpec, source: string, expected: string, given: unknown): UsageError {
  return new UsageError(`--${option.flag} must be ${expected}, got ${JSON.stringify(given)} (from ${source})`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** Options that are fine alone but not together. */
function checkCombination(config: SandboxConfig): void {
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) {
    throw new UsageError(
      `--tls-cert and --tls-key go together: give ${config.tlsCert ? '--tls-key' : '--tls-cert'} too (or neither, for the sandbox CA's certificate)`,
    );
  }
  if (config.tls && config.httpsPort !== null) {
    throw new UsageError('--https-port serves HTTPS beside plain HTTP on --port, and --tls makes --port itself HTTPS: use one of them');
  }
  if (config.httpsPort !== null && config.httpsPort !== 0 && config.httpsPort === config.port) {
    throw new UsageError(`--https-port ${config.httpsPort} is --port too: give HTTPS a port of its own (or use --tls to serve HTTPS on --port)`);
  }
  if (!isLoopbackHost(config.host) && !config.adminToken && config.controlApi !== 'open') {
    throw new UsageError(
      `--host ${config.host} makes the control API (/_sandbox) reachable from other machines: set --admin-token (or SANDBOX_ADMIN_TOKEN) too, or --control-api open where only a port published on 127.0.0.1 reaches it`,
    );
  }
  if (config.store !== 'memory' && !/^redis:\/\/[^/\s:]+(:\d{1,5})?\/?$/.test(config.store)) {
    throw new UsageError(`--store must be memory or redis://HOST:PORT, not '${config.store.slice(0, 80)}'`);
  }
  if (config.store !== 'memory' && config.dataFile) {
    throw new UsageError(
      "--data-file keeps one process's default namespace in a file; with --store redis:// every namespace is kept in Redis: use one of them",
    );
  }
  const forward = config.forwardWebhooksTo === null ? null : urlProblem(config.forwardWebhooksTo);
  if (forward) throw new UsageError(`--forward-webhooks-to must be an http or https URL: ${forward}`);
  checkUpstream(config);
}

/** --upstream is one http(s) URL without credentials; --compare or --record (one of them) needs it, and alone it starts off. */
function checkUpstream(config: SandboxConfig): void {
  if (config.compare && config.record) throw new UsageError('--compare answers as the sandbox and --record as the upstream: use one of them');
  if ((config.compare || config.record) && !config.upstream) {
    throw new UsageError(`--${config.record ? 'record (the record command)' : 'compare'} needs --upstream URL: the real service's address`);
  }
  if (config.compareWrites && !config.upstream)
    throw new UsageError('--compare-writes goes with --compare (or --upstream URL, compare mode switched on later)');
  if (config.upstream === null) return;
  let url: URL;
  try {
    url = new URL(config.upstream);
  } catch {
    throw new UsageError(`--upstream must be an http or https URL, not '${config.upstream.slice(0, 80)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--upstream must be an http or https URL, not ${url.protocol}`);
  if (url.username || url.password) throw new UsageError("--upstream must not hold credentials: the caller's own token is passed through");
  if (url.search || url.hash) throw new UsageError('--upstream is an origin and an optional base path, without a query or fragment');
}
