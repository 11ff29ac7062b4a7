// Who can reach the control API: on loopback, whoever runs on the machine; elsewhere, only holders
// of the admin token. Boot refuses a non-loopback bind without one, unless told the control API is
// open on purpose (controlApi 'open': a container, reached only through a port published on loopback).
import { isIP } from 'node:net';
import { MIN_ADMIN_TOKEN_LENGTH, type SandboxConfig } from '../config.js';

/** 127.0.0.0/8, ::1 (and its IPv4-mapped forms), localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.split('.')[0] === '127';
}

export function assertSafeExposure(config: Pick<SandboxConfig, 'host' | 'adminToken'> & { controlApi?: SandboxConfig['controlApi'] }): void {
  if (config.adminToken && config.adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(
      `the admin token is ${config.adminToken.length} characters long: use ${MIN_ADMIN_TOKEN_LENGTH} at least (the control API can read and reset every namespace).`,
    );
  }
  if (isLoopbackHost(config.host) || config.adminToken || config.controlApi === 'open') return;
  throw new Error(
    `refusing to bind ${config.host} without an admin token: the control API (/_sandbox) could reset or read every namespace. ` +
      'Pass --admin-token <secret> (adminToken in code), or bind 127.0.0.1 (or, in a container published on 127.0.0.1 alone, --control-api open).',
  );
}
