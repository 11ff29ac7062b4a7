// Boot: everything createApp needs, built once. Reads openapi.json, compiles its validators, checks
// that every operation has a handler (and every handler an operation), seeds the fixtures and opens
// the store.

import { join } from 'node:path';
import { type CryptoKey, generateKeyPair, SignJWT } from 'jose';
import type { Logger } from 'pino';
import { seedData } from '../fixtures/seed-cache.js';
import { assertSafeExposure } from './admin/exposure.js';
import { adminHandlers } from './admin/index.js';
import { namespaceViews } from './admin/namespaces.js';
import { dataFileRecordCheck, dataFileReferenceCheck } from './admin/snapshot.js';
import type { AdminDeps, AdminHandlerMap } from './admin/types.js';
import { TokenCache } from './auth/verify-token.js';
import { Cluster } from './cluster/cluster.js';
import { defaultConfig, type SandboxConfig } from './config.js';
import { OperationRouter } from './http/operation-router.js';
import type { NodeName } from './http/request-id.js';
import { JournalFeed } from './journal/feed.js';
import { journalKind } from './journal/journal.js';
import { PendingJournals } from './journal/pending.js';
import { createLogger } from './logging/logger.js';
import { RequestMetrics } from './logging/metrics.js';
import type { RequestStats } from './logging/request-log.js';
import type { NamespaceHost } from './namespace/host.js';
import { LocalHost, LocalStorage } from './namespace/local-host.js';
import { NamespaceRegistry } from './namespace/registry.js';
import { apiHandlers } from './resources/index.js';
import { approvalTimedChanges } from './resources/payment-methods/approval.js';
import { reportClockKind } from './resources/reports/scheduler.js';
import type { HandlerMap, HandlerServices } from './resources/types.js';
import { builtInScenarios } from './scenarios/catalog-cache.js';
import { fileCatalog } from './scenarios/load-scenarios.js';
import { scenarioStateKind } from './scenarios/state.js';
import type { ScenarioCatalog } from './scenarios/types.js';
import { loadSpec, packageRoot, packageVersion } from './spec/load-spec.js';
import { indexSpec, type SpecIndex } from './spec/operations.js';
import { FixtureSource } from './store/fixture-overrides.js';
import type { StoreData } from './store/records.js';
import { Store } from './store/store.js';
import { modeAtStart } from './upstream/modes.js';
import { Upstream } from './upstream/upstream.js';
import { inboxKind } from './webhooks/inbox.js';
import { WebhookService } from './webhooks/service.js';

export interface ServedApi {
  spec: SpecIndex;
  router: OperationRouter;
  handlers: HandlerMap;
}

export interface ServedAdmin {
  spec: SpecIndex;
  router: OperationRouter;
  handlers: AdminHandlerMap;
  /** What its handlers may use of the sandbox. */
  deps: AdminDeps;
}

export interface SandboxDeps {
  config: SandboxConfig;
  version: string;
  api: ServedApi;
  admin: ServedAdmin;
  namespaces: NamespaceRegistry;
  /** Scenario files (built-in, and --scenarios-dir's), checked against openapi.json at boot; namespaces add their own. */
  scenarios: ScenarioCatalog;
  /** A fresh deep copy of the seeded fixtures. */
  fixtures: () => StoreData;
  /** Where `fixtures()` comes from: the generated data with config.fixturesDir merged in (reloadable). */
  fixtureSource: FixtureSource;
  /** Requests to namespaces not created yet, set aside for their journal. */
  pendingJournals: PendingJournals;
  /** Followers of the live journal: ended on close, or their streams would hold the server open. */
  journalFeed: JournalFeed;
  /** Counters for the shutdown summary and GET /_sandbox/metrics. */
  stats: RequestStats;
  /** This process's id (x-sandbox-node): --node-id, else host:port once it listens (start.ts). */
  node: NodeName;
  /** Where namespaces live: this process alone, or with --store redis:// a node of the shared sandbox (joins once listening: start.ts). */
  host: NamespaceHost;
  tokenCache: TokenCache;
  services: HandlerServices;
  /** Event catalog, delivery transport and options shared by every namespace's webhooks; close() stops them. */
  webhooks: WebhookService;
  /** --upstream: the real service's client, its mode (off, record or compare) and what it found; null without. */
  upstream: Upstream | null;
  logger: Logger;
}

