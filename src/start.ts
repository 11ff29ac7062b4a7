// startSandbox(): the sandbox on a real port, for test code (port 0 picks a free one) and the CLI.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { defaultKeysDir } from '../fixtures/keys-dir.js';
import { WELL_KNOWN } from '../fixtures/well-known.js';
import { createApp } from './app.js';
import { type MintOptions, mintToken } from './auth/mint-token.js';
import { defaultConfig, type SandboxConfig } from './config.js';
import type { SandboxEnv } from './http/call.js';
import { answerClientErrors, sandboxRequestListener } from './http/client-errors.js';
import { DEFAULT_NAMESPACE } from './namespace/registry.js';
import { buildSandbox, closeSandbox, type SandboxDeps } from './sandbox.js';
import { closeIdleSessions, secureServerFactory } from './tls/secure-server.js';
import { mainPortTls, type TlsMaterial, tlsMaterial, usesTls } from './tls/tls-material.js';
import { watchSources } from './watch/watch-sources.js';

export interface StartOptions extends Partial<SandboxConfig> {
  logger?: Logger;
}

export interface RunningSandbox {
  /** Base URL, e.g. http://127.0.0.1:43121 (https:// when `tls` makes the port HTTPS). */
  url: string;
  port: number;
  /** The HTTPS base URL: `url` itself with `tls`, the second port's with `httpsPort`, else null. */
  httpsUrl: string | null;
  /** The certificate HTTPS is served with, and the sandbox CA to trust (null without HTTPS). */
  tls: TlsMaterial | null;
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
  const { logger, ...given } = options;
  const config = defaultConfig({ port: 0, ...given });
  // Before the store opens: a certificate problem stops the start with nothing to undo.
  const tls = usesTls(config) ? await tlsMaterial(config) : null;
  const deps = await buildSandbox(config, { logger });
  const app = createApp(deps);
  const adminKey = readFileSync(join(defaultKeysDir(), WELL_KNOWN.keyPairs.admin.keyFile), 'utf8');
  const servers: ServerType[] = [];
  try {
    servers.push(await listen(app, deps, config.port, mainPortTls(config) ? tls : null, 'port'));
    if (config.httpsPort !== null) servers.push(await listen(app, deps, config.httpsPort, tls, 'https-port'));
    // Deliveries never go to the sandbox itself (a --forward-webhooks-to URL that does stops the start).
    for (const server of servers) {
      const { address, port } = server.address() as AddressInfo;
      deps.webhooks.listeningOn(address, port);
    }
  } catch (err) {
    await Promise.all(servers.map(closeServer));
    await deps.host.close();
    throw err;
  }
  const watcher = deps.config.watch ? watchSources(deps, deps.logger) : null; // --watch: reload fixtures (and scenarios)
  const portOf = (server: ServerType) => (server.address() as AddressInfo).port;
  const url = urlOf(config.host, portOf(servers[0]), mainPortTls(config));
  deps.node.id ||= `${config.host.includes(':') ? `[${config.host}]` : config.host}:${portOf(servers[0])}`; // x-sandbox-node without --node-id
  try {
    await deps.host.start(deps.node.id, url); // a shared sandbox: joins the others under that id
  } catch (err) {
    watcher?.close();
    await Promise.all(servers.map(closeServer));
    await deps.host.close();
    throw err;
  }
  const httpsUrl = mainPortTls(config) ? url : servers[1] ? urlOf(config.host, portOf(servers[1]), true) : null;
  return {
    url,
    port: portOf(servers[0]),
    httpsUrl,
    tls,
    app,
    deps,
    reset: (namespace = DEFAULT_NAMESPACE) => deps.namespaces.reset(namespace),
    namespaceUrl: (name) => `${url}/ns/${encodeURIComponent(name)}`,
    token: (tokenOptions = {}) => mintToken({ ...tokenOptions, privateKeyPem: adminKey }),
    close: async () => {
      await deps.host.drain(); // a shared sandbox's node: health 503, calls served until the proxy stops sending them
      watcher?.close();
      deps.journalFeed.closeAll(); // open event streams end, so their connections can close
      await Promise.all(servers.map(closeServer));
      await closeSandbox(deps);
    },
  };
}

function urlOf(host: string, port: number, https: boolean): string {
  return `${https ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Listens on the port: plain HTTP/1.1, or with `tls` HTTPS, HTTP/2 or HTTP/1.1 as the client's ALPN
 * asks. Node's own Host check is off: its 400 has no body, the sandbox's listener answers instead.
 */
function listen(app: Hono<SandboxEnv>, deps: SandboxDeps, port: number, tls: TlsMaterial | null, flag: 'port' | 'https-port'): Promise<ServerType> {
  const { host, requestTimeoutMs } = deps.config;
  const timeouts = serverTimeouts(requestTimeoutMs);
  const listener = sandboxRequestListener(app.fetch, host, deps.logger);
  const s: ServerType = tls
    ? secureServerFactory(timeouts)({ allowHTTP1: true, key: tls.key, cert: tls.cert }, listener)
    : createServer({ ...timeouts, requireHostHeader: false }, listener);
  answerClientErrors(s as Server, deps.logger); // 408, 431 and unparsable requests get a JSON error body too (and a log line)
  // The usual first HTTPS problem: a client that does not trust the sandbox CA ends the handshake.
  if (tls) s.on('tlsClientError', (err: NodeJS.ErrnoException) => deps.logger.info({ code: err.code }, handshakeFailure(err.code, tls)));
  return new Promise((resolve, reject) => {
    s.once('error', (err: NodeJS.ErrnoException) => reject(listenFailure(err, host, port, flag)));
    s.listen(port, host, () => resolve(s));
  });
}

/** A port in use or refused, said with how to choose another (the bare EADDRINUSE named no way out). */
function listenFailure(err: NodeJS.ErrnoException, host: string, port: number, flag: 'port' | 'https-port'): Error {
  const env = flag === 'port' ? 'SANDBOX_PORT or PORT' : 'SANDBOX_HTTPS_PORT';
  const choose = `choose another with --${flag} ${port === 4010 ? 4011 : 4010} (or ${env}), or --${flag} 0 for a free one (the banner prints it)`;
  if (err.code === 'EADDRINUSE') return Object.assign(new Error(`port ${port} on ${host} is already in use (another sandbox?): ${choose}`), { code: err.code });
  if (err.code === 'EACCES') return Object.assign(new Error(`port ${port} on ${host} needs privileges this process lacks: ${choose}`), { code: err.code });
  return err;
}

function handshakeFailure(code: string | undefined, tls: TlsMaterial): string {
  if (code === 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA' || code === 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE') {
    return `a client refused the certificate: it does not trust ${tls.caFile ? `the sandbox CA (${tls.caFile}; see the banner's trust line)` : `the issuer of ${tls.certFile}`}`;
  }
  if (code === 'ERR_SSL_HTTP_REQUEST') return 'a client sent plain HTTP to this HTTPS port: use https://';
  return `a TLS handshake failed (${code ?? 'no code'})`;
}

function closeServer(server: ServerType): Promise<void> {
  if (!server.listening) return Promise.resolve();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Idle keep-alive connections (fetch keeps them; HTTP/2 sessions) would hold close() open until they
  // time out. A busy client's sockets are idle only between its requests, so they are looked for
  // until all are gone: a request in progress ends with its answer, one not yet read is never answered.
  const closeIdle = () => {
    if ('closeIdleConnections' in server) server.closeIdleConnections();
    closeIdleSessions(server);
  };
  closeIdle();
  const closing = setInterval(closeIdle, 10);
  void closed.then(() => clearInterval(closing));
  return closed;
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
