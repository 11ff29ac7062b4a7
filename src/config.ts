// Every option of the sandbox, with its default. `cli/parse-options.ts` fills it from flags,
// SANDBOX_* variables and a config file; `startSandbox()` from code.

export interface SandboxConfig {
  host: string;
  port: number;
  /** Faker seed of the fixtures: the same seed gives byte-identical data. */
  seed: number;
  /** JSON file the default namespace persists to; null keeps state in memory. */
  dataFile: string | null;
  /**
   * With a data file, when a change acknowledged by a 2xx reaches the disk itself (it is always in
   * the change log, written with write(2), before the answer): `always` fsyncs before answering,
   * `batch` within 100 ms after, `never` leaves it to the OS.
   */
  fsync: 'always' | 'batch' | 'never';
  /** `jwt` verifies bearer tokens; `none` accepts any request (loudly). */
  auth: 'jwt' | 'none';
  /** Check every response against openapi.json (always on in the test suite). */
  validateResponses: boolean;
  /** Most entries the request journal keeps per namespace. */
  journalSize: number;
  /** Most namespaces (besides `default`) kept at once; past it, one idle long enough is evicted, else 503. */
  namespaceCap: number;
  /** A namespace not used for this long (with no request in flight and no journal stream open on it) may be evicted to make room. */
  namespaceIdleSeconds: number;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  /**
   * Most time a client may take to send a whole request (headers and body); a slower or stalled
   * client's connection is closed. Idle keep-alive connections close after 5 s (start.ts).
   */
  requestTimeoutMs: number;
  /** Token required on /_sandbox when bound to a non-loopback address; at least MIN_ADMIN_TOKEN_LENGTH characters. */
  adminToken: string | null;
  /**
   * Who may use /_sandbox without the admin token: `loopback` refuses a non-loopback bind without
   * one; `open` serves it to whoever reaches the port (a container, whose clients never come from
   * loopback: publish its port on 127.0.0.1). With an admin token set, the token is needed either way.
   */
  controlApi: 'loopback' | 'open';
  /** Folder of scenario files (the built-in ones by default). */
  scenariosDir: string | null;
  /** Folder of fixture files (the built-in ones by default). */
  fixturesDir: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logFormat: 'json' | 'pretty';
  /** Reload scenario files and fixtures when they change. */
  watch: boolean;
  /**
   * Other request header names that choose the merchant account, as x-service-merchant-account-id
   * does (a client generated for another header name); any other header ending in
   * -merchant-account-id is a 400.
   */
  merchantAccountHeaders: string[];
  /** Serve HTTPS (HTTP/2 and HTTP/1.1) on `port` instead of plain HTTP. */
  tls: boolean;
  /** Also serve HTTPS on this port, beside plain HTTP on `port` (null: no second port). */
  httpsPort: number | null;
  /** The user's own certificate and key (PEM files) instead of one from the sandbox CA; both or neither. */
  tlsCert: string | null;
  tlsKey: string | null;
  /** Where the sandbox CA and its localhost certificate are kept (null: ~/.payments-sandbox/tls). */
  tlsDir: string | null;
  /** Most time a webhook receiver may take to answer one delivery attempt (a slower answer is a failed attempt). */
  webhookTimeoutMs: number;
  /** Requests written on one connection to a receiver before their answers come (1: no pipelining). */
  webhookPipelining: number;
  /**
   * Hosts (a name, or *.name for every name under it), addresses and CIDR ranges deliveries may go
   * to; empty: anywhere but the sandbox itself and link-local or cloud metadata addresses.
   */
  webhookTargets: string[];
  /**
   * URL every event of every merchant account of every namespace is also delivered to, like
   * `stripe listen --forward-to`: a subscription made at boot with its own secret; null: none.
   */
  forwardWebhooksTo: string | null;
  /**
   * Where namespaces keep their state: `memory` (this process alone; --data-file persists the
   * default namespace), or `redis://HOST:PORT` (a shared sandbox: several processes behind a proxy
   * that routes each namespace to one owner, state and leases in Redis; src/cluster/).
   */
  store: string;
  /** This process's name in a shared sandbox (the x-sandbox-node header, the cluster registry); null: host:port. */
  nodeId: string | null;
  /** With a redis store: how long a namespace's lease lasts unless renewed (renewed every third of it). */
  leaseMs: number;
  /**
   * Host names served besides loopback names, IP literals and `host` (a defence against DNS
   * rebinding, http/host-check.ts): `name`, `.domain` (it and its subdomains), or `*` (any).
   */
  allowedHosts: string[];
  /** Origins (scheme://host[:port]) besides the sandbox's own whose pages may call the control API and the console (http/origin-check.ts). */
  allowedOrigins: string[];
  /** The real service (its sandbox) record and compare modes talk to, fixed at start; null: none (src/upstream/). */
  upstream: string | null;
  /** With upstream: answer each call as usual and compare it with the upstream's answer by the contract. */
  compare: boolean;
  /** With upstream: let the upstream answer each call and record the exchanges (`payments-sandbox record`). */
  record: boolean;
  /** Compare mode: send writes (POST, PUT, PATCH, DELETE) to the upstream too; they change it. */
  compareWrites: boolean;
  /** Most time the upstream may take to answer (head, then body); longer is a failure, recorded as such. */
  upstreamTimeoutMs: number;
  /** Where a stop writes compare-report.json and compare-report.txt (compare) or recording.har and recording.data.json (record); null: the current folder. */
  reportDir: string | null;
  /** Compare mode: a stop exits with code 3 when the report found a contract difference (for CI). */
  failOnDrift: boolean;
  /**
   * Origins besides loopback ones, the sandbox's own and `allowedOrigins` whose pages the API grants
   * CORS (http/cors.ts); `*` grants every origin.
   */
  corsOrigins: string[];
}

export const DEFAULT_SEED = 4010;

/** Shortest admin token accepted: a shorter one is guessable, and the control API can read and reset everything. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

export function defaultConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  return {
    host: '127.0.0.1',
    port: 4010,
    seed: DEFAULT_SEED,
    dataFile: null,
    fsync: 'batch',
    auth: 'jwt',
    validateResponses: false,
    journalSize: 10_000,
    namespaceCap: 50,
    namespaceIdleSeconds: 900,
    bodyLimitBytes: 1024 * 1024,
    requestTimeoutMs: 30_000,
    adminToken: null,
    controlApi: 'loopback',
    scenariosDir: null,
    fixturesDir: null,
    logLevel: 'info',
    logFormat: 'json',
    watch: false,
    merchantAccountHeaders: [],
    tls: false,
    httpsPort: null,
    tlsCert: null,
    tlsKey: null,
    tlsDir: null,
    webhookTimeoutMs: 10_000,
    webhookPipelining: 16,
    webhookTargets: [],
    forwardWebhooksTo: null,
    store: 'memory',
    nodeId: null,
    leaseMs: 5_000,
    allowedHosts: [],
    allowedOrigins: [],
    upstream: null,
    compare: false,
    record: false,
    compareWrites: false,
    upstreamTimeoutMs: 10_000,
    reportDir: null,
    failOnDrift: false,
    corsOrigins: [],
    // An option given as undefined keeps its default.
    ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
  };
}
