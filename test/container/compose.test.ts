// deploy/compose.yaml as shipped: Redis, three nodes of the image and HAProxy, started with one
// command (podman-compose here; docker compose where docker is the engine). A write through
// HAProxy survives the kill of the node container that took it: another node serves it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { ROOT } from '../cluster/support.js';
import { CONTAINER_PREFIX, cli, engine, engineEnv, freePort, http, httpJson, mustCli, sandboxImage, waitFor } from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;
const PROJECT = `${CONTAINER_PREFIX}-compose`.replace(/[^a-z0-9-]/g, '');

function compose(args: string[], env: Record<string, string>): string {
  const [command, ...first] = engine() === 'podman' ? ['podman-compose'] : ['docker', 'compose'];
  const r = spawnSync(command, [...first, '-p', PROJECT, '-f', join(ROOT, 'deploy/compose.yaml'), ...args], {
    env: { ...engineEnv(), ...env },
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${(r.stdout + r.stderr).slice(-3000)}`);
  return r.stdout;
}

/** The container of a compose service (podman-compose names it project_service_1, docker compose project-service-1). */
const containerOf = (service: string) => (engine() === 'podman' ? `${PROJECT}_${service}_1` : `${PROJECT}-${service}-1`);

describe('deploy/compose.yaml', () => {
  let url: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      SANDBOX_PUBLISH_PORT: String(port),
      SANDBOX_IMAGE: sandboxImage(),
      REDIS_IMAGE: inject('redisImage'),
      HAPROXY_IMAGE: inject('haproxyImage'),
      SANDBOX_LEASE_MS: '1500',
    };
    compose(['up', '-d'], env);
    // Every node healthy behind HAProxy: three namespaces answered by three different nodes.
    await waitFor(
      'three nodes answering through HAProxy',
      async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 30; i++) {
          const res = await http(`${url}/_sandbox/health`, { headers: { 'x-sandbox-namespace': `probe-${i}` }, timeoutMs: 2000 });
          if (res.status === 200) seen.add(res.headers['x-sandbox-node'] as string);
        }
        return seen.size === 3 ? true : undefined;
      },
      90_000,
    );
  });
  afterAll(() => {
    if (!env) return;
    // podman-compose 1.0.3's down keeps the nodes' anonymous volumes (the image's /data) and the
    // project's network: remove the containers with their volumes first, the network after.
    const services = ['node1', 'node2', 'node3', 'haproxy', 'redis'];
    if (engine() === 'podman') cli(['rm', '-f', '-v', '-t', '0', ...services.map(containerOf)]);
    compose(['down', '-v'], env);
    if (engine() === 'podman') cli(['network', 'rm', '-f', `${PROJECT}_default`]);
  });

  it('keeps a write made through HAProxy when the node container that took it is killed', async () => {
    const token = mustCli(['run', '--rm', sandboxImage(), 'token']);
    const ns = 'compose-survivor';
    const put = await httpJson(`${url}/ns/${ns}/buyers/${BUYER}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      body: { display_name: 'Kept by Redis' },
    });
    expect(put.status).toBe(200);
    const read = () => http(`${url}/ns/${ns}/_sandbox/records/buyers/${BUYER}`, { timeoutMs: 5000 });
    const before = await read();
    expect(before.status).toBe(200);
    const owner = before.headers['x-sandbox-node'] as string;
    expect(['node1', 'node2', 'node3']).toContain(owner);

    mustCli(['kill', containerOf(owner)]);
    expect(mustCli(['inspect', '--format', '{{.State.Running}}', containerOf(owner)])).toBe('false');
    const after = await waitFor(
      'the write served by another node',
      async () => {
        const res = await read();
        return res.status === 200 && res.headers['x-sandbox-node'] !== owner ? res : undefined;
      },
      30_000,
    );
    expect(['node1', 'node2', 'node3'].filter((n) => n !== owner)).toContain(after.headers['x-sandbox-node']);
    const body = JSON.parse(after.text);
    expect(body.display_name).toBe('Kept by Redis');
    expect(body.updated_at).toBe(put.body.updated_at);
    // The killed node stays down: what answered is the survivors' view of Redis, not a restart.
    expect(mustCli(['inspect', '--format', '{{.State.Running}}', containerOf(owner)])).toBe('false');
  });
});
