import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/admin/exposure.js';
import { startSandbox } from '../../src/index.js';
import { buildSandbox } from '../../src/sandbox.js';
import { expectErrorBody, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

describe('admin token rule', () => {
  it('knows loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com', '', '127.0.0.1.example.com']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('refuses to build or start off loopback without an admin token', async () => {
    await expect(buildSandbox({ host: '0.0.0.0', logLevel: 'silent' })).rejects.toThrow(/refusing to bind 0\.0\.0\.0 without an admin token.*--admin-token/);
    await expect(startSandbox({ host: '::', logLevel: 'silent' })).rejects.toThrow(/refusing to bind :: without an admin token/);
    await expect(buildSandbox({ host: '0.0.0.0', adminToken: '', logLevel: 'silent' })).rejects.toThrow(/admin token/);
  });

  it('refuses an admin token shorter than 16 characters, on loopback too, without echoing it', async () => {
    for (const host of ['0.0.0.0', '127.0.0.1']) {
      const failure = buildSandbox({ host, adminToken: 'fifteen-chars-x', logLevel: 'silent' });
      await expect(failure).rejects.toThrow('the admin token is 15 characters long: use 16 at least (the control API can read and reset every namespace).');
      await expect(failure).rejects.not.toThrow(/fifteen/);
    }
    await expect(startSandbox({ adminToken: 'short', logLevel: 'silent' })).rejects.toThrow(/the admin token is 5 characters long/);
    const sb = await startTestSandbox({ adminToken: 'sixteen-chars-xy' }); // 16: accepted
    try {
      expect((await sb.http.get('/_sandbox/health').set('x-sandbox-admin-token', 'sixteen-chars-xy')).status).toBe(200);
    } finally {
      sb.server.close();
    }
  });

  describe.each([
    ['bound off loopback', { host: '0.0.0.0', adminToken: 'sandbox-s3cret-token' }],
    ['on loopback with a token configured', { host: '127.0.0.1', adminToken: 'sandbox-s3cret-token' }],
  ])('%s', (_label, config) => {
    let sb: TestSandbox;
    beforeAll(async () => {
      sb = await startTestSandbox(config);
    });
    afterAll(() => sb.server.close());

    it('answers 401 without the token and 403 with a wrong one, changing nothing', async () => {
      const none = await sb.http.post('/_sandbox/reset');
      expect(none.status).toBe(401);
      expectErrorBody(none.body, 401, 'unauthorized');
      expect(none.body.message).toMatch(/x-sandbox-admin-token/);
      const wrong = await sb.http.delete('/_sandbox/records/roles/a1000000-0000-4000-8000-000000000001').set('x-sandbox-admin-token', 'sandbox-s3cret-tokem');
      expect(wrong.status).toBe(403);
      expectErrorBody(wrong.body, 403, 'forbidden');
      const shorter = await sb.http.get('/_sandbox/health').set('authorization', 'Bearer s3cret');
      expect(shorter.status).toBe(403);
      expect(sb.deps.namespaces.get('default').store.collections.roles.get('a1000000-0000-4000-8000-000000000001')).toBeDefined();
    });

    it('accepts the token in x-sandbox-admin-token or as a bearer token', async () => {
      expect((await sb.http.get('/_sandbox/health').set('x-sandbox-admin-token', 'sandbox-s3cret-token')).status).toBe(200);
      expect((await sb.http.get('/_sandbox/health').set('authorization', 'Bearer sandbox-s3cret-token')).status).toBe(200);
    });

    it('leaves the API to its own JWT auth', async () => {
      expect((await sb.http.get('/card-scheme-definitions').set('authorization', sb.auth)).status).toBe(200);
      expect((await sb.http.get('/card-scheme-definitions').set('x-sandbox-admin-token', 'sandbox-s3cret-token')).status).toBe(401);
    });
  });

  it('binds off loopback without a token only with controlApi open, and then serves the control API to any client', async () => {
    await expect(buildSandbox({ host: '0.0.0.0', controlApi: 'loopback', logLevel: 'silent' })).rejects.toThrow(
      /refusing to bind 0\.0\.0\.0.*--control-api open/,
    );
    const sb = await startTestSandbox({ host: '0.0.0.0', controlApi: 'open' });
    try {
      const health = await sb.http.get('/_sandbox/health');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
      expect((await sb.http.post('/_sandbox/reset')).status).toBe(200);
    } finally {
      sb.server.close();
    }
    // A token, when given, is still required: open only stands in for a missing one.
    const guarded = await startTestSandbox({ host: '0.0.0.0', controlApi: 'open', adminToken: 'sandbox-s3cret-token' });
    try {
      expect((await guarded.http.get('/_sandbox/health')).status).toBe(401);
    } finally {
      guarded.server.close();
    }
  });

  it('leaves the control API open on loopback without a token', async () => {
    const sb = await startTestSandbox();
    try {
      expect((await sb.http.get('/_sandbox/health')).status).toBe(200);
    } finally {
      sb.server.close();
    }
  });
});
