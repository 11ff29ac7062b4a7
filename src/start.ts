// startSandbox(): the sandbox on a real port, for test code (port 0 picks a free one) and the CLI.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { defaultKeysDir } from '../fixtures/keys-dir.js';
import { WELL_KNOWN } from '../fixtures/well-known.js';
import { createApp } from './app.js';
import { type MintOptions, mintToken } from './auth/mint-token.js';
import type { SandboxConfig } from './config.js';
import type { SandboxEnv } from './http/call.js';
import { answerClientErrors } from './http/client-errors.js';
import { DEFAULT_NAMESPACE } from './namespace/registry.js';
import { buildSandbox, type SandboxDeps } from './sandbox.js';
import { watchSources } from './watch/watch-sources.js';

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
  /** A bearer token (without "Bearer ") signed with the well-known admin key: every scope unless narrowed. */
  token(options?: Omit<MintOptions, 'privateKeyPem'>): Promise<string>;
  /** Flushes pending writes and stops listening. */
  close(): Promise<void>;
}

export async function startSandbox(options: StartOptions = {}): Promise<RunningSandbox> {
  const { logger, ...config } = options;
  const deps = await buildSandbox({ port: 0, ...config }, { logger });
  const app = createApp(deps);
  const adminKey = readFileSync(join(defaultKeysDir(), WELL_KNOWN.keyPairs.admin.keyFile), 'utf8');
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: deps.config.host, port: deps.config.port, serverOptions: serverTimeouts(deps.config.requestTimeoutMs) }, () =>
      resolve(s),
    );
    s.once('error', reject);
    answerClientErrors(s as Server); // 408, 431 and unparsable requests get a JSON error body too
  });
  const watcher = deps.config.watch ? watchSources(deps, deps.logger) : null; // --watch: reload fixtures (and scenarios)
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
    token: (tokenOptions = {}) => mintToken({ ...tokenOptions, privateKeyPem: adminKey }),
    close: async () => {
      watcher?.close();
      // Idle keep-alive sockets (fetch keeps them) would hold close() open until they time out.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      await closed;
      await deps.webhooks.close(); // timers and attempts in flight stop; pending deliveries stay recorded
      await deps.namespaces.get(DEFAULT_NAMESPACE).store.flush();
    },
  };
}

/**
 * Node's server timeouts, so a slow or stalled client cannot hold a connection (and its buffers)
 * forever: the headers and the whole request must arrive within `requestTimeoutMs` (default 30 s;
 * Node answers 408 and closes), an idle keep-alive connection closes after 5 s. Node checks these
 * on an interval, a tenth of the timeout here (its default, 30 s, would outlive short timeouts).
 */
export function serverTimeouts(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.round(requestTimeoutMs / 10))),
  };
}
