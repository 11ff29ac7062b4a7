// The start-up banner: what a person needs to use the sandbox right away (where it is, which data,
// where state lives, how to get a token, where the docs are) and loud warnings. Written to stderr,
// so stdout carries only log lines.
import { isLoopbackHost } from '../admin/exposure.js';
import type { SandboxConfig } from '../config.js';
import type { TlsMaterial } from '../tls/tls-material.js';
import { modeAtStart } from '../upstream/modes.js';

export interface BannerInfo {
  version: string;
  /** --forward-webhooks-to: where every event goes, and the secret its notifications are signed with. */
  forward?: { url: string; secret: string } | null;
  /** The URL as bound, e.g. http://0.0.0.0:4010. */
  url: string;
  /** The HTTPS URL beside it (--https-port), or null. */
  secondUrl?: string | null;
  /** The certificate served over HTTPS, or null. */
  tls?: TlsMaterial | null;
  config: SandboxConfig;
  keyFile: string;
  configFile: string | null;
  /** Folders --watch follows. */
  watching: string[];
  /** The image this runs in (SANDBOX_IMAGE, set by the Dockerfile), where there is no npx: the token line says what works. */
  image?: string | null;
}

/** A URL a browser on this machine can open (0.0.0.0 and :: are bind-all addresses, not hosts). */
export function reachableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

export function formatBanner(info: BannerInfo): string {
  const { config } = info;
  const url = reachableUrl(info.url);
  const second = info.secondUrl ? ` and ${reachableUrl(info.secondUrl)}` : '';
  const row = (label: string, text: string) => `  ${label.padEnd(9)} ${text}`;
  const tls = info.tls ?? null;
  const cacert = tls?.caFile && url.startsWith('https:') ? `--cacert ${tls.caFile} ` : '';
  const lines = [
    `payments-sandbox ${info.version} listening on ${url}${second}${url !== info.url ? ` (bound to ${config.host})` : ''}`,
    row('seed', `${config.seed} (the same seed gives the same data)`),
    row(
      'state',
      config.store.startsWith('redis://')
        ? `shared in Redis at ${config.store} (every change written there before its answer; namespaces move between nodes)`
        : config.dataFile
          ? `data file ${config.dataFile} (every change logged before its answer, fsync ${config.fsync})`
          : 'in memory (lost on exit; use --data-file FILE to keep it)',
    ),
    row('fixtures', config.fixturesDir ? `generated from the seed, with overrides from ${config.fixturesDir}` : 'generated from the seed'),
  ];
  if (config.auth === 'none') {
    lines.push(row('auth', 'none: no token needed'));
  } else {
    lines.push(
      row('auth', 'Authorization: Bearer <JWT signed with a known API key pair>'),
      row('key file', `${info.keyFile} (well-known admin key pair, every scope)`),
      row(
        'token',
        info.image
          ? `TOKEN=$(docker run --rm ${info.image} token) (podman run likewise; or POST ${url}/_sandbox/tokens, its "token" field)`
          : 'TOKEN=$(npx payments-sandbox token)',
      ),
      row('try', `curl ${cacert}-H "Authorization: Bearer $TOKEN" ${url}/connections`),
    );
  }
  if (config.merchantAccountHeaders.length) {
    lines.push(row('merchant', `chosen by x-service-merchant-account-id or ${config.merchantAccountHeaders.join(', ')}`));
  }
  if (tls) lines.push(...tlsRows(tls, row));
  lines.push(row('docs', `${url}/docs (control API: ${url}/docs/admin)`));
  lines.push(row('control', `${url}/_sandbox${config.adminToken ? ' (needs the admin token)' : isLoopbackHost(config.host) ? '' : ' (open: no token)'}`));
  lines.push(row('console', `${url}/_sandbox/console`));
  if (config.upstream) {
    lines.push(row('upstream', `${config.upstream}, mode ${modeAtStart(config)} (switch it: payments-sandbox upstream off|record|compare)`));
  }
  if (info.forward) {
    // Like stripe listen: the receiver needs this secret to verify signatures. It is a banner line on stderr, never a log line.
    lines.push(row('webhooks', `every event of every namespace is also sent to ${info.forward.url}, signed with secret ${info.forward.secret}`));
  }
  if (info.configFile) lines.push(row('config', info.configFile));
  if (config.watch) lines.push(row('watch', info.watching.length ? `reloading on change: ${info.watching.join(', ')}` : 'on, but there is nothing to watch'));
  lines.push(
    row(
      'logs',
      `${config.logLevel}, ${config.logFormat} on stdout${config.logLevel === 'debug' || config.logLevel === 'trace' ? ' (one line per request)' : ''}`,
    ),
  );
  for (const warning of bannerWarnings(info)) lines.push(`WARNING: ${warning}`);
  return `${lines.join('\n')}\n`;
}

/** What HTTPS is served with, and for the sandbox CA the one line that makes Node, curl and a device trust it. */
function tlsRows(tls: TlsMaterial, row: (label: string, text: string) => string): string[] {
  if (!tls.caFile) return [row('https', `HTTP/2 and HTTP/1.1, with your certificate ${tls.certFile}`)];
  const kept = tls.made.ca
    ? 'made now, kept for later starts: trust it once'
    : tls.made.certificate
      ? 'kept; its localhost certificate renewed now'
      : 'kept from an earlier start';
  return [
    row('https', 'HTTP/2 and HTTP/1.1, certificate for localhost, 127.0.0.1 and ::1 issued by the sandbox CA'),
    row('CA', `${tls.caFile} (${kept})`),
    row('trust', `Node: NODE_EXTRA_CA_CERTS=${tls.caFile}  curl: --cacert ${tls.caFile}  a device: install ca.pem as a trusted CA (docs/https-and-devices.md)`),
  ];
}

export function bannerWarnings(info: BannerInfo): string[] {
  const { config } = info;
  const warnings: string[] = [];
  if (config.auth === 'none') warnings.push('--auth none: every request is accepted without a token; clients that send a bad token will not find out here');
  if (!isLoopbackHost(config.host)) {
    warnings.push(
      config.adminToken
        ? `listening on ${config.host}: reachable from other machines (the control API needs the admin token)`
        : `listening on ${config.host} with --control-api open: whoever reaches this port can read and reset every namespace; publish it on 127.0.0.1 only, or set --admin-token`,
    );
  }
  if (config.corsOrigins.includes('*')) {
    warnings.push(
      '--cors-origin *: every web page the browser opens may call the API (a page can sign its own token with the published keys); name your origins instead',
    );
  }
  if (config.watch && info.watching.length === 0) warnings.push('--watch has nothing to watch: set --fixtures-dir or --scenarios-dir');
  return warnings;
}
