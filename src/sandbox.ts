// Boot: everything createApp needs, built once. Reads openapi.json, compiles its validators, checks
// that every operation has a handler (and every handler an operation), seeds the fixtures and opens
// the store.

import { join } from 'node:path';
import { type CryptoKey, generateKeyPair, SignJWT } from 'jose';
import type { Logger } from 'pino';
import { seedData } from '../fixtures/seed-cache.js';
import { assertSafeExposure } from './admin/exposure.js';
import { adminHandlers } from './admin/index.js';
import type { AdminHandlerMap } from './admin/types.js';
import { TokenCache } from './auth/verify-token.js';
import { defaultConfig, type SandboxConfig } from './config.js';
import { OperationRouter } from './http/operation-router.js';
import { createLogger } from './logging/logger.js';
import type { RequestStats } from './logging/request-log.js';
import { apiHandlers } from './resources/index.js';
import type { HandlerMap, HandlerServices } from './resources/types.js';
import { attachScenarioRuntime } from './scenarios/attach.js';
import { builtInScenarios } from './scenarios/catalog-cache.js';
import { loadScenarios } from './scenarios/load-scenarios.js';
import type { ScenarioCatalog } from './scenarios/types.js';
import { loadSpec, packageRoot, packageVersion } from './spec/load-spec.js';
import { indexSpec, type SpecIndex } from './spec/operations.js';
import { FixtureSource } from './store/fixture-overrides.js';
import { NamespaceRegistry } from './store/namespaces.js';
import type { StoreData } from './store/records.js';
import { Store } from './store/store.js';

export interface ServedApi {
  spec: SpecIndex;
  router: OperationRouter;
  handlers: HandlerMap;
}

export interface ServedAdmin {
  spec: SpecIndex;
  router: OperationRouter;
  handlers: AdminHandlerMap;
}

export interface SandboxDeps {
  config: SandboxConfig;
  version: string;
  api: ServedApi;
  admin: ServedAdmin;
  namespaces: NamespaceRegistry;
  /** Scenario files, checked against openapi.json at boot. */
  scenarios: ScenarioCatalog;
  /** A fresh deep copy of the seeded fixtures. */
  fixtures: () => StoreData;
  /** Where `fixtures()` comes from: the generated data with config.fixturesDir merged in (reloadable). */
  fixtureSource: FixtureSource;
  /** Counters for the shutdown summary. */
  stats: RequestStats;
  tokenCache: TokenCache;
  services: HandlerServices;
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

export async function buildSandbox(overrides: Partial<SandboxConfig> = {}, options: { logger?: Logger; seedData?: StoreData } = {}): Promise<SandboxDeps> {
  const config = defaultConfig(overrides);
  assertSafeExposure(config); //                              no open control API off loopback
  const logger = options.logger ?? createLogger(config); //   secrets censored, format from config
  const api = serveSpec(indexSpec(loadSpec(), 'openapi.json', [], { lazy: true }), apiHandlers(`payments-sandbox-cursor-${config.seed}`), 'openapi.json');
  const adminDoc = loadSpec(join(packageRoot(), 'openapi.admin.json'));
  const admin = serveSpec(indexSpec(adminDoc, 'openapi.admin.json', [api.spec], { lazy: true }), adminHandlers, 'openapi.admin.json', 'The control API');
  // A bad file fails boot, naming file and path; the built-in files were checked by the build.
  const scenarios = config.scenariosDir === null ? builtInScenarios(api.spec) : loadScenarios(config.scenariosDir, api.spec);
  const fixtureSource = new FixtureSource(options.seedData ?? (await seedData(config.seed)), config.fixturesDir);
  const fixtures = () => fixtureSource.fixtures();
  const defaultStore = await Store.open(fixtures, { file: config.dataFile ?? undefined });
  const namespaces = new NamespaceRegistry({ fixtures, defaultStore, cap: config.namespaceCap });
  namespaces.onCreate((ns) => attachScenarioRuntime(ns, scenarios, config.seed)); // scenario state, report clock
  return {
    config,
    version: packageVersion(),
    api,
    admin,
    namespaces,
    scenarios,
    fixtures,
    fixtureSource,
    stats: { requests: 0 },
    tokenCache: new TokenCache(),
    services: await sandboxServices(),
    logger,
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
