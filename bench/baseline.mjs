// Bench child: a bare Hono server answering the same bodies as the sandbox, without any of its
// work (no auth, validation, store, scenarios or journal): the ceiling the sandbox is compared to.
// Usage: node bench/baseline.mjs  (reads the bodies from the sandbox's fixtures)
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { buildFixtures } from '../dist/fixtures/build-fixtures.js';
import { giftCardOrder } from '../dist/src/resources/gift-cards/handlers.js';
import { serializeGiftCard } from '../dist/src/resources/gift-cards/serialize.js';

const data = await buildFixtures(4010);
const schemes = { items: data.collections.card_scheme_definitions };
const buyer = data.collections.buyers[0];

// The pages of GET /gift-cards?limit=100, already in their API shape: the baseline only
// serializes them, as a bare handler returning stored objects would.
const byId = (rows) => new Map(rows.map((r) => [r.id, r]));
const db = { buyers: byId(data.collections.buyers), gift_card_services: byId(data.collections.gift_card_services) };
const cards = data.collections.gift_cards.filter((g) => g.merchant_account_id === 'default').sort(giftCardOrder);
const pages = [];
for (let i = 0; i < cards.length; i += 100) {
  pages.push({
    items: cards.slice(i, i + 100).map((card) => serializeGiftCard(db, card)),
    limit: 100,
    next_cursor: i + 100 < cards.length ? 'next' : null,
    previous_cursor: i > 0 ? 'previous' : null,
  });
}

const app = new Hono();
app.get('/card-scheme-definitions', (c) => c.json(schemes));
app.put('/buyers/:id', async (c) => c.json({ ...buyer, ...(await c.req.json()), id: c.req.param('id') }));
app.get('/gift-cards', (c) => c.json(pages[Number(c.req.query('page') ?? 0) % pages.length]));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}`, pid: process.pid, pages: pages.length })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
