// deploy/kubernetes.yaml played with `podman kube play`: Redis on its volume, three node pods and
// HAProxy with deploy/haproxy.cfg as its ConfigMap. A write through HAProxy is still served after
// the pod of the node that took it is deleted. Two differences from a Kubernetes cluster, made on a
// copy of the file and nowhere else: podman plays no Service, so each pod is reached by its pod's
// name (node1-pod-0, redis-pod-0) instead of its service's; and HAProxy's port is published on
// 127.0.0.1 (hostPort) for the test to reach it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { ROOT } from '../cluster/support.js';
import { cli, engine, freePort, http, httpJson, mustCli, sandboxImage, waitFor } from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const MANIFEST = join(ROOT, 'deploy/kubernetes.yaml');
const NETWORK = `sandbox-kube-${process.pid}`;
const NODES = ['node1', 'node2', 'node3'];
const podOf = (deployment: string) => `${deployment}-pod-0`;

/** The ConfigMap `kubectl create configmap sandbox-haproxy --from-file=haproxy.cfg=deploy/haproxy.cfg` makes, servers named as podman names pods. */
function configMap(): string {
  const shipped = readFileSync(join(ROOT, 'deploy/haproxy.cfg'), 'utf8');
  const served = shipped.replace(/server (node\d) 127\.0\.0\.1:\d+/g, (_, node) => `server ${node} ${podOf(node)}:4010`);
  expect(served.match(/-pod-0:4010/g)).toHaveLength(3);
  const indented = served
    .split('\n')
    .map((line) => (line ? `    ${line}` : ''))
    .join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sandbox-haproxy\ndata:\n  haproxy.cfg: |\n${indented}\n`;
}

/** The manifest as shipped, with the images built in this run and HAProxy's port published on 127.0.0.1. */
function manifest(port: number): string {
  const shipped = readFileSync(MANIFEST, 'utf8');
  const played = shipped
    .replaceAll('localhost/payments-sandbox:latest', sandboxImage())
    .replaceAll('localhost/payments-sandbox-redis:latest', inject('redisImage'))
    .replaceAll('localhost/payments-sandbox-haproxy:latest', inject('haproxyImage'))
    .replaceAll('redis://redis:6379', `redis://${podOf('redis')}:6379`)
    .replace(/(name: haproxy\n[\s\S]*?containerPort: 4010)/, `$1\n              hostPort: ${port}\n              hostIP: 127.0.0.1`);
  expect(played).toContain(`hostPort: ${port}`);
  expect(played.match(/redis-pod-0:6379/g)).toHaveLength(3);
  return played;
}

describe.skipIf(engine() !== 'podman')('deploy/kubernetes.yaml (podman kube play)', () => {
  let dir: string;
  let url: string;
  let played: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-kube-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    played = join(dir, 'kubernetes.yaml');
    writeFileSync(played, manifest(port));
    writeFileSync(join(dir, 'configmap.yaml'), configMap());
    cli(['kube', 'down', played]);
    cli(['volume', 'rm', '-f', 'redis-data']);
    mustCli(['network', 'create', NETWORK]);
    mustCli(['kube', 'play', '--network', NETWORK, '--configmap', join(dir, 'configmap.yaml'), played]);
    await waitFor(
      'three nodes answering through HAProxy',
      async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 30; i++) {
          const res = await http(`${url}/_sandbox/health`, { headers: { 'x-sandbox-namespace': `probe-${i}` }, timeoutMs: 2000 }).catch(() => null);
          if (res?.status === 200) seen.add(res.headers['x-sandbox-node'] as string);
        }
        return seen.size === 3 ? true : undefined;
      },
      120_000,
    );
  });
  afterAll(() => {
    if (!dir) return;
    cli(['kube', 'down', played]);
    cli(['volume', 'rm', '-f', 'redis-data']);
    cli(['network', 'rm', '-f', NETWORK]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('plays every object: Redis on its volume, three nodes, HAProxy', () => {
    const pods = mustCli(['pod', 'ps', '--format', '{{.Name}} {{.Status}}']).split('\n');
    for (const name of ['redis', ...NODES, 'haproxy']) expect(pods).toContain(`${podOf(name)} Running`);
    expect(mustCli(['volume', 'inspect', '--format', '{{.Name}}', 'redis-data'])).toBe('redis-data');
    const env = mustCli(['inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', `${podOf('node2')}-sandbox`]);
    expect(env).toContain('SANDBOX_NODE_ID=node2');
    expect(env).toContain(`SANDBOX_STORE=redis://${podOf('redis')}:6379`);
  });

  it('serves a write after the pod of the node that took it is deleted', async () => {
    const token = mustCli(['run', '--rm', sandboxImage(), 'token']);
    const ns = 'kube-survivor';
    const put = await httpJson(`${url}/ns/${ns}/buyers/${BUYER}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      body: { display_name: 'Kept by Redis on its volume' },
    });
    expect(put.status).toBe(200);
    const read = () => http(`${url}/ns/${ns}/_sandbox/records/buyers/${BUYER}`, { timeoutMs: 5000 });
    const before = await read();
    expect(before.status).toBe(200);
    const owner = before.headers['x-sandbox-node'] as string;
    expect(NODES).toContain(owner);

    mustCli(['pod', 'rm', '-f', podOf(owner)]);
    expect(cli(['pod', 'exists', podOf(owner)]).status).toBe(1);
    const after = await waitFor(
      'the write served by another node',
      async () => {
        const res = await read().catch(() => null);
        return res?.status === 200 && res.headers['x-sandbox-node'] !== owner ? res : undefined;
      },
      60_000,
    );
    expect(NODES.filter((n) => n !== owner)).toContain(after.headers['x-sandbox-node']);
    const body = JSON.parse(after.text);
    expect(body.display_name).toBe('Kept by Redis on its volume');
    expect(body.updated_at).toBe(put.body.updated_at);
  });
});
