// The Host check, against DNS rebinding: a web page whose name an attacker re-points at 127.0.0.1
// reaches the sandbox as its own origin, so the browser lets it read every answer. Such a request
// still carries the attacker's name in Host, so only names that cannot be re-pointed that way are
// served: loopback names (localhost, *.localhost), IP literals (a phone on the LAN, a container's
// published port), the --host value, and what --allowed-host adds. Vite and webpack-dev-server
// do the same. On the request path it is one Set lookup of the header as sent: a Host value is
// judged once, then remembered.
import { isIPv4 } from 'node:net';
import type { SandboxConfig } from '../config.js';
import { ApiError } from '../errors/api-error.js';
import type { Call } from './call.js';
import { absoluteFormTarget, isHttp2 } from './node-bindings.js';
import type { Step } from './pipeline.js';

/** Distinct accepted Host values remembered (a sandbox sees a handful); past it the memory starts over. */
const REMEMBERED_HOSTS = 256;

export interface HostRule {
  /** `*` was given: every name is served. */
  any: boolean;
  /** Names served exactly (lower case, no trailing dot). */
  names: ReadonlySet<string>;
  /** Suffixes whose names are served: `.localhost`, and `.domain` forms given. */
  suffixes: readonly string[];
}

/** The rule of a configuration, made once at boot. */
export function hostRuleOf(config: Pick<SandboxConfig, 'host' | 'allowedHosts'>): HostRule {
  const names = new Set(['localhost']);
  const suffixes = ['.localhost'];
  let any = false;
  for (const given of [config.host, ...config.allowedHosts]) {
    const name = normalName(given.trim());
    if (name === '*') any = true;
    else if (name.startsWith('.')) {
      suffixes.push(name);
      names.add(name.slice(1));
    } else if (name) names.add(name);
  }
  return { any, names, suffixes };
}

/** The host name of a Host header value (host[:port], [v6][:port]), or null for an IP literal. */
function nameOf(host: string): string | null {
  if (host.startsWith('[')) return null; // an IPv6 literal: the only form with brackets
  const colon = host.lastIndexOf(':');
  const name = normalName(colon < 0 ? host : host.slice(0, colon));
  return isIPv4(name) ? null : name;
}

function normalName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

export function isServedHost(rule: HostRule, host: string): boolean {
  if (rule.any) return true;
  const name = nameOf(host);
  return name === null || rule.names.has(name) || rule.suffixes.some((suffix) => name.endsWith(suffix));
}

/**
 * The authority the request names, which the app serves it under (@hono/node-server builds its URL
 * from it): an absolute-form target's (RFC 9112 3.2.2: it wins over Host), HTTP/2's :authority
 * (Host only without one), else the Host header; undefined for HTTP/1.0 without one (or in process,
 * app.request()).
 */
export function requestHost(call: Call): string | undefined {
  if (absoluteFormTarget(call.context)) return new URL(call.url).host; // rare: a proxy's form, sent to the sandbox directly
  // Only a Node HTTP/2 request has pseudo-headers: the Fetch API's Headers refuses the name.
  if (isHttp2(call.context)) return call.header(':authority') ?? call.header('host');
  return call.header('host');
}

/** 403 for a Host the rule does not serve, on every route. */
export function checkHost(rule: HostRule): Step {
  const served = new Set<string>();
  return {
    name: 'host check',
    before(call) {
      const host = requestHost(call);
      // No Host (HTTP/1.0: a proxy's health check) names no site a browser could have loaded.
      if (host === undefined || served.has(host)) return;
      if (!isServedHost(rule, host)) throw hostNotServed(host);
      if (served.size >= REMEMBERED_HOSTS) served.clear();
      served.add(host);
    },
  };
}

function hostNotServed(host: string): ApiError {
  const name = (nameOf(host) ?? host).slice(0, 100);
  return ApiError.ofStatus(
    403,
    `The Host header names '${name}', which this sandbox does not serve (a defence against DNS rebinding). ` +
      `Reach it as localhost or by IP address, or start it with --allowed-host ${name} (SANDBOX_ALLOWED_HOST).`,
    [
      {
        location: 'header',
        pointer: '/host',
        type: 'host_not_allowed',
        message: `Header 'host' must name localhost, an IP address, the --host value or an --allowed-host name.`,
      },
    ],
    { outsideContract: true },
  );
}
