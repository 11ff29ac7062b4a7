// Response self-check (config.validateResponses): a handler or error path that drifts from
// openapi.json is a loud 500 naming the problem, logged at error level; answers that belong to no
// operation (404, 405, 413) keep their status and are checked against the Error schema only.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { ApiError } from '../../src/errors/api-error.js';
import { buildSandbox, type SandboxDeps } from '../../src/sandbox.js';
import { expectErrorBody, tokenFor } from '../support/sandbox.js';

interface Built {
  deps: SandboxDeps;
  call(method: string, path: string, init?: { body?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  logs: any[];
}

const original = new Map<string, unknown>();

async function build(validateResponses: boolean): Promise<Built> {
  const logs: any[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      logs.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const deps = await buildSandbox({ validateResponses, logLevel: 'error' }, { logger: pino({ level: 'error' }, out) });
  const app = createApp(deps);
  const auth = `Bearer ${await tokenFor('admin')}`;
  return {
    deps,
    logs,
    async call(method, path, init = {}) {
      const res = await app.request(path, {
        method,
        body: init.body,
        headers: { authorization: auth, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
  };
}

/** Replaces one handler for the test (restored afterwards). */
function drift(deps: SandboxDeps, id: string, handler: (...args: any[]) => any): void {
  if (!original.has(id)) original.set(id, deps.api.handlers[id]);
  deps.api.handlers[id] = handler;
}

let current: Built | null = null;
afterEach(() => {
  for (const [id, h] of original) if (current) current.deps.api.handlers[id] = h as any;
  original.clear();
});

describe('response self-check on', () => {
  it('turns a success status the operation does not declare into a 500 naming it, and logs it', async () => {
    current = await build(true);
    drift(current.deps, 'listConnections', () => ({ status: 202, body: { items: [] } }));
    const res = await current.call('GET', '/connections');
    expect(res.status).toBe(500);
    expectErrorBody(res.body, 500, 'server_error');
    expect(res.body.message).toBe('Response self-check: listConnections answered 202, which openapi.json does not declare (it declares 200, 400, 401, 403).');
    expect(current.logs.some((l) => l.level === 50 && l.problem === res.body.message)).toBe(true);
  });

  it('turns a success body that breaks the schema into a 500', async () => {
    current = await build(true);
    drift(current.deps, 'listConnections', () => ({ body: { items: [{ type: 'connection' }] } }));
    const res = await current.call('GET', '/connections');
    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(/^Response self-check: the 200 body of listConnections does not match openapi\.json: \[/);
  });

  it('turns an error status the operation does not declare into a 500 naming it', async () => {
    current = await build(true);
    drift(current.deps, 'listConnections', () => {
      throw ApiError.notFound('gone');
    });
    const res = await current.call('GET', '/connections');
    expect(res.status).toBe(500);
    expectErrorBody(res.body, 500, 'server_error');
    expect(res.body.message).toBe('Response self-check: listConnections answered 404, which openapi.json does not declare (it declares 200, 400, 401, 403).');
    expect(current.logs.filter((l) => l.level === 50).map((l) => l.msg)).toEqual(['response breaks openapi.json']);
  });

  it('turns an error body with a code outside the Error schema into a 500', async () => {
    current = await build(true);
    drift(current.deps, 'updateBuyer', () => {
      throw new ApiError(400, 'made_up_code', 'drifted');
    });
    const res = await current.call('PUT', '/buyers/b0000000-0000-4000-8000-000000000001', { body: '{}' });
    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(/^Response self-check: the 400 error body does not match openapi\.json Error: .*enum/);
  });

  it('turns a 422 with no items (ValidationError needs one) into a 500', async () => {
    current = await build(true);
    drift(current.deps, 'createReport', () => {
      throw ApiError.unprocessable([]);
    });
    const res = await current.call('POST', '/reports', {
      body: JSON.stringify({ name: 'r', schedule: 'once', schedule_enabled: true, spec: { model: 'transactions', params: {} } }),
    });
    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(/^Response self-check: the 422 error body does not match openapi\.json ValidationError/);
  });

  it('keeps the status of answers that belong to no operation: 404, 405 and 413', async () => {
    current = await build(true);
    const notFound = await current.call('GET', '/no-such-path');
    expect(notFound.status).toBe(404);
    expectErrorBody(notFound.body, 404, 'not_found');
    const notAllowed = await current.call('DELETE', '/connections');
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.get('allow')).toBe('GET');
    expectErrorBody(notAllowed.body, 405, 'method_not_allowed');
    expect(notAllowed.body.message).toBe('The API reference serves only GET on /connections, not DELETE.');
    const big = JSON.stringify({ display_name: 'x'.repeat(1024 * 1024) });
    const tooLarge = await current.call('PUT', '/buyers/b0000000-0000-4000-8000-000000000001', {
      body: big,
      headers: { 'content-length': String(big.length) },
    });
    expect(tooLarge.status).toBe(413);
    expectErrorBody(tooLarge.body, 413, 'payload_too_large');
    expect(tooLarge.headers.get('connection')).toBe('close');
    expect(current.logs).toEqual([]);
  });

  it('lets a documented error through unchanged', async () => {
    current = await build(true);
    const res = await current.call('PUT', '/buyers/b0000000-0000-4000-8000-000000000009', { body: '{}' });
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 404, 'not_found');
  });
});

describe('response self-check off', () => {
  it('passes an undeclared status through as the handler gave it', async () => {
    current = await build(false);
    drift(current.deps, 'listConnections', () => {
      throw ApiError.notFound('gone');
    });
    const res = await current.call('GET', '/connections');
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('gone');
  });
});