/**
 * Registers a document's operations with their handlers; a missing pairing fails boot by name.
 * `servedBy` names the document in 405 answers ("The API reference serves only PUT on ...").
 */
export function serveSpec<H extends Record<string, unknown>>(
  spec: SpecIndex,
  handlers: H,
  docName: string,
  servedBy = 'The API reference',
): { spec: SpecIndex; router: OperationRouter; handlers: H } {
  const missing = spec.operations.filter((op) => !handlers[op.id]).map((op) => `${op.id} (${op.method} ${op.path})`);
  if (missing.length) throw new Error(`${docName}: no handler for operation ${missing.join(', ')}`);
  const orphans = Object.keys(handlers).filter((id) => !spec.byId.has(id));
  if (orphans.length) throw new Error(`${docName}: handler ${orphans.join(', ')} has no operation in the document`);
  return { spec, router: new OperationRouter(spec.operations, servedBy), handlers };
}

/**
 * Stops what buildSandbox started, once nothing serves it any more (start.ts, after its servers):
 * webhook timers and attempts in flight (pending deliveries stay recorded), then the upstream's
 * comparisons in flight (filed, for the report a stop writes), then pending writes (a shared
 * sandbox: every namespace written to Redis, its lease released).
 */
export async function closeSandbox(deps: SandboxDeps): Promise<void> {
  await deps.webhooks.close();
  await deps.upstream?.close();
  await deps.host.close();
}

