// Switching a running sandbox's upstream mode (GET and PUT /_sandbox/upstream, the upstream
// command): started with --upstream alone it sends nothing; switched to record the upstream
// answers and only those exchanges are recorded; switched to compare the sandbox answers and
// compares; back to off nothing more is sent. A stop writes the files of each mode that was on.
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from '../cli/support/cli.js';
import { driftingProxy, useSecondSandbox } from './support.js';

const { suite, call } = useSecondSandbox('switch-test-');
const ADMIN_TOKEN = 'switch-admin-token-0123';

const json = { 'content-type': 'application/json' };
const admin = { 'x-sandbox-admin-token': ADMIN_TOKEN };

/** A control call with the admin token: status and JSON body. */
async function control(base: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${base}/_sandbox${path}`, { ...init, headers: { ...admin, ...(init.body ? json : {}), ...(init.headers ?? {}) } });
  return { status: res.status, body: await res.json() };
}

const switchTo = (base: string, mode: unknown) => control(base, '/upstream', { method: 'PUT', body: JSON.stringify({ mode }) });

const error = (status: number, code: string, message: string, details: unknown[] = []) => ({ type: 'error', code, status, message, details });

/** A HAR's entries as `METHOD /path status`. */
const harLines = (har: { log: { entries: Array<{ request: { method: string; url: string }; response: { status: number } }> } }) =>
  har.log.entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search} ${e.response.status}`);

