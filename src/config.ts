// Every option of the sandbox, with its default. `cli/parse-options.ts` fills it from flags,
// SANDBOX_* variables and a config file; `startSandbox()` from code.

export interface SandboxConfig {
  host: string;
  port: number;
  /** Faker seed of the fixtures: the same seed gives byte-identical data. */
  seed: number;
  /** JSON file the default namespace persists to; null keeps state in memory. */
  dataFile: string | null;
  /** `jwt` verifies bearer tokens; `none` accepts any request (loudly). */
  auth: 'jwt' | 'none';
  /** Check every response against openapi.json (always on in the test suite). */
  validateResponses: boolean;
  /** Most entries the request journal keeps per namespace. */
  journalSize: number;
  /** Most namespaces (besides `default`) kept at once; past it, one idle long enough is evicted, else 503. */
  namespaceCap: number;
  /** A namespace not used for this long (and with no request in flight) may be evicted to make room. */
  namespaceIdleSeconds: number;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  /**
   * Most time a client may take to send a whole request (headers and body); a slower or stalled
   * client's connection is closed. Idle keep-alive connections close after 5 s (start.ts).
   */
  requestTimeoutMs: number;
  /** Token required on /_sandbox when bound to a non-loopback address. */
  adminToken: string | null;
  /** Folder of scenario files (the built-in ones by default). */
  scenariosDir: string | null;
  /** Folder of fixture files (the built-in ones by default). */
  fixturesDir: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logFormat: 'json' | 'pretty';
  /** Reload scenario files and fixtures when they change. */
  watch: boolean;
  /** Most time a webhook receiver may take to answer one delivery attempt (a slower answer is a failed attempt). */
  webhookTimeoutMs: number;
  /**
   * URL every event of every merchant account of every namespace is also delivered to, like
   * `stripe listen --forward-to`: a subscription made at boot with its own secret; null: none.
   */
  forwardWebhooksTo: string | null;
}

export const DEFAULT_SEED = 4010;

export function defaultConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  return {
    host: '127.0.0.1',
    port: 4010,
    seed: DEFAULT_SEED,
    dataFile: null,
    auth: 'jwt',
    validateResponses: false,
    journalSize: 10_000,
    namespaceCap: 50,
    namespaceIdleSeconds: 900,
    bodyLimitBytes: 1024 * 1024,
    requestTimeoutMs: 30_000,
    adminToken: null,
    scenariosDir: null,
    fixturesDir: null,
    logLevel: 'info',
    logFormat: 'json',
    watch: false,
    webhookTimeoutMs: 10_000,
    forwardWebhooksTo: null,
    // An option given as undefined keeps its default.
    ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
  };
}