export async function buildSandbox(overrides: Partial<SandboxConfig> = {}, options: { logger?: Logger; seedData?: StoreData } = {}): Promise<SandboxDeps> {
  const config = defaultConfig(overrides);
  assertSafeExposure(config); //                              no open control API off loopback
  const logger = options.logger ?? createLogger(config); //   secrets censored, format from config
  if (config.corsOrigins.includes('*')) {
    // Also for a sandbox started from code, which prints no banner.
    logger.warn({ event: 'cors-any-origin' }, '--cors-origin *: every web page the browser opens may call the API');
  }
  const api = serveSpec(indexSpec(loadSpec(), 'openapi.json', [], { lazy: true }), apiHandlers(`payments-sandbox-cursor-${config.seed}`), 'openapi.json');
  const adminDoc = loadSpec(join(packageRoot(), 'openapi.admin.json'));
  const adminServed = serveSpec(indexSpec(adminDoc, 'openapi.admin.json', [api.spec], { lazy: true }), adminHandlers, 'openapi.admin.json', 'The control API');
  // The built-in scenarios (checked by the build), with --scenarios-dir's added: a bad file fails boot, naming file and path.
  const scenarios = fileCatalog(builtInScenarios(api.spec), config.scenariosDir, api.spec);
  const fixtureSource = new FixtureSource(options.seedData ?? (await seedData(config.seed)), config.fixturesDir);
  const fixtures = () => fixtureSource.fixtures();
  // With a data file the default namespace keeps its own records there; in memory it shares the fixtures like any other.
  // A data file loads only when every record passes the checks of a snapshot import.
  if (config.store !== 'memory' && config.dataFile)
    throw new Error('--data-file and --store redis:// do not go together: with Redis every namespace is kept there');
  // A shared sandbox connects first: an unreachable Redis stops the start, naming its address.
  const cluster = config.store === 'memory' ? null : await Cluster.connect(config, logger);
  const checkRecord = dataFileRecordCheck(adminServed.spec.compiler);
  const defaultStore = config.dataFile
    ? await Store.open(fixtures, { file: config.dataFile, fsync: config.fsync, checkRecord, checkData: dataFileReferenceCheck })
    : null;
  // What every namespace keeps besides its records and clock (namespace/part.ts).
  const pendingJournals = new PendingJournals();
  const journalFeed = new JournalFeed();
  const webhooks = new WebhookService(
    api.spec,
    {
      timeoutMs: config.webhookTimeoutMs,
      pipelining: config.webhookPipelining,
      targets: config.webhookTargets,
      forwardTo: config.forwardWebhooksTo,
      validate: config.validateResponses,
    },
    logger,
  );
  // Webhooks last: its clock listener runs after the report schedules' (report events first, then due retries).
  const parts = [
    journalKind(config.journalSize, pendingJournals, journalFeed),
    reportClockKind,
    scenarioStateKind(scenarios, config.seed, api.spec),
    webhooks.partKind(),
    inboxKind,
  ];
  const namespaces = new NamespaceRegistry({
    fixtures,
    fixturesVersion: () => fixtureSource.version,
    storage: cluster?.storage() ?? new LocalStorage(defaultStore),
    cap: config.namespaceCap,
    idleMs: config.namespaceIdleSeconds * 1000,
    parts,
    timedChanges: [approvalTimedChanges],
    onCapReached: capWarning(logger, config),
  });
  cluster?.attach(namespaces);
  const host: NamespaceHost = cluster ?? new LocalHost(namespaces, namespaceViews, config.dataFile);
  const version = packageVersion();
  const stats: RequestStats = { requests: 0, metrics: new RequestMetrics() };
  const node: NodeName = { id: config.nodeId ?? '' };
  const upstream = config.upstream
    ? new Upstream({
        url: config.upstream,
        // --upstream alone: off (nothing sent anywhere) until PUT /_sandbox/upstream switches it.
        mode: modeAtStart(config),
        compareWrites: config.compareWrites,
        timeoutMs: config.upstreamTimeoutMs,
      })
    : null;
  const adminDeps: AdminDeps = {
    version,
    seed: config.seed,
    namespaces,
    scenarios,
    adminSpec: adminServed.spec,
    apiSpec: api.spec,
    journalFeed,
    webhooks,
    dataFile: config.dataFile,
    stats,
    node,
    host,
    upstream,
    logger,
  };
  return {
    config,
    version,
    api,
    admin: { ...adminServed, deps: adminDeps },
    namespaces,
    scenarios,
    fixtures,
    fixtureSource,
    pendingJournals,
    journalFeed,
    stats,
    node,
    host,
    tokenCache: new TokenCache(),
    services: await sandboxServices(),
    webhooks,
    upstream,
    logger,
  };
}

/** One warning line per ten seconds at most while new namespaces are refused at the cap, with how many were. */
function capWarning(logger: Logger, config: SandboxConfig): (refused: string, retryAfterSeconds: number) => void {
  let lastLoggedAt = 0;
  let refusedSince = 0;
  return (refused, retryAfterSeconds) => {
    refusedSince++;
    const now = Date.now();
    if (now - lastLoggedAt < 10_000) return;
    logger.warn(
      {
        event: 'namespace-cap-reached',
        refused,
        refused_since_last_line: refusedSince,
        cap: config.namespaceCap,
        idle_seconds: config.namespaceIdleSeconds,
        retry_after_s: retryAfterSeconds,
      },
      `namespace '${refused}' refused (503): ${config.namespaceCap} namespaces exist (--namespace-cap) and none has been idle for ${config.namespaceIdleSeconds} s (--namespace-idle-seconds) with no request in flight and no journal stream open`,
    );
    lastLoggedAt = now;
    refusedSince = 0;
  };
}

async function sandboxServices(): Promise<HandlerServices> {
  // The sandbox's own signing key, made at boot: Google Pay session tokens are JWTs it signs.
  const { privateKey } = await generateKeyPair('ES256');
  return {
    signSandboxJwt: (claims) => signWith(privateKey, claims),
  };
}

function signWith(key: CryptoKey, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).setIssuedAt().setExpirationTime('1h').sign(key);
}
