// Bench child: memory per namespace. A sandbox in this process (node --expose-gc), then N namespaces
// each touched once by an authenticated GET; prints one JSON line: heap, external (journal buffers)
// and RSS per namespace, and RSS in all. Usage: node --expose-gc bench/nsmem.mjs N
import { startSandbox } from '../dist/bundle/index.js';

const N = Number(process.argv[2] ?? 400);
const sandbox = await startSandbox({ logLevel: 'silent', namespaceCap: N + 10 });
const token = await sandbox.token();
const get = (ns) => fetch(`${sandbox.url}/ns/${ns}/card-scheme-definitions`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.arrayBuffer());
await get('warm-up');
global.gc();
global.gc();
const before = process.memoryUsage();
for (let i = 0; i < N; i += 50) await Promise.all(Array.from({ length: Math.min(50, N - i) }, (_, k) => get(`ns-${i + k}`)));
global.gc();
global.gc();
const after = process.memoryUsage();
const kb = (bytes) => Math.round((bytes / N / 1024) * 10) / 10;
process.stdout.write(
  `${JSON.stringify({
    namespaces: N,
    heap_kb_per_namespace: kb(after.heapUsed - before.heapUsed),
    external_kb_per_namespace: kb(after.external - before.external),
    rss_kb_per_namespace: kb(after.rss - before.rss),
    rss_mb_before: Math.round(before.rss / 1048576),
    rss_mb_after: Math.round(after.rss / 1048576),
  })}\n`,
);
await sandbox.close();
process.exit(0);
