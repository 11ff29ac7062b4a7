// The command the front page and docs/sdk.md give for the official SDK's merchant account header,
// run as written (on a free port): the SDK's header then chooses the merchant account, which the
// sandbox otherwise refuses as misnamed.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/start.js';
import { tokenFor } from '../support/sandbox.js';
import { block, ROOT } from './doc-pages.js';

const run = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function giftCards(url: string, merchantHeader: string): Promise<Response> {
  return fetch(`${url}/gift-cards?limit=100`, { headers: { authorization: `Bearer ${await tokenFor()}`, [merchantHeader]: 'merchant-two' } });
}

describe('the merchant account header of the official SDK', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) process.kill(-(child.pid as number), 'SIGTERM');
  });

  it('is given the same way on the front page and in docs/sdk.md', () => {
    expect(block('README.md', '## Pointing the official SDK at it', 'sh')).toBe(block('docs/sdk.md', '## The merchant account header', 'sh'));
  });

  it('is refused as misnamed without the option, and chooses the merchant account with it', async () => {
    const plain = await startSandbox({ logLevel: 'silent' });
    try {
      const refused = await giftCards(plain.url, 'x-gr4vy-merchant-account-id');
      expect(refused.status).toBe(400);
      expect((await refused.json()).details[0]).toMatchObject({ type: 'header_misnamed' });
    } finally {
      await plain.close();
    }

    const command = block('docs/sdk.md', '## The merchant account header', 'sh').trim();
    expect(command).toBe('npx payments-sandbox --merchant-account-header x-gr4vy-merchant-account-id');
    const port = await freePort();
    const child = spawn('sh', ['-c', `${command} --port ${port}`], { cwd: ROOT, detached: true, stdio: 'ignore' });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    await run('npx', ['payments-sandbox', 'wait', '--url', url, '--timeout', '20s'], { cwd: ROOT, timeout: 30_000 });
    const chosen = await giftCards(url, 'x-gr4vy-merchant-account-id');
    expect(chosen.status).toBe(200);
    const items = (await chosen.json()).items as Array<{ merchant_account_id: string }>;
    expect(items).toHaveLength(12);
    expect(new Set(items.map((card) => card.merchant_account_id))).toEqual(new Set(['merchant-two']));
  });
});
