// `payments-sandbox wait`: for CI scripts, waits until the sandbox answers its health route, so a
// script starts the server in the background and goes on once it is ready, without an endless
// curl loop. Exit code 0 when healthy; 1 with one line when the time is up (or when the control API
// refuses the admin token: waiting will not change that); 2 for a usage error.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { ADMIN_TOKEN_HEADER } from '../admin/admin-token.js';
import type { SandboxConfig } from '../config.js';
import { parseDuration } from '../scenarios/duration.js';
import { mainPortTls, tlsDirOf } from '../tls/tls-material.js';
import { parseCommandArgs } from './command-args.js';
import { WAIT_HELP } from './help.js';
import { loadConfig, type ReadFile } from './load-config.js';
import { UsageError } from './usage-error.js';

export interface WaitIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  readFile: ReadFile;
}

/** Time between two tries, and the longest and shortest a single try may take. */
const POLL_MS = 100;
const TRY_MS = 2_000;
const MIN_TRY_MS = 100;

interface WaitArgs {
  url: string | undefined;
  timeoutMs: number;
  help: boolean;
}

function parseWaitArgs(argv: readonly string[]): WaitArgs {
  const { help, values } = parseCommandArgs(argv, 'wait', ['url', 'timeout']);
  const args: WaitArgs = { url: undefined, timeoutMs: 30_000, help };
  for (const [name, value] of values) {
    if (name === 'url') args.url = value;
    else args.timeoutMs = parseTimeout(value);
  }
  return args;
}

function parseTimeout(text: string): number {
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : parseDuration(text);
  if (ms === null || ms <= 0) throw new UsageError(`--timeout must be a duration like 30s, 500ms or 2m (or a number of seconds), got ${JSON.stringify(text)}`);
  return ms;
}

/** The URL `payments-sandbox start` would listen on with the same environment and config file. */
function startUrl(config: SandboxConfig): string {
  if (config.port === 0) throw new UsageError('the start options say --port 0 (a free port): give the URL the sandbox printed with --url');
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `${mainPortTls(config) ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

export async function runWaitCommand(argv: readonly string[], io: WaitIo): Promise<number> {
  const args = parseWaitArgs(argv);
  if (args.help) {
    io.stdout.write(WAIT_HELP);
    return 0;
  }
  // The start options (SANDBOX_* variables, sandbox.config.json) give the default URL, the CA
  // folder and the admin token: what a script exported for the server serves its wait too.
  const { config } = loadConfig([], io.env, io.readFile, { cwd: io.cwd });
  const base = args.url ?? startUrl(config);
  let url: URL;
  try {
    url = new URL(`${base.replace(/\/+$/, '')}/_sandbox/health`);
  } catch {
    throw new UsageError(`--url must be an http:// or https:// URL, got ${JSON.stringify(base)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must be an http:// or https:// URL, got ${JSON.stringify(base)}`);

  const ca = url.protocol === 'https:' ? trustedCas(config, io) : undefined;
  const headers: Record<string, string> = config.adminToken ? { [ADMIN_TOKEN_HEADER]: config.adminToken } : {};
  const startedAt = Date.now();
  const deadline = startedAt + args.timeoutMs;
  let last = 'no answer yet';
  for (let tries = 0; ; tries++) {
    const left = deadline - Date.now();
    // A try squeezed into the last moments says nothing new (a busy machine's timers run late).
    if (tries > 0 && left < MIN_TRY_MS) break;
    const answer = await probe(url, { ca, headers, timeoutMs: Math.max(MIN_TRY_MS, Math.min(TRY_MS, left)) });
    if (answer.status === 200 && answer.body?.status === 'ok') {
      io.stdout.write(`payments-sandbox ${answer.body.version} is ready at ${base} (${((Date.now() - startedAt) / 1000).toFixed(1)} s)\n`);
      return 0;
    }
    if (answer.status === 401 || answer.status === 403) {
      const what = config.adminToken
        ? 'refuses the admin token given (SANDBOX_ADMIN_TOKEN or the config file)'
        : 'needs the admin token: set SANDBOX_ADMIN_TOKEN';
      io.stderr.write(`payments-sandbox: the sandbox at ${base} is up but its control API ${what}\n`);
      return 1;
    }
    last = answer.status !== undefined ? `HTTP ${answer.status} from ${url.href}, not the sandbox's health` : (answer.error ?? 'no answer');
    if (Date.now() + POLL_MS >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  io.stderr.write(`payments-sandbox: no sandbox was ready at ${base} within ${formatMs(args.timeoutMs)} (last try: ${last})\n`);
  return 1;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * For an https URL: the usual roots, the sandbox CA of the start options' folder (once it exists),
 * the user's certificate (--tls-cert: self-signed ones are their own root) and NODE_EXTRA_CA_CERTS,
 * which a `ca` option would otherwise leave out.
 */
function trustedCas(config: SandboxConfig, io: WaitIo): string[] {
  const files = [join(tlsDirOf(config), 'ca.pem'), config.tlsCert, io.env.NODE_EXTRA_CA_CERTS];
  const extra = files.flatMap((file) => {
    if (!file) return [];
    try {
      return [readFileSync(file, 'utf8')];
    } catch {
      return []; // not made yet (the server makes the CA as it starts): read again on the next run
    }
  });
  return [...rootCertificates, ...extra];
}

interface Answer {
  status?: number;
  body?: { status?: unknown; version?: unknown };
  error?: string;
}

function probe(url: URL, options: { ca: string[] | undefined; headers: Record<string, string>; timeoutMs: number }): Promise<Answer> {
  return new Promise((resolve) => {
    const get = url.protocol === 'https:' ? https.get : http.get;
    const req = get(url, { ca: options.ca, headers: options.headers, agent: false, timeout: options.timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (text.length < 65_536) text += chunk;
      });
      res.on('end', () => {
        let body: Answer['body'];
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode, body });
      });
      res.on('error', () => resolve({ status: res.statusCode }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${formatMs(options.timeoutMs)}`), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: describeError(err) }));
  });
}

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND') return `unknown host (${err.message})`;
  if (err.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || err.code === 'SELF_SIGNED_CERT_IN_CHAIN' || err.code === 'DEPTH_ZERO_SELF_SIGNED_CERT') {
    return `the certificate is not trusted (${err.code}): start the sandbox with the same --tls-dir, or set NODE_EXTRA_CA_CERTS`;
  }
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
