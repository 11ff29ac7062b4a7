// The official clients' suites (test/clients/*.test.ts): each starts the built sandbox the way a
// user does (`npx payments-sandbox --merchant-account-header x-gr4vy-merchant-account-id`), then runs
// the client's own test runner (pytest, Maven Surefire with JUnit 5, go test) in `clients/<lang>/`
// with the sandbox's address in SANDBOX_URL. Each toolchain's dependencies install into ignored
// folders of the repository (clients/python/.venv, clients/java/.m2, clients/go/.cache).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ensureBuilt, ROOT, type RunningCli, startCli } from '../cli/support/cli.js';

export { ROOT };
export const CLIENTS = join(ROOT, 'clients');

/** The header name the official clients send the merchant account under. */
export const CLIENT_MERCHANT_HEADER = 'x-gr4vy-merchant-account-id';

/** A sandbox for the official clients: the built CLI on a free port, with the clients' header alias. */
export async function startClientSandbox(extra: string[] = []): Promise<RunningCli> {
  await ensureBuilt();
  return startCli(['--port', '0', '--merchant-account-header', CLIENT_MERCHANT_HEADER, '--log-level', 'warn', ...extra]);
}

/**
 * The client sandbox of a describe block: `prepare` (installing a toolchain's dependencies) and the
 * sandbox's start before its tests, the stop after. Returns the running sandbox's getter.
 */
export function useClientSandbox(prepare?: () => Promise<void>, prepareMs = 0): () => RunningCli {
  let sandbox: RunningCli | undefined;
  beforeAll(async () => {
    await prepare?.();
    sandbox = await startClientSandbox();
  }, prepareMs + 60_000);
  afterAll(async () => {
    await sandbox?.stop();
  });
  return () => {
    if (!sandbox) throw new Error('the client sandbox did not start');
    return sandbox;
  };
}

export interface RunResult {
  code: number | null;
  output: string;
}

/** Runs a command to its end (bounded), its output kept whole for the failure message. */
export function runCommand(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[killed after ${options.timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
