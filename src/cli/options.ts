// Every option of `payments-sandbox start`, once: its SandboxConfig key, flag, environment variable,
// kind and help line. The loader, the --help text and docs/configuration.md (a test checks it) follow this table, so a new
// option is one line here.
import { MIN_ADMIN_TOKEN_LENGTH, type SandboxConfig } from '../config.js';
import { FSYNC_POLICIES } from '../store/persistence.js';

export type OptionKind =
  /** `minLength`: fewest characters; `secret`: a refused value is not echoed in the message. */
  | { type: 'string'; nullable?: boolean; minLength?: number; secret?: boolean }
  | { type: 'integer'; min: number; max: number }
  | { type: 'bytes'; min: number }
  | { type: 'boolean' }
  | { type: 'enum'; values: readonly string[] }
  /** Header names: a flag given again adds one, an environment variable holds them comma-separated, the config file an array. */
  | { type: 'header-names' }
  /** Host names (--allowed-host) and origins (--allowed-origin): repeatable like header-names. */
  | { type: 'host-names' }
  | { type: 'origins' }
  /** --cors-origin: origins as above, or `*` (every origin). */
  | { type: 'cors-origins' }
  /** Webhook targets (hosts, addresses, CIDR ranges): repeatable like header names. */
  | { type: 'webhook-targets' };

/** Kinds given again on the command line add to the list. */
export const LIST_KINDS: ReadonlySet<OptionKind['type']> = new Set(['header-names', 'host-names', 'origins', 'cors-origins', 'webhook-targets']);

