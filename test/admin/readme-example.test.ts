// The README's vitest example, word for word except the import path ('payments-sandbox' there).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox, WELL_KNOWN } from '../../src/index.js';

let sandbox: RunningSandbox;
let auth: { authorization: string; 'content-type': string };

beforeAll(async () => {
  sandbox = await startSandbox({ logLevel: 'silent' }); // 127.0.0.1, a free port
  auth = { authorization: `Bearer ${await sandbox.token()}`, 'content-type': 'application/json' };
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset()); // every test starts from the seeded fixtures

describe('my client against the sandbox', () => {
  const buyerId = WELL_KNOWN.buyers.default.id;

  it('renames a buyer, and the sandbox saw exactly what was sent', async () => {
    const res = await fetch(`${sandbox.url}/buyers/${buyerId}`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ display_name: 'Ada Lovelace' }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).display_name).toBe('Ada Lovelace');

    const journal = await (await fetch(`${sandbox.url}/_sandbox/requests?operation_id=updateBuyer`)).json();
    expect(journal.items[0].body).toEqual({ display_name: 'Ada Lovelace' });
    expect(journal.items[0].headers.authorization).toBe('[redacted]');
  });

  it('starts from the fixtures again', async () => {
    const buyer = await (await fetch(`${sandbox.url}/_sandbox/records/buyers/${buyerId}`)).json();
    expect(buyer.display_name).toBe('Jane Doe');
  });

  it('sets up state through the records API', async () => {
    const created = await fetch(`${sandbox.url}/_sandbox/records/webhook_subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://hooks.example/ci' }),
    });
    expect(created.status).toBe(201);
    const { id } = await created.json();
    const res = await fetch(`${sandbox.url}/webhook-subscriptions/${id}`, { method: 'DELETE', headers: auth });
    expect(res.status).toBe(204);
  });
});
