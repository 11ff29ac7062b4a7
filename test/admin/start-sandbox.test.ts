import { describe, expect, it } from 'vitest';
import { startSandbox, WELL_KNOWN } from '../../src/index.js';

describe('startSandbox', () => {
  it('serves on a free loopback port, per namespace, and stops on close', async () => {
    const sandbox = await startSandbox({ logLevel: 'silent' });
    const other = await startSandbox({ logLevel: 'silent' });
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sandbox.port).not.toBe(other.port);
      const readOnly = await sandbox.token({ scopes: ['buyers.read'] });
      const denied = await fetch(`${sandbox.namespaceUrl('worker-1')}/buyers/${WELL_KNOWN.buyers.default.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${readOnly}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(denied.status).toBe(403);
      const created = await fetch(`${sandbox.namespaceUrl('worker-1')}/_sandbox/records/buyers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'b0000000-0000-4000-8000-00000000beef', display_name: 'Worker' }),
      });
      expect(created.status).toBe(201);
      const inDefault = await fetch(`${sandbox.url}/_sandbox/records/buyers/b0000000-0000-4000-8000-00000000beef`);
      expect(inDefault.status).toBe(404);
      sandbox.reset('worker-1');
      expect((await fetch(`${sandbox.namespaceUrl('worker-1')}/_sandbox/records/buyers/b0000000-0000-4000-8000-00000000beef`)).status).toBe(404);
      const count = await (await fetch(`${sandbox.url}/_sandbox/requests/count?namespace=worker-1`)).json();
      expect(count).toEqual({ count: 1 });
    } finally {
      await sandbox.close();
      await other.close();
    }
    await expect(fetch(`${sandbox.url}/_sandbox/health`)).rejects.toThrow();
  });
});