export interface OptionSpec {
  key: keyof SandboxConfig;
  /** Long flag without the dashes. */
  flag: string;
  /** Other accepted flag names (short forms kept for compatibility). */
  aliases?: string[];
  /** Environment variables, highest precedence first. */
  env: string[];
  kind: OptionKind;
  /** Placeholder shown in --help. */
  arg?: string;
  help: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const START_OPTIONS: readonly OptionSpec[] = [
  {
    key: 'host',
    flag: 'host',
    env: ['SANDBOX_HOST'],
    kind: { type: 'string' },
    arg: 'HOST',
    help: 'address to bind (default 127.0.0.1; a non-loopback address needs --admin-token)',
  },
  {
    key: 'port',
    flag: 'port',
    env: ['SANDBOX_PORT', 'PORT'],
    kind: { type: 'integer', min: 0, max: 65535 },
    arg: 'PORT',
    help: 'port to listen on, 0 picks a free one (default 4010)',
  },
  {
    key: 'seed',
    flag: 'seed',
    env: ['SANDBOX_SEED'],
    kind: { type: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER },
    arg: 'N',
    help: 'seed of the generated fixtures: one seed, the same data (default 4010)',
  },
  {
    key: 'dataFile',
    flag: 'data-file',
    aliases: ['data'],
    env: ['SANDBOX_DATA_FILE'],
    kind: { type: 'string', nullable: true },
    arg: 'FILE',
    help: 'JSON file the default namespace persists to (default: state in memory)',
  },
  {
    key: 'fsync',
    flag: 'fsync',
    env: ['SANDBOX_FSYNC'],
    kind: { type: 'enum', values: FSYNC_POLICIES },
    arg: 'always|batch|never',
    help: 'with --data-file, when an acknowledged change reaches the disk: before the answer, within 100 ms, or when the OS decides (default batch)',
  },
  {
    key: 'fixturesDir',
    flag: 'fixtures-dir',
    aliases: ['fixtures'],
    env: ['SANDBOX_FIXTURES_DIR'],
    kind: { type: 'string', nullable: true },
    arg: 'DIR',
    help: 'folder of <collection>.json files merged by id over the generated fixtures',
  },
  {
    key: 'scenariosDir',
    flag: 'scenarios-dir',
    aliases: ['scenarios'],
    env: ['SANDBOX_SCENARIOS_DIR'],
    kind: { type: 'string', nullable: true },
    arg: 'DIR',
    help: 'folder of scenario files added to the built-in ones (one of the same name replaces it)',
  },
  {
    key: 'auth',
    flag: 'auth',
    env: ['SANDBOX_AUTH'],
    kind: { type: 'enum', values: ['jwt', 'none'] },
    arg: 'jwt|none',
    help: 'jwt verifies bearer tokens; none accepts every request (default jwt)',
  },
  {
    key: 'requestTimeoutMs',
    flag: 'request-timeout-ms',
    env: ['SANDBOX_REQUEST_TIMEOUT_MS'],
    kind: { type: 'integer', min: 100, max: 3_600_000 },
    arg: 'MS',
    help: 'most time a client may take to send a whole request, in ms (default 30000)',
  },
  {
    key: 'adminToken',
    flag: 'admin-token',
    env: ['SANDBOX_ADMIN_TOKEN'],
    kind: { type: 'string', nullable: true, minLength: MIN_ADMIN_TOKEN_LENGTH, secret: true },
    arg: 'TOKEN',
    help: `token the control API (/_sandbox) requires, ${MIN_ADMIN_TOKEN_LENGTH} characters at least (default: none on loopback)`,
  },
  {
    key: 'controlApi',
    flag: 'control-api',
    env: ['SANDBOX_CONTROL_API'],
    kind: { type: 'enum', values: ['loopback', 'open'] },
    arg: 'loopback|open',
    help: 'without --admin-token: loopback refuses a non-loopback --host; open serves /_sandbox to whoever reaches the port, for a container published on 127.0.0.1 (default loopback)',
  },
  {
    key: 'journalSize',
    flag: 'journal-size',
    env: ['SANDBOX_JOURNAL_SIZE'],
    kind: { type: 'integer', min: 0, max: 10_000_000 },
    arg: 'N',
    help: 'most requests the journal keeps per namespace (default 10000)',
  },
  {
    key: 'namespaceCap',
    flag: 'namespace-cap',
    env: ['SANDBOX_NAMESPACE_CAP'],
    kind: { type: 'integer', min: 1, max: 100_000 },
    arg: 'N',
    help: 'most namespaces kept at once besides default; past it one idle long enough is evicted, else 503 (default 50)',
  },
  {
    key: 'namespaceIdleSeconds',
    flag: 'namespace-idle-seconds',
    env: ['SANDBOX_NAMESPACE_IDLE_SECONDS'],
    kind: { type: 'integer', min: 0, max: 31_536_000 },
    arg: 'S',
    help: 'a namespace unused this long, with no request in flight and no journal stream open on it, may be evicted to make room (default 900; 0: any not in use)',
  },
  {
    key: 'logLevel',
    flag: 'log-level',
    env: ['SANDBOX_LOG_LEVEL'],
    kind: { type: 'enum', values: LOG_LEVELS },
    arg: 'LEVEL',
    help: `${LOG_LEVELS.join('|')}; info logs each 4xx/5xx with its reason, debug every request (default info)`,
  },
  {
    key: 'logFormat',
    flag: 'log-format',
    env: ['SANDBOX_LOG_FORMAT'],
    kind: { type: 'enum', values: ['json', 'pretty'] },
    arg: 'json|pretty',
    help: 'log lines on stdout (default: pretty on a terminal, else json)',
  },
  {
    key: 'validateResponses',
    flag: 'validate-responses',
    env: ['SANDBOX_VALIDATE_RESPONSES'],
    kind: { type: 'boolean' },
    help: 'check every response against openapi.json; a mismatch is a 500 (default off)',
  },
  {
    key: 'bodyLimitBytes',
    flag: 'body-limit',
    env: ['SANDBOX_BODY_LIMIT'],
    kind: { type: 'bytes', min: 1 },
    arg: 'SIZE',
    help: 'largest request body: bytes, or with kb/mb (default 1mb)',
  },
  {
    key: 'forwardWebhooksTo',
    flag: 'forward-webhooks-to',
    env: ['SANDBOX_FORWARD_WEBHOOKS_TO'],
    kind: { type: 'string', nullable: true },
    arg: 'URL',
    help: 'also deliver every event of every merchant account and namespace to this http(s) URL, like stripe listen --forward-to (default: none)',
  },
  {
    key: 'webhookTimeoutMs',
    flag: 'webhook-timeout-ms',
    env: ['SANDBOX_WEBHOOK_TIMEOUT_MS'],
    kind: { type: 'integer', min: 100, max: 600_000 },
    arg: 'MS',
    help: 'most time a webhook receiver may take to answer a delivery attempt, in ms; longer is a failed attempt, retried (default 10000)',
  },
  {
    key: 'webhookPipelining',
    flag: 'webhook-pipelining',
    env: ['SANDBOX_WEBHOOK_PIPELINING'],
    kind: { type: 'integer', min: 1, max: 64 },
    arg: 'N',
    help: 'webhook requests written on one connection to a receiver before their answers come; 1 turns HTTP pipelining off (default 16)',
  },
  {
    key: 'webhookTargets',
    flag: 'webhook-target',
    env: ['SANDBOX_WEBHOOK_TARGET'],
    kind: { type: 'webhook-targets' },
    arg: 'HOST|CIDR',
    help: 'deliver webhooks only to this host (*.name for names under it), address or CIDR range, repeatable (env: comma-separated); never to the sandbox itself or link-local addresses (default: any other)',
  },
  {
    key: 'store',
    flag: 'store',
    env: ['SANDBOX_STORE'],
    kind: { type: 'string' },
    arg: 'memory|redis://HOST:PORT',
    help: 'memory (one process), or redis://HOST:PORT: a shared sandbox of several processes behind a proxy, state in Redis (default memory)',
  },
  {
    key: 'nodeId',
    flag: 'node-id',
    env: ['SANDBOX_NODE_ID'],
    kind: { type: 'string', nullable: true },
    arg: 'ID',
    help: 'this process in a shared sandbox: the x-sandbox-node header of every answer (default host:port)',
  },
  {
    key: 'leaseMs',
    flag: 'lease-ms',
    env: ['SANDBOX_LEASE_MS'],
    kind: { type: 'integer', min: 300, max: 600_000 },
    arg: 'MS',
    help: "with --store redis://: how long a namespace stays with its owner unless renewed; a dead node's namespaces move after it (default 5000)",
  },
  {
    key: 'upstream',
    flag: 'upstream',
    env: ['SANDBOX_UPSTREAM'],
    kind: { type: 'string', nullable: true },
    arg: 'URL',
    help: 'the real service (its sandbox) --compare and the record command talk to, fixed at start; none chooses another. Alone: mode off (nothing sent) until switched with PUT /_sandbox/upstream or payments-sandbox upstream record|compare (default: none)',
  },
  {
    key: 'compare',
    flag: 'compare',
    env: ['SANDBOX_COMPARE'],
    kind: { type: 'boolean' },
    help: 'with --upstream: answer as usual, send each read to the upstream too and compare the answers by the contract; a stop writes compare-report.json (default off)',
  },
  {
    key: 'record',
    flag: 'record',
    env: ['SANDBOX_RECORD'],
    kind: { type: 'boolean' },
    help: 'with --upstream: the upstream answers every call and the sandbox records it; a stop writes recording.har and recording.data.json (what the record command sets)',
  },
  {
    key: 'compareWrites',
    flag: 'compare-writes',
    env: ['SANDBOX_COMPARE_WRITES'],
    kind: { type: 'boolean' },
    help: 'in compare mode (--compare, or switched on later): send writes (POST, PUT, PATCH, DELETE) to the upstream too, which changes it (default off: writes are not sent)',
  },
  {
    key: 'upstreamTimeoutMs',
    flag: 'upstream-timeout-ms',
    env: ['SANDBOX_UPSTREAM_TIMEOUT_MS'],
    kind: { type: 'integer', min: 100, max: 600_000 },
    arg: 'MS',
    help: 'most time the upstream may take to answer, in ms; longer is recorded as a timeout (default 10000)',
  },
  {
    key: 'reportDir',
    flag: 'report-dir',
    env: ['SANDBOX_REPORT_DIR'],
    kind: { type: 'string', nullable: true },
    arg: 'DIR',
    help: 'where a stop writes the compare report or the recording (default: the current folder)',
  },
  {
    key: 'failOnDrift',
    flag: 'fail-on-drift',
    env: ['SANDBOX_FAIL_ON_DRIFT'],
    kind: { type: 'boolean' },
    help: 'with --compare: a stop exits with code 3 when the report found a contract difference (default off)',
  },
  { key: 'watch', flag: 'watch', env: ['SANDBOX_WATCH'], kind: { type: 'boolean' }, help: 'reload scenario files and fixtures when they change (default off)' },
  {
    key: 'merchantAccountHeaders',
    flag: 'merchant-account-header',
    env: ['SANDBOX_MERCHANT_ACCOUNT_HEADER'],
    kind: { type: 'header-names' },
    arg: 'NAME',
    help: 'another header naming the merchant account, repeatable (env: comma-separated); other *-merchant-account-id headers get 400',
  },
  {
    key: 'tls',
    flag: 'tls',
    env: ['SANDBOX_TLS'],
    kind: { type: 'boolean' },
    help: 'serve HTTPS (HTTP/2 and HTTP/1.1) on --port, with a certificate from the sandbox CA (default off)',
  },
  {
    key: 'httpsPort',
    flag: 'https-port',
    env: ['SANDBOX_HTTPS_PORT'],
    kind: { type: 'integer', min: 0, max: 65535 },
    arg: 'PORT',
    help: 'also serve HTTPS on this port, beside plain HTTP on --port (0 picks a free one; default none)',
  },
  {
    key: 'tlsCert',
    flag: 'tls-cert',
    env: ['SANDBOX_TLS_CERT'],
    kind: { type: 'string', nullable: true },
    arg: 'FILE',
    help: "your certificate (PEM, with its chain) instead of the sandbox CA's; with --tls-key; implies --tls without --https-port",
  },
  {
    key: 'tlsKey',
    flag: 'tls-key',
    env: ['SANDBOX_TLS_KEY'],
    kind: { type: 'string', nullable: true },
    arg: 'FILE',
    help: 'the private key (PEM) of --tls-cert',
  },
  {
    key: 'tlsDir',
    flag: 'tls-dir',
    env: ['SANDBOX_TLS_DIR'],
    kind: { type: 'string', nullable: true },
    arg: 'DIR',
    help: 'where the sandbox CA and its localhost certificate are made once and kept (default ~/.payments-sandbox/tls)',
  },
  {
    key: 'allowedHosts',
    flag: 'allowed-host',
    env: ['SANDBOX_ALLOWED_HOST'],
    kind: { type: 'host-names' },
    arg: 'NAME',
    help: 'another Host name served besides localhost, IP addresses and --host, repeatable (env: comma-separated); .example.com: it and its subdomains; *: any (no DNS rebinding defence)',
  },
  {
    key: 'allowedOrigins',
    flag: 'allowed-origin',
    env: ['SANDBOX_ALLOWED_ORIGIN'],
    kind: { type: 'origins' },
    arg: 'ORIGIN',
    help: "a web origin (scheme://host[:port]) whose pages may call the control API and the console besides the sandbox's own, repeatable (env: comma-separated)",
  },
  {
    key: 'corsOrigins',
    flag: 'cors-origin',
    env: ['SANDBOX_CORS_ORIGIN'],
    kind: { type: 'cors-origins' },
    arg: 'ORIGIN',
    help: "a web origin whose pages the API grants CORS besides loopback origins and the sandbox's own, repeatable (env: comma-separated); *: every origin (a warning)",
  },
];

/** The option a flag name (without dashes) stands for, if any. */
export function optionByFlag(name: string): OptionSpec | undefined {
  return START_OPTIONS.find((o) => o.flag === name || o.aliases?.includes(name));
}
