// Local upstreams for the compare and record tests: a second sandbox (another seed) as the real
// service, and a proxy in front of it that answers with known drifts, fails, or never answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { cliToken, ensureBuilt, type RunningCli, startCli } from '../cli/support/cli.js';

export interface LocalServer {
  url: string;
  /** Requests it received: method, path and the headers it got. */
  received: Array<{ method: string; path: string; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

export type Rewrite = (path: string, status: number, body: any) => { status: number; body: unknown } | null;

/** A proxy to `target` whose answers `rewrite` may change (null: passed as they are). */
export function driftingProxy(target: string, rewrite: Rewrite): Promise<LocalServer> {
  return serve(async (req, res, body) => {
    const answer = await fetch(target + req.url, {
      method: req.method,
      headers: Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<
        string,
        string
      >,
      body: body.length ? new Uint8Array(body) : undefined,
    });
    const text = await answer.text();
    const changed = rewrite(req.url ?? '', answer.status, text ? JSON.parse(text) : undefined);
    const status = changed?.status ?? answer.status;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(changed ? JSON.stringify(changed.body) : text);
  });
}

/** A server that takes requests and never answers them. */
export function silentServer(): Promise<LocalServer> {
  return serve(() => new Promise(() => {}));
}

function serve(handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void>): Promise<LocalServer> {
  const received: LocalServer['received'] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
      handle(req, res, Buffer.concat(parts)).catch((err) => {
        res.writeHead(599);
        res.end(String(err));
      });
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        received,
        close: () => {
          server.closeAllConnections();
          return new Promise((done) => server.close(() => done()));
        },
      });
    });
  });
}

/**
 * The suite's real service: a second sandbox of another seed (7), the CLI's token, a folder for the
 * files the runs write, and `call` (the token, JSON); started once for the file, stopped after it.
 */
export function useSecondSandbox(folderPrefix: string) {
  const suite = { token: '', upstream: undefined as unknown as RunningCli, work: mkdtempSync(join(tmpdir(), folderPrefix)) };
  beforeAll(async () => {
    await ensureBuilt();
    suite.token = await cliToken();
    suite.upstream = await startCli(['--port', '0', '--seed', '7', '--log-level', 'warn']);
  }, 180_000);
  afterAll(async () => {
    await suite.upstream?.stop();
    rmSync(suite.work, { recursive: true, force: true });
  });
  const call = (base: string, path: string, init: RequestInit = {}) =>
    fetch(base + path, { ...init, headers: { authorization: `Bearer ${suite.token}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  return { suite, call };
}
