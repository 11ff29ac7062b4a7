// Bench child: the built sandbox, optionally with a store scaled to N gift cards and N buyers
// (memory, or a data file written first). Prints one JSON line {url, pid} when listening.
// Usage: node bench/server.mjs [--scale N] [--data FILE] [--store redis://HOST:PORT --node-id ID] [--webhook-pipelining N]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startSandbox } from '../dist/bundle/index.js';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '0' },
    data: { type: 'string' },
    store: { type: 'string', default: 'memory' },
    'node-id': { type: 'string' },
    'journal-size': { type: 'string' },
    'webhook-pipelining': { type: 'string' },
  },
});
const scale = Number(values.scale);

/** Clones of fixture buyers and gift cards with fresh ids, in merchant account default. */
function scaled(data, n) {
  const buyers = data.collections.buyers.filter((b) => b.merchant_account_id === 'default');
  const cards = data.collections.gift_cards.filter((g) => g.merchant_account_id === 'default');
  const base = Date.parse('2024-01-01T00:00:00.000Z');
  const id = (prefix, i) => `${prefix}${i.toString(16).padStart(7, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
  for (let i = 0; i < n; i++) {
    const buyer = { ...buyers[i % buyers.length], id: id('9', i), external_identifier: `scale-${i}` };
    data.collections.buyers.push(buyer);
    const at = new Date(base + i * 1000).toISOString();
    data.collections.gift_cards.push({ ...cards[i % cards.length], id: id('8', i), buyer_id: buyer.id, created_at: at, updated_at: at });
  }
  return data;
}

// faker is loaded only to build a scaled store, as a normal start does not load it either.
const seedData = scale > 0 ? scaled(await (await import('../dist/fixtures/build-fixtures.js')).buildFixtures(4010), scale) : undefined;
if (values.data && seedData) writeFileSync(values.data, JSON.stringify(seedData));
// With a data file, the sandbox loads what was written (as a user's restart would).
const sandbox = await startSandbox({
  port: 0,
  logLevel: 'warn',
  dataFile: values.data ?? null,
  store: values.store,
  nodeId: values['node-id'] ?? null,
  journalSize: values['journal-size'] === undefined ? undefined : Number(values['journal-size']),
  webhookPipelining: values['webhook-pipelining'] === undefined ? undefined : Number(values['webhook-pipelining']),
});
if (seedData && !values.data) sandbox.deps.namespaces.get().replaceRecords(seedData);
process.stdout.write(`${JSON.stringify({ url: sandbox.url, pid: process.pid })}\n`);
const stop = () => sandbox.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
