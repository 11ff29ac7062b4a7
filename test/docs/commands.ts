// A command a guide gives, started as a reader starts it (in a shell of its own, from the repository,
// where `npx payments-sandbox` is this package), then stopped with its whole process group.
import { type ChildProcess, spawn } from 'node:child_process';
import { ROOT } from './doc-pages.js';

export { freePort } from '../cluster/support.js';

export function startCommand(command: string): ChildProcess {
  return spawn('sh', ['-c', command], { cwd: ROOT, detached: true, stdio: 'ignore' });
}

export function stopCommand(child: ChildProcess): void {
  if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
}

/** Resolves once the URL answers 200 (polled every 100 ms, as Playwright and `payments-sandbox wait` do); rejects after the time given. */
export async function untilHealthy(url: string, timeoutMs = 45_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return res;
      last = `status ${res.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms: ${last}`);
}
