// Running the image for the container tests: podman (or docker) as a child process, configured
// by global-setup.ts (which built the images once). Every container started here has a name
// starting with CONTAINER_PREFIX and is removed by the test that started it.
import { spawn, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { inject } from 'vitest';
import { freePort, waitFor } from '../cluster/support.js';

export { freePort, waitFor };

declare module 'vitest' {
  export interface ProvidedContext {
    containerEngine: string;
    containerEnv: Record<string, string>;
    sandboxImage: string;
    redisImage: string;
    haproxyImage: string;
  }
}

export const CONTAINER_PREFIX = `sandbox-test-${process.pid}`;
let count = 0;
export const containerName = (what: string) => `${CONTAINER_PREFIX}-${what}-${++count}`;

export const engine = () => inject('containerEngine');
export const engineEnv = () => inject('containerEnv');
export const sandboxImage = () => inject('sandboxImage');

export interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `podman ARGS` (or docker), waited for. */
export function cli(args: string[], options: { env?: Record<string, string> } = {}): Result {
  const r = spawnSync(engine(), args, { env: { ...engineEnv(), ...options.env }, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** The same, without blocking the event loop (while the test polls something else). */
export function cliAsync(args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(engine(), args, { env: engineEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export function mustCli(args: string[]): string {
  const r = cli(args);
  if (r.status !== 0) throw new Error(`${engine()} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return r.stdout.trim();
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request on a connection of its own (no keep-alive reuse racing a closing connection). */
export function http(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number; socketPath?: string } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const options = { method: init.method ?? 'GET', headers: init.headers, agent: false, timeout: init.timeoutMs ?? 10_000, socketPath: init.socketPath };
    const req = httpRequest(url, options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${init.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A JSON request: the status and the parsed body (null when empty). */
export async function httpJson(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const headers = { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers };
  const res = await http(url, { method: init.method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  return { status: res.status, body: res.text ? JSON.parse(res.text) : null };
}

export interface RunningContainer {
  name: string;
  port: number;
  url: string;
  /** When `run -d` was started (performance.now()). */
  startedAt: number;
}

export interface RunOptions {
  env?: Record<string, string>;
  volumes?: string[];
  /** Arguments after the image (the CLI's). */
  args?: string[];
  /** Keep the image's HEALTHCHECK timer (podman needs systemd for it; run it by hand instead). */
  healthTimer?: boolean;
}

/** Starts the image detached, published on 127.0.0.1 at a free port (the way the docs say). */
export async function runSandboxContainer(options: RunOptions = {}): Promise<RunningContainer> {
  const name = containerName('sandbox');
  const port = await freePort();
  const args = ['run', '-d', '--name', name, '-p', `127.0.0.1:${port}:4010`];
  if (!options.healthTimer && engine() === 'podman') args.push('--health-interval=disable');
  for (const [key, value] of Object.entries(options.env ?? {})) args.push('-e', `${key}=${value}`);
  for (const volume of options.volumes ?? []) args.push('-v', volume);
  const startedAt = performance.now();
  const r = await cliAsync([...args, sandboxImage(), ...(options.args ?? [])]);
  if (r.status !== 0) throw new Error(`${engine()} run failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { name, port, url: `http://127.0.0.1:${port}`, startedAt };
}

/** Polls GET /_sandbox/health until 200; the time from `run` it took, in ms. */
export async function waitHealthy(container: RunningContainer, ms = 20_000, headers: Record<string, string> = {}): Promise<number> {
  await waitFor(
    `${container.name} healthy`,
    async () => {
      const res = await http(`${container.url}/_sandbox/health`, { headers, timeoutMs: 1000 });
      return res.status === 200 ? true : undefined;
    },
    ms,
  );
  return performance.now() - container.startedAt;
}

export function logs(name: string): string {
  const r = cli(['logs', name]);
  return r.stdout + r.stderr;
}

/** Removes containers (killing them if running) with their anonymous volumes (the image's /data); ignores ones already gone. */
export function removeContainers(...names: string[]): void {
  const present = names.filter(Boolean);
  if (present.length) cli(['rm', '-f', '-v', '-t', '0', ...present]);
}

export interface EngineSocket {
  /** DOCKER_HOST for a Testcontainers library (unset: docker's own socket). */
  dockerHost: string | undefined;
  stop(): void;
}

/**
 * A Docker-compatible socket for a Testcontainers library: with podman, `podman system service` on
 * a socket of the test's own (stopped by `stop`); with docker, its own socket. Ryuk stays disabled
 * (TESTCONTAINERS_RYUK_DISABLED=true): it needs a privileged container of its own.
 */
export async function engineSocket(dir: string): Promise<EngineSocket> {
  if (engine() !== 'podman') return { dockerHost: process.env.DOCKER_HOST, stop: () => {} };
  const socket = `${dir}/podman.sock`;
  const service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { env: engineEnv(), stdio: 'ignore' });
  await waitFor('the podman socket', async () => ((await http('http://d/_ping', { socketPath: socket, timeoutMs: 1000 })).status === 200 ? true : undefined));
  return { dockerHost: `unix://${socket}`, stop: () => service.kill('SIGTERM') };
}
