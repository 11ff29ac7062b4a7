// Test harness: a sandbox app behind a real HTTP server (supertest), with response self-checks on,
// and tokens minted from the well-known key files.

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import supertest from 'supertest';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createApp } from '../../src/app.js';
import { type MintOptions, mintToken } from '../../src/auth/mint-token.js';
import type { SandboxConfig } from '../../src/config.js';
import { buildSandbox, type SandboxDeps } from '../../src/sandbox.js';

export { WELL_KNOWN } from '../../fixtures/well-known.js';

export const KEYS_DIR = join(import.meta.dirname, '../../fixtures/keys');
export type KeyName = 'admin' | 'read-only' | 'inactive' | 'rsa';

export function keyPem(name: KeyName): string {
  return readFileSync(join(KEYS_DIR, `${name}.pem`), 'utf8');
}

/** A signed bearer token for a well-known key (all scopes by default). */
export function tokenFor(name: KeyName = 'admin', options: Omit<MintOptions, 'privateKeyPem'> = {}): Promise<string> {
  return mintToken({ privateKeyPem: keyPem(name), ...options });
}

export interface TestSandbox {
  deps: SandboxDeps;
  server: Server;
  /** supertest bound to the sandbox's HTTP server. */
  http: supertest.Agent;
  /** `Authorization` header value for the admin key. */
  auth: string;
}

/** Builds a fresh sandbox (default seed, response self-check on, quiet logs). */
export async function startTestSandbox(overrides: Partial<SandboxConfig> = {}): Promise<TestSandbox> {
  const deps = await buildSandbox({ validateResponses: true, logLevel: 'silent', ...overrides });
  const server = createServer(getRequestListener(createApp(deps).fetch));
  const http = supertest.agent(server);
  return { deps, server, http, auth: `Bearer ${await tokenFor('admin')}` };
}

/**
 * A sandbox for the tests of one describe block (or file): started before them, closed after; `set`
 * is given it once it is up. With `resetBeforeEach`, every test starts from POST /_sandbox/reset.
 */
export function useTestSandbox(set: (sb: TestSandbox) => void, options: { resetBeforeEach?: boolean } = {}): void {
  let started: TestSandbox | null = null;
  beforeAll(async () => {
    started = await startTestSandbox();
    set(started);
  });
  afterAll(() => started?.server.close());
  if (options.resetBeforeEach) {
    beforeEach(async () => {
      await started?.http.post('/_sandbox/reset').send({});
    });
  }
}

/** Checks the reference's error body, every field. */
export function expectErrorBody(body: any, status: number, code: string): void {
  if (typeof body !== 'object' || body === null) throw new Error(`error body is not an object: ${JSON.stringify(body)}`);
  const keys = Object.keys(body).sort();
  const expectedKeys = ['code', 'details', 'message', 'status', 'type', ...(body.resource_id !== undefined ? ['resource_id'] : [])].sort();
  if (JSON.stringify(keys) !== JSON.stringify(expectedKeys)) throw new Error(`error body keys ${keys} != ${expectedKeys}`);
  if (
    body.type !== 'error' ||
    body.status !== status ||
    body.code !== code ||
    typeof body.message !== 'string' ||
    !body.message ||
    !Array.isArray(body.details)
  ) {
    throw new Error(`unexpected error body ${JSON.stringify(body)} for ${status} ${code}`);
  }
}
