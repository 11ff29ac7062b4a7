// The command the front page and docs/sdk.md give for the official SDK's merchant account header,
// run as written (on a free port): the SDK's header then chooses the merchant account, which the
// sandbox otherwise refuses as misnamed.
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/start.js';
import { tokenFor } from '../support/sandbox.js';
import { freePort, startCommand, stopCommand, untilHealthy } from './commands.js';
import { block } from './doc-pages.js';

async function giftCards(url: string, merchantHeader: string): Promise<Response> {
  return fetch(`${url}/gift-cards?limit=100`, { headers: { authorization: `Bearer ${await tokenFor()}`, [merchantHeader]: 'merchant-two' } });
}

describe('the merchant account header of the official SDK', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) stopCommand(child);
  });

  it('is given the same way on the front page and in docs/sdk.md', () => {
    expect(block('README.md', '## Pointing the official SDK at it', 'sh')).toBe(block('docs/sdk.md', '## The merchant account header', 'sh'));
  });

  it('is refused as misnamed without the option, and chooses the merchant account with it', { timeout: 90_000 }, async () => {
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
    children.push(startCommand(`${command} --port ${port}`));
    const url = `http://127.0.0.1:${port}`;
    await untilHealthy(`${url}/_sandbox/health`);
    const chosen = await giftCards(url, 'x-gr4vy-merchant-account-id');
    expect(chosen.status).toBe(200);
    const items = (await chosen.json()).items as Array<{ merchant_account_id: string }>;
    expect(items).toHaveLength(12);
    expect(new Set(items.map((card) => card.merchant_account_id))).toEqual(new Set(['merchant-two']));
  });
});
