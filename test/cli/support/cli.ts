// Runs the built CLI (dist/bundle/cli.js, what npm start and the bin run) as a child process, the
// way a person or CI does. ensureBuilt() compiles once for every test file (a lock folder keeps
// parallel workers from running tsc at the same time) and skips the build when dist is newer than
// every source.
import { type ChildProcessWithoutNullStreams, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../../..');
export const CLI = join(ROOT, 'dist/bundle/cli.js');
const SOURCES = ['src', 'fixtures'];

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (/\.(ts|tsx|json|css)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  const built = statSync(CLI, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return built > Math.max(...SOURCES.map((s) => newestSource(join(ROOT, s))), statSync(join(ROOT, 'openapi.json')).mtimeMs);
}

/** `npm run build` unless dist is already newer than the sources. */
export async function ensureBuilt(): Promise<void> {
  const lock = join(tmpdir(), `payments-sandbox-build-${Buffer.from(ROOT).toString('hex').slice(-32)}.lock`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed run (older than any build takes) is stale.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 150_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`build lock ${lock} held for 2 minutes; remove it if no test run is building`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (!isFresh()) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`npm run build failed:\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
  } finally {
    rmdirSync(lock);
  }
}

/** The environment of a child: ours without any SANDBOX_* or PORT, plus `extra`. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SANDBOX_') && k !== 'PORT'));
  return { ...env, ...extra };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command that ends by itself (token, --help, a usage error). */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile('node', [CLI, ...args], { cwd: options.cwd ?? ROOT, env: childEnv(options.env), timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

export interface RunningCli {
  url: string;
  /** The second URL of the banner's first line (--https-port), if any. */
  secondUrl: string | undefined;
  proc: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and resolves with the exit code once the process ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the server and resolves once the banner names its URL (bounded wait). */
export function startCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<RunningCli> {
  const proc = spawn('node', [CLI, ...args], { cwd: options.cwd ?? ROOT, env: childEnv(options.env) });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`no banner within 30 s; stderr: ${err}`));
    }, 30_000);
    proc.stderr.on('data', (d) => {
      err += d;
      const match = /listening on (https?:\/\/\S+)(?: and (https:\/\/\S+))?/.exec(err);
      if (match && err.includes('\n')) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          secondUrl: match[2],
          proc,
          stdout: () => out,
          stderr: () => err,
          stop: async (signal = 'SIGTERM') => {
            if (proc.exitCode === null) proc.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the CLI exited with ${code} before listening; stderr: ${err}`));
    });
  });
}

/** Polls `check` until it returns a value (not undefined) or the bounded wait ends. */
export async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The token the well-known admin key signs, minted by the CLI. */
export async function cliToken(args: string[] = []): Promise<string> {
  const result = await runCli(['token', ...args]);
  if (result.code !== 0) throw new Error(`token failed: ${result.stderr}`);
  return result.stdout.trim();
}
