// Bench child: a bare Hono server answering the same bodies as the sandbox, without any of its
// work (no auth, validation, store, scenarios or journal): the ceiling the sandbox is compared to.
// Usage: node bench/baseline.mjs  (reads the bodies from the sandbox's fixtures)
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { buildFixtures } from '../dist/fixtures/build-fixtures.js';

const data = await buildFixtures(4010);
const schemes = { items: data.collections.card_scheme_definitions };
const buyer = data.collections.buyers[0];

const app = new Hono();
app.get('/card-scheme-definitions', (c) => c.json(schemes));
app.put('/buyers/:id', async (c) => c.json({ ...buyer, ...(await c.req.json()), id: c.req.param('id') }));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}`, pid: process.pid })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
