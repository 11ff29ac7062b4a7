// The logger made from config: JSON lines with a level label, secrets censored wherever a caller
// puts them, and the compact pretty format for terminals.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { formatPrettyLine } from '../../src/logging/pretty.js';
import { startSandbox } from '../../src/start.js';
import { tokenFor } from '../support/sandbox.js';

function capture(): { out: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { out, lines: () => chunks.join('').split('\n').filter(Boolean) };
}

describe('createLogger', () => {
  it('writes JSON lines at the configured level with the level as a label', () => {
    const { out, lines } = capture();
    const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, { out });
    logger.debug('hidden');
    logger.info({ requestId: 'r-1' }, 'shown');
    expect(lines()).toHaveLength(1);
    const line = JSON.parse(lines()[0]);
    expect(line).toMatchObject({ level: 'info', name: 'payments-sandbox', requestId: 'r-1', msg: 'shown' });
    expect(new Date(line.time).toISOString()).toBe(line.time);
  });

  it('censors tokens, the admin token, private keys and Authorization headers', () => {
    const { out, lines } = capture();
    const logger = createLogger({ logLevel: 'debug', logFormat: 'json' }, { out });
    logger.info(
      {
        token: 'tok-1',
        adminToken: 'adm-1',
        privateKeyPem: '-----BEGIN PRIVATE KEY-----',
        authorization: 'Bearer a1',
        headers: { authorization: 'Bearer a2', 'x-sandbox-admin-token': 'adm-2', accept: 'application/json' },
        req: { headers: { authorization: 'Bearer a3' } },
        config: { adminToken: 'adm-3', port: 1 },
        body: { token: 'tok-2', private_key: 'pk-1' },
      },
      'everything',
    );
    const text = lines()[0];
    for (const secret of ['tok-1', 'tok-2', 'adm-1', 'adm-2', 'adm-3', 'PRIVATE KEY', 'a1', 'a2', 'a3', 'pk-1']) expect(text).not.toContain(secret);
    const line = JSON.parse(text);
    expect(line.headers).toEqual({ authorization: '[redacted]', 'x-sandbox-admin-token': '[redacted]', accept: 'application/json' });
    expect(line.config).toEqual({ adminToken: '[redacted]', port: 1 });
  });

  it('writes the pretty format when asked', () => {
    const { out, lines } = capture();
    const logger = createLogger({ logLevel: 'info', logFormat: 'pretty' }, { out, colors: false });
    logger.warn({ requestId: 'ci-7', status: 500, token: 'secret-t' }, 'GET /x 500');
    expect(lines()).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}\[ci-7\] GET \/x 500 {2}status=500 token=\[redacted\]$/)]);
  });
});

describe('formatPrettyLine', () => {
  it('shows time, level, request id, message and the other fields', () => {
    const line = JSON.stringify({
      level: 'debug',
      time: '2026-01-02T03:04:05.678Z',
      name: 'payments-sandbox',
      requestId: 'r1',
      msg: 'GET /a 200',
      ms: 1.5,
      path: '/a',
    });
    expect(formatPrettyLine(line, false)).toBe('03:04:05.678 DEBUG [r1] GET /a 200  ms=1.5 path=/a\n');
    expect(formatPrettyLine(line, true)).toBe('03:04:05.678 \x1b[36mDEBUG\x1b[0m [r1] GET /a 200  ms=1.5 path=/a\n');
  });

  it('prints an error stack on its own lines and passes through what is not JSON', () => {
    const line = JSON.stringify({ level: 'error', time: '2026-01-02T03:04:05.678Z', msg: 'boom', err: { message: 'x', stack: 'Error: x\n    at f' } });
    expect(formatPrettyLine(line, false)).toBe('03:04:05.678 ERROR boom  \nError: x\n    at f\n');
    expect(formatPrettyLine('plain text', false)).toBe('plain text\n');
  });
});

describe('request log lines by status', () => {
  async function logsOf(level: 'warn' | 'info' | 'debug', send: (url: string, auth: string) => Promise<Response>) {
    const { out, lines } = capture();
    const sandbox = await startSandbox({ logger: createLogger({ logLevel: level, logFormat: 'json' }, { out }) });
    try {
      const res = await send(sandbox.url, `Bearer ${await tokenFor()}`);
      await res.arrayBuffer();
      return {
        status: res.status,
        lines: lines()
          .map((l) => JSON.parse(l))
          .filter((l) => l.method !== undefined),
      };
    } finally {
      await sandbox.close();
    }
  }
  const injected = (url: string, auth: string) => fetch(`${url}/gift-cards`, { headers: { authorization: auth, 'x-sandbox-scenario': 'server-error' } });
  const preferred = (url: string, auth: string) => fetch(`${url}/gift-cards`, { headers: { authorization: auth, prefer: 'code=500' } });

  it('does not warn about a 5xx the tester asked for (scenario or Prefer: code=)', async () => {
    for (const send of [injected, preferred]) {
      const { status, lines } = await logsOf('warn', send);
      expect(status).toBe(500);
      expect(lines).toEqual([]);
    }
  });

  it('still logs it at info, with its status, code, message and request id', async () => {
    const { status, lines } = await logsOf('info', injected);
    expect(status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      method: 'GET',
      path: '/gift-cards',
      status: 500,
      code: 'server_error',
      operation: 'listGiftCards',
      namespace: 'default',
    });
    expect(lines[0].message).toMatch(/scenario server-error/);
    expect(lines[0].msg).toBe(`GET /gift-cards 500 server_error: ${lines[0].message}`);
    expect(typeof lines[0].requestId).toBe('string');
  });

  it('logs a 422 at info with the messages of its items', async () => {
    const unknownRole = '00000000-0000-4000-8000-0000000000aa';
    const { status, lines } = await logsOf('info', (url, auth) =>
      fetch(`${url}/api-key-pairs`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ display_name: 'Bad', role_ids: [unknownRole] }),
      }),
    );
    expect(status).toBe(422);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', status: 422, code: 'validation_error', operation: 'createApiKeyPair' });
    expect(lines[0].message).toContain(unknownRole);
  });

  it('logs nothing for a 200 at info', async () => {
    const ok = await logsOf('info', (url, auth) => fetch(`${url}/connections`, { headers: { authorization: auth } }));
    expect(ok).toEqual({ status: 200, lines: [] });
  });
});
