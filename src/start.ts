// startSandbox(): the sandbox on a real port, for test code (port 0 picks a free one) and the CLI.
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import type { SandboxConfig } from './config.js';
import type { SandboxEnv } from './http/env.js';
import { buildSandbox, type SandboxDeps } from './sandbox.js';
import { DEFAULT_NAMESPACE } from './store/namespaces.js';

export interface StartOptions extends Partial<SandboxConfig> {
  logger?: Logger;
}

export interface RunningSandbox {
  /** Base URL, e.g. http://127.0.0.1:43121 */
  url: string;
  port: number;
  app: Hono<SandboxEnv>;
  deps: SandboxDeps;
  /** Back to the seeded fixtures (one namespace, `default` unless named). */
  reset(namespace?: string): void;
  /** Base URL of a namespace: /ns/{name}. */
  namespaceUrl(name: string): string;
  /** Flushes pending writes and stops listening. */
  close(): Promise<void>;
}

export async function startSandbox(options: StartOptions = {}): Promise<RunningSandbox> {
  const { logger, ...config } = options;
  const deps = await buildSandbox({ port: 0, ...config }, { logger });
  const app = createApp(deps);
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: deps.config.host, port: deps.config.port }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const host = deps.config.host.includes(':') ? `[${deps.config.host}]` : deps.config.host;
  const url = `http://${host}:${port}`;
  return {
    url,
    port,
    app,
    deps,
    reset: (namespace = DEFAULT_NAMESPACE) => deps.namespaces.reset(namespace),
    namespaceUrl: (name) => `${url}/ns/${encodeURIComponent(name)}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.namespaces.get(DEFAULT_NAMESPACE).store.flush();
    },
  };
}
