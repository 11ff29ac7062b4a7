// With a data file, the default namespace survives a restart: changes made through the API are
// there when a new sandbox opens the same file; a corrupt file stops boot with a message naming it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSandbox } from '../../src/sandbox.js';
import { startSandbox } from '../../src/start.js';
import { startTestSandbox, type TestSandbox, tokenFor, WELL_KNOWN } from '../support/sandbox.js';
import { expectJson, expectNoContent, expectNotFound, store } from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const WEBHOOK = WELL_KNOWN.webhookSubscriptions.default.id;

describe('persistence to a data file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-persistence-'));
  const opened: TestSandbox[] = [];
  afterAll(() => {
    for (const sb of opened) sb.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const open = async (dataFile: string) => {
    const sb = await startTestSandbox({ dataFile });
    opened.push(sb);
    return sb;
  };

  it('keeps a PUT buyer and a DELETE webhook subscription across a new sandbox on the same file', async () => {
    const file = join(dir, 'state.json');
    const first = await open(file);
    const put = await first.http.put(`/buyers/${BUYER}`).set('authorization', first.auth).send({ display_name: 'Persisted Jane', account_number: null });
    expectJson(put, 200);
    expectNoContent(await first.http.delete(`/webhook-subscriptions/${WEBHOOK}`).set('authorization', first.auth));
    await first.deps.namespaces.get().store.flush();

    const second = await open(file);
    expect(store(second).buyers.get(BUYER)).toMatchObject({ display_name: 'Persisted Jane', account_number: null, updated_at: put.body.updated_at });
    expectNotFound(await second.http.delete(`/webhook-subscriptions/${WEBHOOK}`).set('authorization', second.auth));
    const cards = await second.http.get(`/gift-cards?buyer_id=${BUYER}&limit=1`).set('authorization', second.auth);
    expect(cards.body.items[0].buyer).toMatchObject({ display_name: 'Persisted Jane', account_number: null, updated_at: put.body.updated_at });
    // Untouched records are as seeded.
    expect(store(second).webhook_subscriptions.get(WELL_KNOWN.webhookSubscriptions.merchantTwo.id)).toBeDefined();
  });

  it('writes on close when run as a server (startSandbox), and reads the file back', async () => {
    const file = join(dir, 'server.json');
    const server = await startSandbox({ dataFile: file, logLevel: 'silent' });
    const res = await fetch(`${server.url}/checkout/sessions/${WELL_KNOWN.checkoutSessions.default.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await tokenFor('admin')}` },
    });
    expect(res.status).toBe(204);
    await server.close();
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.schema_version).toBe(1);
    expect(saved.collections.checkout_sessions.map((s: any) => s.id)).not.toContain(WELL_KNOWN.checkoutSessions.default.id);
    const again = await open(file);
    expect(store(again).checkout_sessions.get(WELL_KNOWN.checkoutSessions.default.id)).toBeUndefined();
    expect(store(again).checkout_sessions.get(WELL_KNOWN.checkoutSessions.merchantTwo.id)).toBeDefined();
  });

  it('seeds the fixtures into a missing file, and refuses an empty one (what a truncated file looks like)', async () => {
    const file = join(dir, 'missing.json');
    const sb = await open(file);
    await sb.deps.namespaces.get().store.flush();
    expect(store(sb).buyers.get(BUYER)?.display_name).toBe('Jane Doe');
    expect(JSON.parse(readFileSync(file, 'utf8')).collections.buyers.length).toBe(store(sb).buyers.size);

    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '');
    await expect(buildSandbox({ dataFile: empty, logLevel: 'silent' })).rejects.toThrow(`the data file ${empty} is empty (0 bytes)`);
    expect(readFileSync(empty, 'utf8')).toBe('');
  });

  it('fails boot with a message naming a corrupt file, and leaves the file as it was', async () => {
    const file = join(dir, 'corrupt.json');
    writeFileSync(file, '{"schema_version": 1, "collections": {');
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(
      new RegExp(`data file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be loaded`),
    );
    expect(readFileSync(file, 'utf8')).toBe('{"schema_version": 1, "collections": {');
  });

  it('fails boot naming a JSON file that is not a sandbox data file', async () => {
    const file = join(dir, 'other.json');
    writeFileSync(file, JSON.stringify({ hello: 'world' }));
    await expect(buildSandbox({ dataFile: file, logLevel: 'silent' })).rejects.toThrow(`the data file ${file} is not a payments-sandbox data file`);
  });
});