describe('switching the upstream mode of a running sandbox', { timeout: 90_000 }, () => {
  it('sends nothing while off, records only what the upstream answered, compares, and writes the files of each mode used', async () => {
    const proxy = await driftingProxy(suite.upstream.url, () => null); // the second sandbox as it is, with what it received
    const dir = join(suite.work, 'switch');
    const sandbox = await startCli(['--port', '0', '--upstream', proxy.url, '--admin-token', ADMIN_TOKEN, '--report-dir', dir]);
    const state = (mode: string, modesUsed: string[]) => ({ url: proxy.url, mode, compare_writes: false, timeout_ms: 10_000, modes_used: modesUsed });
    const upstreamPage = async (query: string) => (await call(suite.upstream.url, `/gift-cards${query}`)).json();
    try {
      // --upstream alone: off, nothing to report or record yet.
      expect(sandbox.stderr()).toContain(`\n  upstream  ${proxy.url}, mode off (switch it: payments-sandbox upstream off|record|compare)\n`);
      expect(await control(sandbox.url, '/upstream')).toEqual({ status: 200, body: state('off', []) });
      expect(await control(sandbox.url, '/upstream/report')).toEqual({
        status: 404,
        body: error(
          404,
          'not_found',
          'This sandbox does not compare: start it with --upstream URL --compare or switch it on: PUT /_sandbox/upstream {"mode": "compare"}.',
        ),
      });
      expect(await control(sandbox.url, '/upstream/recording')).toEqual({
        status: 404,
        body: error(
          404,
          'not_found',
          'This sandbox does not record: start it with the record command (payments-sandbox record --upstream URL) or switch it on: PUT /_sandbox/upstream {"mode": "record"}.',
        ),
      });
      const off = await call(sandbox.url, '/gift-cards?limit=3');
      expect(off.status).toBe(200);
      const own = await off.json();
      expect(own.items).toHaveLength(3);
      expect(own).not.toEqual(await upstreamPage('?limit=3')); // the sandbox's own records (another seed upstream)

      // Record: the upstream answers, with the caller's token passed through.
      expect(await switchTo(sandbox.url, 'record')).toEqual({ status: 200, body: state('record', ['record']) });
      const recorded = await call(sandbox.url, '/gift-cards?limit=2');
      expect(recorded.status).toBe(200);
      const recordedPage = await recorded.json();
      expect(recordedPage).toEqual(await upstreamPage('?limit=2'));
      expect(proxy.received.map((r) => `${r.method} ${r.path} ${r.headers.authorization}`)).toEqual([`GET /gift-cards?limit=2 Bearer ${suite.token}`]);
      const harNow = await control(sandbox.url, '/upstream/recording');
      expect(harNow.status).toBe(200);
      expect(harLines(harNow.body)).toEqual(['GET /gift-cards?limit=2 200']); // not the call answered while off
      expect(JSON.parse(harNow.body.log.entries[0].response.content.text)).toEqual(recordedPage);

      // Compare: the sandbox answers, the upstream is asked too, the comparison is kept with the call.
      expect(await switchTo(sandbox.url, 'compare')).toEqual({ status: 200, body: state('compare', ['record', 'compare']) });
      const compared = await call(sandbox.url, '/gift-cards?limit=4');
      expect(compared.status).toBe(200);
      expect((await compared.json()).items.slice(0, 3)).toEqual(own.items); // the sandbox's own answer
      await waitFor(async () => ((await control(sandbox.url, '/upstream/report')).body.calls?.total === 1 ? true : undefined), 'the comparison');
      const journal = await control(sandbox.url, '/requests?upstream=compared');
      expect(journal.body.total).toBe(1);
      const [entry] = journal.body.items;
      expect(entry.url).toBe(`${sandbox.url}/gift-cards?limit=4`);
      expect(entry.answered_by).toBeUndefined();
      expect(entry.upstream).toEqual({
        outcome: 'same',
        differences: [],
        sandbox_status: 200,
        upstream: {
          status: 200,
          headers: {
            'content-type': 'application/json',
            date: expect.any(String), // the upstream connection's own headers (connection, keep-alive, transfer-encoding) are not kept
          },
          body: await upstreamPage('?limit=4'),
          duration_ms: expect.any(Number),
          failure: null,
        },
      });
      expect(proxy.received.map((r) => `${r.method} ${r.path} ${r.headers.authorization}`)).toEqual([
        `GET /gift-cards?limit=2 Bearer ${suite.token}`,
        `GET /gift-cards?limit=4 Bearer ${suite.token}`,
      ]);

      // Only the recorded call is marked as the upstream's answer in the journal.
      const summary = await control(sandbox.url, '/requests?view=summary');
      expect(summary.body.items.map((e: { url: string; answered_by?: string }) => `${new URL(e.url).search} ${e.answered_by ?? 'sandbox'}`)).toEqual([
        '?limit=4 sandbox',
        '?limit=2 upstream',
        '?limit=3 sandbox',
      ]);

      // The console's detail of each says who answered.
      const detailOf = async (id: number) => (await fetch(`${sandbox.url}/_sandbox/console/parts/requests/entry?id=${id}`, { headers: admin })).text();
      const [comparedId, recordedId] = summary.body.items.map((e: { id: number }) => e.id);
      expect(await detailOf(recordedId)).toContain('<dt>Answered by</dt><dd>the upstream (record mode): this exchange is in the recording</dd>');
      expect(await detailOf(comparedId)).not.toContain('Answered by');

      // Back to off, with the command: the upstream gets nothing more (checked after the stop, which waits for every comparison).
      const shown = await runCli(['upstream', 'off', '--url', sandbox.url, '--admin-token', ADMIN_TOKEN]);
      expect(shown).toEqual({
        code: 0,
        stdout: `upstream ${proxy.url}: mode off\n  modes used since start: record and compare (a stop writes their files)\n  writes in compare mode: not sent\n`,
        stderr: '',
      });
      expect((await control(sandbox.url, '/upstream')).body).toEqual(state('off', ['record', 'compare']));
      // Each switch is a line of the log, for whoever runs the sandbox.
      const switches = sandbox
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"upstream-mode"'))
        .map((line) => JSON.parse(line));
      expect(switches.map(({ level, event, from, to, msg }) => ({ level, event, from, to, msg }))).toEqual([
        { level: 'info', event: 'upstream-mode', from: 'off', to: 'record', msg: 'upstream mode switched: off -> record' },
        { level: 'info', event: 'upstream-mode', from: 'record', to: 'compare', msg: 'upstream mode switched: record -> compare' },
        { level: 'info', event: 'upstream-mode', from: 'compare', to: 'off', msg: 'upstream mode switched: compare -> off' },
      ]);
      expect((await call(sandbox.url, '/gift-cards?limit=5')).status).toBe(200);
      expect((await call(sandbox.url, '/connections')).status).toBe(200);
    } finally {
      expect(await sandbox.stop()).toBe(0);
      await proxy.close();
    }
    expect(proxy.received.map((r) => r.path)).toEqual(['/gift-cards?limit=2', '/gift-cards?limit=4']);
    const report = JSON.parse(readFileSync(join(dir, 'compare-report.json'), 'utf8'));
    expect(report).toEqual({
      upstream: proxy.url,
      generated_at: expect.any(String),
      drift: false,
      calls: { total: 1, same: 1, differs: 0, upstream_failed: 0, not_sent: 0 },
      differences: [],
      upstream_failures: [],
      writes_sent: false,
    });
    expect(readFileSync(join(dir, 'compare-report.txt'), 'utf8')).toBe(
      `payments-sandbox compare report: no contract drift against ${proxy.url}\n1 calls: 1 same, 0 differ, 0 upstream failed, 0 writes not sent (--compare-writes sends them)\n`,
    );
    const har = JSON.parse(readFileSync(join(dir, 'recording.har'), 'utf8'));
    expect(harLines(har)).toEqual(['GET /gift-cards?limit=2 200']);
    const data = JSON.parse(readFileSync(join(dir, 'recording.data.json'), 'utf8'));
    const recordedIds = (await (await call(suite.upstream.url, '/gift-cards?limit=2')).json()).items.map((g: { id: string }) => g.id);
    expect(data.collections.gift_cards.map((g: { id: string }) => g.id)).toEqual(expect.arrayContaining(recordedIds));
    expect(sandbox.stderr()).toContain(`wrote ${join(dir, 'compare-report.json')}, ${join(dir, 'compare-report.txt')}, ${join(dir, 'recording.har')}`);
  });

  it('lets a call under way finish in the mode it started in', async () => {
    // An upstream that holds each call until the test answers it.
    const held: ServerResponse[] = [];
    const upstream = createServer((_req, res) => held.push(res));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const sandbox = await startCli(['--port', '0', '--upstream', url, '--admin-token', ADMIN_TOKEN, '--report-dir', join(suite.work, 'in-flight')]);
    try {
      expect((await switchTo(sandbox.url, 'record')).body.mode).toBe('record');
      const answer = call(sandbox.url, '/gift-cards?limit=1');
      await waitFor(() => (held.length === 1 ? true : undefined), 'the upstream holding the call');
      expect((await switchTo(sandbox.url, 'off')).body.mode).toBe('off');
      held[0].writeHead(200, { 'content-type': 'application/json' }).end('{"items":[],"from":"the upstream"}');
      const res = await answer;
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { items: [], from: 'the upstream' } });
      const har = await control(sandbox.url, '/upstream/recording');
      expect(harLines(har.body)).toEqual(['GET /gift-cards?limit=1 200']);
      // The next call, in mode off, is the sandbox's.
      expect((await (await call(sandbox.url, '/gift-cards?limit=1')).json()).items).toHaveLength(1);
      expect(held).toHaveLength(1);
    } finally {
      expect(await sandbox.stop()).toBe(0);
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it('refuses a mode it does not know, a namespace, and callers without the admin token', async () => {
    const dir = join(suite.work, 'refused');
    // --compare-writes goes with --upstream alone too (for compare mode switched on later).
    const sandbox = await startCli(['--port', '0', '--upstream', suite.upstream.url, '--compare-writes', '--admin-token', ADMIN_TOKEN, '--report-dir', dir]);
    try {
      const enumMessage = `Body field 'mode' must be one of: "off", "record", "compare".`;
      expect(await switchTo(sandbox.url, 'replay')).toEqual({
        status: 400,
        body: error(400, 'bad_request', `Request is invalid: ${enumMessage}`, [{ location: 'body', pointer: '/mode', type: 'enum', message: enumMessage }]),
      });
      const missing = await control(sandbox.url, '/upstream', { method: 'PUT', body: '{}' });
      expect(missing.status).toBe(400);
      expect(missing.body.details).toEqual([expect.objectContaining({ location: 'body', pointer: '/mode', type: 'missing' })]);
      const through = await control(sandbox.url, '/upstream', {
        method: 'PUT',
        body: JSON.stringify({ mode: 'record' }),
        headers: { 'x-sandbox-namespace': 'ci-1' },
      });
      expect(through).toEqual({
        status: 403,
        body: error(
          403,
          'forbidden',
          "The upstream's mode spans namespaces, which the control API serves only at the root /_sandbox (no /ns/{name} prefix, no x-sandbox-namespace header); through namespace 'ci-1' it sees and changes that namespace only.",
        ),
      });
      for (const method of ['GET', 'PUT']) {
        const body = method === 'PUT' ? JSON.stringify({ mode: 'record' }) : undefined;
        const without = await fetch(`${sandbox.url}/_sandbox/upstream`, { method, body, headers: json });
        expect({ status: without.status, body: await without.json() }).toEqual({
          status: 401,
          body: error(401, 'unauthorized', 'The control API needs the admin token: send x-sandbox-admin-token or Authorization: Bearer <admin token>.'),
        });
        const wrong = await fetch(`${sandbox.url}/_sandbox/upstream`, { method, body, headers: { ...json, 'x-sandbox-admin-token': 'x'.repeat(24) } });
        expect({ status: wrong.status, body: await wrong.json() }).toEqual({ status: 403, body: error(403, 'forbidden', 'The admin token is wrong.') });
      }
      // Nothing was switched: still off, nothing used, and a stop writes no file.
      expect((await control(sandbox.url, '/upstream')).body).toEqual({
        url: suite.upstream.url,
        mode: 'off',
        compare_writes: true,
        timeout_ms: 10_000,
        modes_used: [],
      });
      const command = await runCli(['upstream', 'record', '--url', sandbox.url]);
      expect(command.code).toBe(1);
      expect(command.stderr).toBe(
        'payments-sandbox: the sandbox answered 401 to PUT /_sandbox/upstream: The control API needs the admin token: send x-sandbox-admin-token or Authorization: Bearer <admin token>. (give the admin token: --admin-token or SANDBOX_ADMIN_TOKEN)\n',
      );
      const usage = await runCli(['upstream', 'replay', '--url', sandbox.url]);
      expect(usage).toMatchObject({ code: 2, stderr: "payments-sandbox: upstream takes a mode: off, record or compare, not 'replay'\n" });
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
    expect(sandbox.stderr()).not.toContain('wrote');
    expect(() => readFileSync(join(dir, 'compare-report.json'))).toThrow(/ENOENT/);
  });

  it('answers 404 without --upstream, saying how to start', async () => {
    const sandbox = await startCli(['--port', '0']);
    try {
      const notFound = error(
        404,
        'not_found',
        "This sandbox has no upstream: start it with --upstream URL (the real service's address) to switch between off, record and compare.",
      );
      expect(await control(sandbox.url, '/upstream')).toEqual({ status: 404, body: notFound });
      expect(await switchTo(sandbox.url, 'record')).toEqual({ status: 404, body: notFound });
      expect(await control(sandbox.url, '/upstream/report')).toEqual({
        status: 404,
        body: error(404, 'not_found', 'This sandbox does not compare: start it with --upstream URL --compare.'),
      });
      const command = await runCli(['upstream', '--url', sandbox.url]);
      expect(command.code).toBe(1);
      expect(command.stderr).toBe(`payments-sandbox: the sandbox answered 404 to GET /_sandbox/upstream: ${notFound.message}\n`);
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
  });
});
