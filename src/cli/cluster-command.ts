// `payments-sandbox cluster`: the shared sandbox as this node sees it in Redis (nodes, the
// namespaces each holds, leases and epochs), as a table, or JSON with --json.
import { readClusterView } from '../cluster/view.js';
import { parseCommandArgs } from './command-args.js';
import { CLUSTER_HELP } from './help.js';
import { UsageError } from './usage-error.js';

export async function runClusterCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const json = argv.includes('--json');
  const { help, values } = parseCommandArgs(
    argv.filter((arg) => arg !== '--json'),
    'cluster',
    ['store'],
  );
  if (help) return CLUSTER_HELP;
  const store = values.filter(([name]) => name === 'store').pop()?.[1] ?? env.SANDBOX_STORE;
  if (!store?.startsWith('redis://')) throw new UsageError('cluster needs --store redis://HOST:PORT (or SANDBOX_STORE): the Redis of the shared sandbox');
  const view = await readClusterView(store);
  if (json) return `${JSON.stringify(view, null, 2)}\n`;
  const lines = [
    `shared sandbox at ${view.store}: ${view.nodes.filter((n) => n.alive).length} node(s) alive, ${view.namespaces.length} namespace(s)`,
    '',
    'nodes',
  ];
  for (const node of view.nodes) {
    const owns = node.namespaces.length ? node.namespaces.join(', ') : 'none';
    lines.push(
      `  ${node.id}  ${node.alive ? 'alive' : 'gone (its key lapsed)'}  ${node.url ?? ''}  pid ${node.pid ?? '?'}  since ${node.started_at ?? '?'}  owns: ${owns}`,
    );
  }
  lines.push('', 'namespaces (node holding the lease, epoch, lease left, log entries, snapshot bytes, journal entries)');
  for (const ns of view.namespaces) {
    const lease = ns.node ? `${ns.node}  epoch ${ns.epoch}  ${ns.lease_ms_left} ms left` : `nobody  epoch ${ns.epoch ?? '-'}`;
    lines.push(`  ${ns.name}  ${lease}  log ${ns.log_entries}  snapshot ${ns.snapshot_bytes} B  journal ${ns.journal_entries}`);
  }
  return `${lines.join('\n')}\n`;
}
