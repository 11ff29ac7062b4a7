// The Node Testcontainers snippet of docs/containers.md, run as written with the testcontainers
// package against podman's Docker-compatible socket (podman system service on a socket of its
// own, Ryuk disabled: it needs a privileged container of its own), or docker's where docker is
// the engine. Two clients get two namespaces: a write in one is not seen by the other.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN } from '../../fixtures/well-known.js';
import { ROOT } from '../cluster/support.js';
import { type EngineSocket, engineSocket, http, httpJson } from './support.js';

const BUYER = WELL_KNOWN.buyers.default.id;

describe('the Testcontainers snippet (Node)', () => {
  let socket: EngineSocket | undefined;
  let dir: string;
  let snippet: typeof import('./testcontainers-snippet.js');
  let sandbox: Awaited<ReturnType<typeof snippet.startSandbox>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-testcontainers-'));
    socket = await engineSocket(dir);
    if (socket.dockerHost) process.env.DOCKER_HOST = socket.dockerHost;
    process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
    snippet = await import('./testcontainers-snippet.js');
    sandbox = await snippet.startSandbox();
  });
  afterAll(async () => {
    await sandbox?.stop();
    socket?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the image, waits on the health route, and gives each test a namespace of its own', async () => {
    const [a, b] = [await snippet.sandboxClient(sandbox), await snippet.sandboxClient(sandbox)];
    expect(a.baseUrl).toMatch(/^http:\/\/[^/]+:\d+\/ns\/test-[0-9a-f-]{36}$/);
    expect(a.baseUrl).not.toBe(b.baseUrl);
    const put = await httpJson(`${a.baseUrl}/buyers/${BUYER}`, { method: 'PUT', headers: a.headers, body: { display_name: 'Only in a' } });
    expect(put.status).toBe(200);
    expect(put.body.display_name).toBe('Only in a');
    const inA = await httpJson(`${a.baseUrl}/_sandbox/records/buyers/${BUYER}`);
    const inB = await httpJson(`${b.baseUrl}/_sandbox/records/buyers/${BUYER}`);
    expect(inA.body.display_name).toBe('Only in a');
    expect(inB.status).toBe(200);
    expect(inB.body.display_name).not.toBe('Only in a');
    expect((await http(`${b.baseUrl}/connections`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('is the snippet docs/containers.md shows', () => {
    const source = readFileSync(join(ROOT, 'test/container/testcontainers-snippet.ts'), 'utf8');
    const shown = source.slice(source.indexOf('// snippet-start\n') + '// snippet-start\n'.length, source.indexOf('// snippet-end'));
    expect(shown.length).toBeGreaterThan(200);
    expect(readFileSync(join(ROOT, 'docs/containers.md'), 'utf8')).toContain(`\`\`\`ts\n${shown}\`\`\``);
  });
});
