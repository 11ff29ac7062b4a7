// The start-up banner: what a person needs to use the sandbox right away (where it is, which data,
// where state lives, how to get a token, where the docs are) and loud warnings. Written to stderr,
// so stdout carries only log lines.
import { isLoopbackHost } from '../admin/exposure.js';
import type { SandboxConfig } from '../config.js';

export interface BannerInfo {
  version: string;
  /** --forward-webhooks-to: where every event goes, and the secret its notifications are signed with. */
  forward?: { url: string; secret: string } | null;
  /** The URL as bound, e.g. http://0.0.0.0:4010. */
  url: string;
  config: SandboxConfig;
  keyFile: string;
  configFile: string | null;
  /** Folders --watch follows. */
  watching: string[];
}

/** A URL a browser on this machine can open (0.0.0.0 and :: are bind-all addresses, not hosts). */
export function reachableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

export function formatBanner(info: BannerInfo): string {
  const { config } = info;
  const url = reachableUrl(info.url);
  const row = (label: string, text: string) => `  ${label.padEnd(9)} ${text}`;
  const lines = [
    `payments-sandbox ${info.version} listening on ${url}${url !== info.url ? ` (bound to ${config.host})` : ''}`,
    row('seed', `${config.seed} (the same seed gives the same data)`),
    row('state', config.dataFile ? `data file ${config.dataFile} (flushed on exit)` : 'in memory (lost on exit; use --data-file FILE to keep it)'),
    row('fixtures', config.fixturesDir ? `generated from the seed, with overrides from ${config.fixturesDir}` : 'generated from the seed'),
  ];
  if (config.auth === 'none') {
    lines.push(row('auth', 'none: no token needed'));
  } else {
    lines.push(
      row('auth', 'Authorization: Bearer <JWT signed with a known API key pair>'),
      row('key file', `${info.keyFile} (well-known admin key pair, every scope)`),
      row('token', 'TOKEN=$(npx payments-sandbox token)'),
      row('try', `curl -H "Authorization: Bearer $TOKEN" ${url}/connections`),
    );
  }
  lines.push(row('docs', `${url}/docs (control API: ${url}/docs/admin)`));
  lines.push(row('control', `${url}/_sandbox${config.adminToken ? ' (needs the admin token)' : ''}`));
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

export function bannerWarnings(info: BannerInfo): string[] {
  const { config } = info;
  const warnings: string[] = [];
  if (config.auth === 'none') warnings.push('--auth none: every request is accepted without a token; clients that send a bad token will not find out here');
  if (!isLoopbackHost(config.host)) warnings.push(`listening on ${config.host}: reachable from other machines (the control API needs the admin token)`);
  if (config.watch && info.watching.length === 0) warnings.push('--watch has nothing to watch: set --fixtures-dir or --scenarios-dir');
  return warnings;
}
