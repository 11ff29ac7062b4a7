// loadConfig(argv, env, readFile): precedence flag > env > file > default, every kind of value, and
// one clear UsageError for each mistake.
import { describe, expect, it } from 'vitest';
import { loadConfig, type ReadFile } from '../../src/cli/load-config.js';
import { START_OPTIONS } from '../../src/cli/options.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { defaultConfig } from '../../src/config.js';

const noFile: ReadFile = () => null;
const files =
  (map: Record<string, unknown>): ReadFile =>
  (path) =>
    path in map ? (typeof map[path] === 'string' ? (map[path] as string) : JSON.stringify(map[path])) : null;
const load = (argv: string[], env: Record<string, string> = {}, readFile: ReadFile = noFile) => loadConfig(argv, env, readFile, { cwd: '/work/app' });

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).not.toContain('\n');
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('loadConfig defaults and sources', () => {
  it('gives the defaults with json logs when nothing is set and stdout is not a terminal', () => {
    const { config, configFile, help } = load([]);
    expect(config).toEqual(defaultConfig({ logFormat: 'json' }));
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(4010);
    expect(configFile).toBeNull();
    expect(help).toBe(false);
  });

  it('defaults to pretty logs on a terminal, unless a source says json', () => {
    expect(loadConfig([], {}, noFile, { stdoutIsTty: true }).config.logFormat).toBe('pretty');
    expect(loadConfig([], { SANDBOX_LOG_FORMAT: 'json' }, noFile, { stdoutIsTty: true }).config.logFormat).toBe('json');
  });

  it('reads every option from its flag', () => {
    const { config } = load([
      '--host',
      'localhost',
      '--port=0',
      '--seed',
      '7',
      '--data-file',
      'state/db.json',
      '--fsync',
      'always',
      '--fixtures-dir',
      'fx',
      '--scenarios-dir',
      '/abs/sc',
      '--auth',
      'none',
      '--admin-token',
      's3cret-admin-token',
      '--control-api',
      'open',
      '--journal-size',
      '5',
      '--namespace-cap',
      '3',
      '--namespace-idle-seconds',
      '60',
      '--log-level',
      'debug',
      '--log-format',
      'pretty',
      '--validate-responses',
      '--body-limit',
      '2mb',
      '--watch',
      '--request-timeout-ms',
      '5000',
      '--merchant-account-header',
      'X-Gr4vy-Merchant-Account-Id',
      '--merchant-account-header=x-merchant',
      '--https-port',
      '4443',
      '--tls-cert',
      'certs/cert.pem',
      '--tls-key',
      '/abs/key.pem',
      '--tls-dir',
      'ca',
      '--webhook-timeout-ms',
      '2500',
      '--webhook-pipelining',
      '1',
      '--webhook-target',
      '10.0.0.0/8',
      '--webhook-target=hooks.internal',
      '--forward-webhooks-to',
      'http://127.0.0.1:3000/hooks',
      '--store',
      'memory',
      '--node-id',
      'node-7',
      '--lease-ms',
      '900',
      '--allowed-host',
      'Sandbox.Example',
      '--allowed-host=.corp.example',
      '--allowed-origin',
      'http://LOCALHOST:5173/',
      '--upstream',
      'https://api.sandbox.example/v1',
      '--compare',
      '--compare-writes',
      '--upstream-timeout-ms',
      '2000',
      '--report-dir',
      'reports',
      '--fail-on-drift',
      '--cors-origin',
      'https://checkout.example',
    ]);
    expect(config).toEqual({
      host: 'localhost',
      port: 0,
      seed: 7,
      dataFile: '/work/app/state/db.json',
      fsync: 'always',
      fixturesDir: '/work/app/fx',
      scenariosDir: '/abs/sc',
      auth: 'none',
      adminToken: 's3cret-admin-token',
      controlApi: 'open',
      journalSize: 5,
      namespaceCap: 3,
      namespaceIdleSeconds: 60,
      logLevel: 'debug',
      logFormat: 'pretty',
      validateResponses: true,
      bodyLimitBytes: 2 * 1024 * 1024,
      watch: true,
      requestTimeoutMs: 5000,
      merchantAccountHeaders: ['x-gr4vy-merchant-account-id', 'x-merchant'],
      tls: false,
      httpsPort: 4443,
      tlsCert: '/work/app/certs/cert.pem',
      tlsKey: '/abs/key.pem',
      tlsDir: '/work/app/ca',
      webhookTimeoutMs: 2500,
      webhookPipelining: 1,
      webhookTargets: ['10.0.0.0/8', 'hooks.internal'],
      forwardWebhooksTo: 'http://127.0.0.1:3000/hooks',
      store: 'memory',
      nodeId: 'node-7',
      leaseMs: 900,
      allowedHosts: ['sandbox.example', '.corp.example'],
      allowedOrigins: ['http://localhost:5173'],
      upstream: 'https://api.sandbox.example/v1',
      compare: true,
      record: false,
      compareWrites: true,
      upstreamTimeoutMs: 2000,
      reportDir: '/work/app/reports',
      failOnDrift: true,
      corsOrigins: ['https://checkout.example'],
    });
    expect(load(['--tls']).config.tls).toBe(true);
    expect(load(['--store', 'redis://redis.internal:6380']).config.store).toBe('redis://redis.internal:6380');
  });

  it('reads every option from its SANDBOX_* variable', () => {
    const { config } = load([], {
      SANDBOX_HOST: '127.0.0.2',
      SANDBOX_PORT: '4999',
      SANDBOX_SEED: '8',
      SANDBOX_DATA_FILE: 'd.json',
      SANDBOX_FSYNC: 'never',
      SANDBOX_FIXTURES_DIR: 'f',
      SANDBOX_SCENARIOS_DIR: 's',
      SANDBOX_AUTH: 'none',
      SANDBOX_ADMIN_TOKEN: 'token-from-the-env',
      SANDBOX_CONTROL_API: 'open',
      SANDBOX_JOURNAL_SIZE: '6',
      SANDBOX_NAMESPACE_CAP: '4',
      SANDBOX_NAMESPACE_IDLE_SECONDS: '0',
      SANDBOX_LOG_LEVEL: 'warn',
      SANDBOX_LOG_FORMAT: 'pretty',
      SANDBOX_VALIDATE_RESPONSES: 'yes',
      SANDBOX_BODY_LIMIT: '512kb',
      SANDBOX_WATCH: '1',
      SANDBOX_REQUEST_TIMEOUT_MS: '6000',
      SANDBOX_MERCHANT_ACCOUNT_HEADER: 'x-gr4vy-merchant-account-id, X-Merchant',
      SANDBOX_TLS: 'true',
      SANDBOX_TLS_CERT: 'c.pem',
      SANDBOX_TLS_KEY: 'k.pem',
      SANDBOX_TLS_DIR: '/var/ca',
      SANDBOX_WEBHOOK_TIMEOUT_MS: '3000',
      SANDBOX_WEBHOOK_PIPELINING: '4',
      SANDBOX_WEBHOOK_TARGET: 'fd00::/8, *.receivers.internal',
      SANDBOX_FORWARD_WEBHOOKS_TO: 'https://hooks.localhost/in',
      SANDBOX_STORE: 'memory',
      SANDBOX_NODE_ID: 'node-8',
      SANDBOX_LEASE_MS: '2000',
      SANDBOX_ALLOWED_HOST: 'env.example',
      SANDBOX_ALLOWED_ORIGIN: 'http://localhost:3000',
      SANDBOX_UPSTREAM: 'http://127.0.0.1:9000',
      SANDBOX_RECORD: '1',
      SANDBOX_UPSTREAM_TIMEOUT_MS: '3000',
      SANDBOX_REPORT_DIR: 'r',
      SANDBOX_CORS_ORIGIN: '*',
    });
    expect(config).toEqual({
      host: '127.0.0.2',
      port: 4999,
      seed: 8,
      dataFile: '/work/app/d.json',
      fsync: 'never',
      fixturesDir: '/work/app/f',
      scenariosDir: '/work/app/s',
      auth: 'none',
      adminToken: 'token-from-the-env',
      controlApi: 'open',
      journalSize: 6,
      namespaceCap: 4,
      namespaceIdleSeconds: 0,
      logLevel: 'warn',
      logFormat: 'pretty',
      validateResponses: true,
      bodyLimitBytes: 512 * 1024,
      watch: true,
      requestTimeoutMs: 6000,
      merchantAccountHeaders: ['x-gr4vy-merchant-account-id', 'x-merchant'],
      tls: true,
      httpsPort: null,
      tlsCert: '/work/app/c.pem',
      tlsKey: '/work/app/k.pem',
      tlsDir: '/var/ca',
      webhookTimeoutMs: 3000,
      webhookPipelining: 4,
      webhookTargets: ['fd00::/8', '*.receivers.internal'],
      forwardWebhooksTo: 'https://hooks.localhost/in',
      store: 'memory',
      nodeId: 'node-8',
      leaseMs: 2000,
      allowedHosts: ['env.example'],
      allowedOrigins: ['http://localhost:3000'],
      upstream: 'http://127.0.0.1:9000',
      compare: false,
      record: true,
      compareWrites: false,
      upstreamTimeoutMs: 3000,
      reportDir: '/work/app/r',
      failOnDrift: false,
      corsOrigins: ['*'],
    });
    expect(load([], { SANDBOX_HTTPS_PORT: '0' }).config.httpsPort).toBe(0);
  });

  it('reads every option from sandbox.config.json in the cwd, paths relative to the file', () => {
    const file = {
      host: '127.0.0.3',
      port: 5000,
      seed: 9,
      dataFile: 'data/db.json',
      fsync: 'batch',
      fixturesDir: null,
      scenariosDir: 'sc',
      auth: 'jwt',
      adminToken: 'token-from-the-file',
      controlApi: 'open',
      journalSize: 7,
      namespaceCap: 8,
      namespaceIdleSeconds: 120,
      logLevel: 'error',
      logFormat: 'json',
      validateResponses: true,
      bodyLimitBytes: 1000,
      watch: true,
      requestTimeoutMs: 7000,
      merchantAccountHeaders: ['x-gr4vy-merchant-account-id'],
      tls: false,
      httpsPort: 5443,
      tlsCert: 'tls/cert.pem',
      tlsKey: 'tls/key.pem',
      tlsDir: '~ca',
      webhookTimeoutMs: 4000,
      webhookPipelining: 16,
      webhookTargets: ['192.168.1.20'],
      forwardWebhooksTo: null,
      store: 'memory',
      nodeId: 'node-9',
      leaseMs: 3000,
      allowedHosts: ['file.example'],
      allowedOrigins: ['https://file.example'],
      upstream: 'http://upstream.internal',
      compare: true,
      record: false,
      compareWrites: false,
      upstreamTimeoutMs: 4000,
      reportDir: 'out',
      failOnDrift: true,
      corsOrigins: ['https://file.example'],
    };
    const { config, configFile } = load([], {}, files({ '/work/app/sandbox.config.json': file }));
    expect(configFile).toBe('/work/app/sandbox.config.json');
    expect(config).toEqual({
      ...file,
      dataFile: '/work/app/data/db.json',
      scenariosDir: '/work/app/sc',
      tlsCert: '/work/app/tls/cert.pem',
      tlsKey: '/work/app/tls/key.pem',
      tlsDir: '/work/app/~ca',
      reportDir: '/work/app/out',
    });
  });

  it('reads --config FILE (and SANDBOX_CONFIG) instead of the cwd file', () => {
    const read = files({
      '/etc/sb/conf.json': { seed: 21, dataFile: 'db.json' },
      '/work/app/sandbox.config.json': { seed: 1 },
      '/work/app/other.json': { seed: 22 },
    });
    const byFlag = load(['--config', '/etc/sb/conf.json'], {}, read);
    expect(byFlag.config.seed).toBe(21);
    expect(byFlag.config.dataFile).toBe('/etc/sb/db.json');
    expect(byFlag.configFile).toBe('/etc/sb/conf.json');
    expect(load([], { SANDBOX_CONFIG: 'other.json' }, read).config.seed).toBe(22);
  });

  it('takes a flag over the environment, the environment over the file, the file over the default', () => {
    const read = files({ '/work/app/sandbox.config.json': { seed: 1, journalSize: 1, namespaceCap: 1 } });
    const env = { SANDBOX_SEED: '2', SANDBOX_JOURNAL_SIZE: '2' };
    const { config } = load(['--seed', '3'], env, read);
    expect(config.seed).toBe(3); //             flag > env > file
    expect(config.journalSize).toBe(2); //      env > file
    expect(config.namespaceCap).toBe(1); //     file > default
    expect(config.bodyLimitBytes).toBe(1024 * 1024); // default
  });

  it('takes SANDBOX_PORT over plain PORT, and PORT over the file', () => {
    const read = files({ '/work/app/sandbox.config.json': { port: 1 } });
    expect(load([], { PORT: '2' }, read).config.port).toBe(2);
    expect(load([], { PORT: '2', SANDBOX_PORT: '3' }, read).config.port).toBe(3);
    expect(load(['--port', '4'], { PORT: '2', SANDBOX_PORT: '3' }, read).config.port).toBe(4);
  });

  it('ignores empty variables, so SANDBOX_SEED= keeps the lower sources', () => {
    expect(load([], { SANDBOX_SEED: '', PORT: ' ' }).config).toMatchObject({ seed: 4010, port: 4010 });
  });

  it('turns booleans off with --no-flag, =false and false-ish variables', () => {
    const read = files({ '/work/app/sandbox.config.json': { watch: true, validateResponses: true } });
    expect(load(['--no-watch'], {}, read).config.watch).toBe(false);
    expect(load(['--watch=false'], {}, read).config.watch).toBe(false);
    expect(load([], { SANDBOX_VALIDATE_RESPONSES: 'off' }, read).config.validateResponses).toBe(false);
  });

  it('accepts aliases --data, --fixtures, --scenarios and body sizes in bytes or with units', () => {
    const { config } = load(['--data', '/d.json', '--fixtures', '/f', '--scenarios', '/s', '--body-limit', '1500']);
    expect(config).toMatchObject({ dataFile: '/d.json', fixturesDir: '/f', scenariosDir: '/s', bodyLimitBytes: 1500 });
    expect(load([], {}, files({ '/work/app/sandbox.config.json': { bodyLimitBytes: '3kb' } })).config.bodyLimitBytes).toBe(3072);
  });

  it('collects merchant account header aliases: lower-cased, each once, the sandbox header itself left out; flag over env over file', () => {
    const read = files({ '/work/app/sandbox.config.json': { merchantAccountHeaders: ['x-from-file'] } });
    expect(load([], {}, read).config.merchantAccountHeaders).toEqual(['x-from-file']);
    expect(load([], { SANDBOX_MERCHANT_ACCOUNT_HEADER: 'x-a,x-b' }, read).config.merchantAccountHeaders).toEqual(['x-a', 'x-b']);
    expect(
      load(['--merchant-account-header', 'X-A', '--merchant-account-header', 'x-a', '--merchant-account-header', 'x-service-merchant-account-id'], {
        SANDBOX_MERCHANT_ACCOUNT_HEADER: 'x-b',
      }).config.merchantAccountHeaders,
    ).toEqual(['x-a']);
    expect(load([], {}, files({ '/work/app/sandbox.config.json': { merchantAccountHeaders: [] } })).config.merchantAccountHeaders).toEqual([]);
    expect(load([]).config.merchantAccountHeaders).toEqual([]);
  });

  it('collects allowed hosts and origins: lower-cased, each once, an origin as a browser writes it; flag over env over file', () => {
    const read = files({ '/work/app/sandbox.config.json': { allowedHosts: ['from.file'], allowedOrigins: ['https://app.example'] } });
    expect(load([], {}, read).config).toMatchObject({ allowedHosts: ['from.file'], allowedOrigins: ['https://app.example'] });
    expect(load([], { SANDBOX_ALLOWED_HOST: 'a.example, *', SANDBOX_ALLOWED_ORIGIN: 'http://localhost:80,https://x.example:443' }, read).config).toMatchObject({
      allowedHosts: ['a.example', '*'],
      allowedOrigins: ['http://localhost', 'https://x.example'],
    });
    expect(load(['--allowed-host', 'A.example', '--allowed-host', 'a.example'], { SANDBOX_ALLOWED_HOST: 'b.example' }).config.allowedHosts).toEqual([
      'a.example',
    ]);
    expect(load([]).config).toMatchObject({ allowedHosts: [], allowedOrigins: [] });
  });

  it('refuses an allowed host with a port or scheme, and an allowed origin that is not scheme://host[:port]', () => {
    const hostHelp = 'host names without port or scheme (sandbox.example, .example.com for it and its subdomains, or * for any)';
    expect(usageError(() => load(['--allowed-host', 'sandbox.example:4010']))).toBe(
      `--allowed-host must be ${hostHelp}, got "sandbox.example:4010" (from flag --allowed-host)`,
    );
    expect(usageError(() => load([], { SANDBOX_ALLOWED_HOST: 'http://a.example' }))).toBe(
      `--allowed-host must be ${hostHelp}, got "http://a.example" (from environment variable SANDBOX_ALLOWED_HOST)`,
    );
    expect(usageError(() => load([], {}, files({ '/work/app/sandbox.config.json': { allowedHosts: 'a.example' } })))).toBe(
      '--allowed-host must be an array of host names, got "a.example" (from /work/app/sandbox.config.json key "allowedHosts")',
    );
    const originHelp = 'origins such as http://localhost:5173 (scheme, host and port only; not * or null)';
    for (const given of ['*', 'null', 'localhost:5173', 'ftp://a.example', 'http://a.example/app', 'http://a.example?x', 'http://u:p@a.example']) {
      expect(usageError(() => load(['--allowed-origin', given]))).toBe(
        `--allowed-origin must be ${originHelp}, got ${JSON.stringify(given)} (from flag --allowed-origin)`,
      );
    }
  });

  it('collects CORS origins (--cors-origin) like allowed origins, or * alone; flag over env over file', () => {
    const read = files({ '/work/app/sandbox.config.json': { corsOrigins: ['https://checkout.example'] } });
    expect(load([], {}, read).config.corsOrigins).toEqual(['https://checkout.example']);
    expect(load([], { SANDBOX_CORS_ORIGIN: 'https://A.example:443, http://b.example:8080' }, read).config.corsOrigins).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(load(['--cors-origin', 'https://c.example', '--cors-origin', 'https://d.example'], { SANDBOX_CORS_ORIGIN: '*' }).config.corsOrigins).toEqual([
      'https://c.example',
      'https://d.example',
    ]);
    expect(load(['--cors-origin', '*']).config.corsOrigins).toEqual(['*']);
    expect(load([], {}, files({ '/work/app/sandbox.config.json': { corsOrigins: ['*'] } })).config.corsOrigins).toEqual(['*']);
    expect(load([]).config.corsOrigins).toEqual([]);
    expect(usageError(() => load(['--cors-origin', '*', '--cors-origin', 'https://c.example']))).toBe(
      '--cors-origin must be * alone (every origin) or origins such as http://localhost:5173, got "*,https://c.example" (from flag --cors-origin)',
    );
    expect(usageError(() => load(['--cors-origin', 'null']))).toBe(
      '--cors-origin must be origins such as http://localhost:5173 (scheme, host and port only; not * or null), got "null" (from flag --cors-origin)',
    );
    expect(usageError(() => load([], {}, files({ '/work/app/sandbox.config.json': { corsOrigins: '*' } })))).toBe(
      '--cors-origin must be an array of origins or *, got "*" (from /work/app/sandbox.config.json key "corsOrigins")',
    );
  });

  it('answers --help without reading anything else', () => {
    expect(load(['--port', 'nope', '--help']).help).toBe(true);
  });

  it('has a flag, a SANDBOX_* variable and a config key for every SandboxConfig field', () => {
    expect(START_OPTIONS.map((o) => o.key).sort()).toEqual(Object.keys(defaultConfig()).sort());
    for (const o of START_OPTIONS) expect(o.env[0]).toMatch(/^SANDBOX_[A-Z_]+$/);
  });
});

describe('loadConfig errors', () => {
  it('names an unknown flag, a stray argument and a missing value', () => {
    expect(usageError(() => load(['--prot', '1']))).toBe('unknown option --prot (see payments-sandbox start --help)');
    expect(usageError(() => load(['serve']))).toBe("unexpected argument 'serve' (options start with --; see payments-sandbox start --help)");
    expect(usageError(() => load(['--port']))).toBe('--port needs a value');
    expect(usageError(() => load(['--seed', '--watch']))).toBe('--seed needs a value');
    expect(usageError(() => load(['--no-watch=1']))).toBe('--no-watch takes no value');
  });

  it('names the option, the source and what is accepted for a bad value', () => {
    expect(usageError(() => load(['--port', '70000']))).toBe('--port must be an integer from 0 to 65535, got "70000" (from flag --port)');
    expect(usageError(() => load([], { SANDBOX_SEED: '1.5' }))).toBe(
      '--seed must be an integer from 0 to 9007199254740991, got "1.5" (from environment variable SANDBOX_SEED)',
    );
    expect(usageError(() => load([], { PORT: 'http' }))).toContain('(from environment variable PORT)');
    expect(usageError(() => load(['--auth', 'basic']))).toBe('--auth must be one of jwt, none, got "basic" (from flag --auth)');
    expect(usageError(() => load(['--log-level', 'loud']))).toContain('--log-level must be one of fatal, error, warn, info, debug, trace, silent');
    expect(usageError(() => load([], { SANDBOX_WATCH: 'maybe' }))).toBe('--watch must be true or false, got "maybe" (from environment variable SANDBOX_WATCH)');
    expect(usageError(() => load(['--body-limit', '1gb']))).toBe(
      '--body-limit must be a size in bytes, or like 512kb or 2mb, got "1gb" (from flag --body-limit)',
    );
    expect(usageError(() => load(['--namespace-cap', '0']))).toContain('--namespace-cap must be an integer from 1 to 100000');
    expect(usageError(() => load(['--namespace-idle-seconds', '-1']))).toContain('--namespace-idle-seconds must be an integer from 0 to 31536000');
  });

  it('refuses a merchant account header alias that is not a header name, or that the sandbox reads for something else', () => {
    expect(usageError(() => load(['--merchant-account-header', 'x merchant']))).toBe(
      '--merchant-account-header must be header names (letters, digits and - _ . and the like, no spaces), got "x merchant" (from flag --merchant-account-header)',
    );
    expect(usageError(() => load([], { SANDBOX_MERCHANT_ACCOUNT_HEADER: 'x-a,,x-b' }))).toBe(
      '--merchant-account-header must be header names (letters, digits and - _ . and the like, no spaces), got "" (from environment variable SANDBOX_MERCHANT_ACCOUNT_HEADER)',
    );
    expect(usageError(() => load(['--merchant-account-header', 'Authorization']))).toBe(
      "--merchant-account-header cannot be 'authorization': the sandbox reads that header for something else (from flag --merchant-account-header)",
    );
    expect(usageError(() => load(['--merchant-account-header=x-sandbox-namespace']))).toContain("cannot be 'x-sandbox-namespace'");
    expect(usageError(() => load(['--merchant-account-header']))).toBe('--merchant-account-header needs a value');
    const bad = (data: unknown) => usageError(() => load([], {}, files({ '/work/app/sandbox.config.json': { merchantAccountHeaders: data } })));
    expect(bad('x-a')).toBe(
      '--merchant-account-header must be an array of header names, got "x-a" (from /work/app/sandbox.config.json key "merchantAccountHeaders")',
    );
    expect(bad(['x-a', 3])).toContain('must be an array of header names, got ["x-a",3]');
    expect(bad(['x:a'])).toContain('must be header names');
  });

  it('names the config file and key for a bad file value', () => {
    const bad = (data: unknown) => usageError(() => load([], {}, files({ '/work/app/sandbox.config.json': data })));
    expect(bad({ port: '4010' })).toBe('--port must be a number, got "4010" (from /work/app/sandbox.config.json key "port")');
    expect(bad({ watch: 'yes' })).toBe('--watch must be true or false, got "yes" (from /work/app/sandbox.config.json key "watch")');
    expect(bad({ host: null })).toBe('--host must be a string, got null (from /work/app/sandbox.config.json key "host")');
    expect(bad({ prot: 1 })).toContain('the config file /work/app/sandbox.config.json has unknown key "prot" (keys: host, port,');
    expect(bad([1])).toBe('the config file /work/app/sandbox.config.json must hold a JSON object of options');
    expect(bad('{ "port": ')).toMatch(/^the config file \/work\/app\/sandbox.config.json is not valid JSON: /);
  });

  it('requires a file named by --config or SANDBOX_CONFIG to exist', () => {
    expect(usageError(() => load(['--config', 'missing.json']))).toBe('the config file /work/app/missing.json does not exist');
    expect(usageError(() => load([], { SANDBOX_CONFIG: '/x.json' }))).toBe('the config file /x.json does not exist');
  });

  it('reports a config file that cannot be read', () => {
    const unreadable: ReadFile = () => {
      throw new Error('EACCES: permission denied');
    };
    expect(usageError(() => load([], {}, unreadable))).toBe('cannot read the config file /work/app/sandbox.config.json: EACCES: permission denied');
  });

  it('takes the TLS options flag over env over file, and refuses combinations that cannot work', () => {
    const read = files({ '/work/app/sandbox.config.json': { tlsDir: 'from-file', tls: true } });
    expect(load(['--tls-dir', 'from-flag'], { SANDBOX_TLS_DIR: 'from-env' }, read).config.tlsDir).toBe('/work/app/from-flag');
    expect(load([], { SANDBOX_TLS_DIR: 'from-env' }, read).config.tlsDir).toBe('/work/app/from-env');
    expect(load([], {}, read).config).toMatchObject({ tlsDir: '/work/app/from-file', tls: true });
    expect(load(['--no-tls'], {}, read).config.tls).toBe(false);
    expect(usageError(() => load(['--tls-cert', 'c.pem']))).toBe(
      "--tls-cert and --tls-key go together: give --tls-key too (or neither, for the sandbox CA's certificate)",
    );
    expect(usageError(() => load([], { SANDBOX_TLS_KEY: 'k.pem' }))).toBe(
      "--tls-cert and --tls-key go together: give --tls-cert too (or neither, for the sandbox CA's certificate)",
    );
    expect(usageError(() => load(['--tls', '--https-port', '4443']))).toBe(
      '--https-port serves HTTPS beside plain HTTP on --port, and --tls makes --port itself HTTPS: use one of them',
    );
    expect(usageError(() => load(['--https-port', '4010']))).toBe(
      '--https-port 4010 is --port too: give HTTPS a port of its own (or use --tls to serve HTTPS on --port)',
    );
    expect(usageError(() => load([], { SANDBOX_HTTPS_PORT: 'https' }))).toBe(
      '--https-port must be an integer from 0 to 65535, got "https" (from environment variable SANDBOX_HTTPS_PORT)',
    );
    // Both on port 0: two free ports.
    expect(load(['--port', '0', '--https-port', '0']).config).toMatchObject({ port: 0, httpsPort: 0 });
  });

  it('refuses a webhook target that is not a host, an address or a CIDR range, naming it', () => {
    expect(usageError(() => load(['--webhook-target', '10.0.0.0/40']))).toBe(
      "--webhook-target '10.0.0.0/40': the prefix length after / must be 0 to 32 (from flag --webhook-target)",
    );
    expect(usageError(() => load([], { SANDBOX_WEBHOOK_TARGET: 'hooks.internal, http://x/' }))).toBe(
      "--webhook-target 'http://x/': give the host alone (hooks.internal), not a URL (from environment variable SANDBOX_WEBHOOK_TARGET)",
    );
    expect(usageError(() => load(['--webhook-target', 'bad host']))).toBe(
      "--webhook-target 'bad host': give a host name (hooks.internal, or *.internal for every name under it), an IP address or a CIDR range (from flag --webhook-target)",
    );
    expect(usageError(() => load(['--webhook-pipelining', '0']))).toContain('--webhook-pipelining');
  });

  it('refuses a non-loopback bind without an admin token, from any source', () => {
    const message =
      '--host 0.0.0.0 makes the control API (/_sandbox) reachable from other machines: set --admin-token (or SANDBOX_ADMIN_TOKEN) too, or --control-api open where only a port published on 127.0.0.1 reaches it';
    expect(usageError(() => load(['--host', '0.0.0.0']))).toBe(message);
    expect(usageError(() => load([], { SANDBOX_HOST: '0.0.0.0' }))).toBe(message);
    expect(usageError(() => load(['--host', '0.0.0.0', '--control-api', 'loopback']))).toBe(message);
    expect(load(['--host', '0.0.0.0'], { SANDBOX_ADMIN_TOKEN: 'x'.repeat(16) }).config.adminToken).toBe('x'.repeat(16));
  });

  it('takes a non-loopback bind without an admin token when the control API is open on purpose (the image)', () => {
    expect(load([]).config.controlApi).toBe('loopback');
    expect(load(['--host', '0.0.0.0', '--control-api', 'open']).config).toMatchObject({ host: '0.0.0.0', controlApi: 'open', adminToken: null });
    expect(load([], { SANDBOX_HOST: '0.0.0.0', SANDBOX_CONTROL_API: 'open' }).config).toMatchObject({ host: '0.0.0.0', controlApi: 'open' });
    expect(usageError(() => load(['--control-api', 'public']))).toBe('--control-api must be one of loopback, open, got "public" (from flag --control-api)');
  });

  it('refuses an admin token shorter than 16 characters from any source, without echoing it', () => {
    expect(usageError(() => load(['--admin-token', 'hunter2']))).toBe(
      '--admin-token must be at least 16 characters, got 7 characters (from flag --admin-token)',
    );
    expect(usageError(() => load(['--admin-token=']))).toBe('--admin-token must be at least 16 characters, got 0 characters (from flag --admin-token)');
    expect(usageError(() => load([], { SANDBOX_ADMIN_TOKEN: 'x'.repeat(15) }))).toBe(
      '--admin-token must be at least 16 characters, got 15 characters (from environment variable SANDBOX_ADMIN_TOKEN)',
    );
    expect(usageError(() => load([], {}, () => JSON.stringify({ adminToken: 'a' })))).toBe(
      '--admin-token must be at least 16 characters, got 1 character (from /work/app/sandbox.config.json key "adminToken")',
    );
    expect(load(['--admin-token', 'y'.repeat(16)]).config.adminToken).toBe('y'.repeat(16));
  });
});
