// Compare mode against local upstreams, through the real command: a second sandbox of another seed
// (the same contract: no drift), a proxy in front of it answering with known drifts (each found), and
// upstreams that fail or never answer (the sandbox's own answers unchanged, the failures recorded).
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliToken, startCli, waitFor } from '../cli/support/cli.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { driftingProxy, type LocalServer, silentServer, useSecondSandbox } from './support.js';

const READS = ['/gift-cards', '/connections', '/card-scheme-definitions', '/flows/checkout', '/buyers/payment-methods'];

const { suite, call } = useSecondSandbox('compare-test-');
const { work } = suite;

async function report(base: string, total: number) {
  return waitFor(async () => {
    const body = await (await fetch(`${base}/_sandbox/upstream/report`)).json();
    return body.calls.total === total ? body : undefined;
  }, `${total} comparisons`);
}

/** Every file the run wrote, as text: none may hold the token or a private key. */
function expectNoSecrets(...files: string[]) {
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(suite.token);
    expect(text).not.toContain(suite.token.split('.')[2]); // not even the signature alone
    expect(text).not.toMatch(/PRIVATE KEY/);
  }
}

describe('compare mode', { timeout: 60_000 }, () => {
  it('reports no contract drift against a second sandbox of another seed, writes included', async () => {
    const dir = join(work, 'same');
    const sandbox = await startCli(['--port', '0', '--upstream', suite.upstream.url, '--compare', '--compare-writes', '--fail-on-drift', '--report-dir', dir]);
    try {
      for (const path of READS) {
        const res = await call(sandbox.url, path);
        expect(res.status).toBe(200);
        expect((await res.json()).items.length).toBeGreaterThan(0);
      }
      const created = await call(sandbox.url, '/api-key-pairs', {
        method: 'POST',
        body: JSON.stringify({ display_name: 'compare', role_ids: [WELL_KNOWN.roles.readOnly.id] }),
      });
      expect(created.status).toBe(201);
      expect((await created.json()).private_key).toMatch(/PRIVATE KEY/); // the client gets its key; no file does

      const found = await report(sandbox.url, 6);
      expect(found).toEqual({
        upstream: suite.upstream.url,
        generated_at: expect.any(String),
        drift: false,
        calls: { total: 6, same: 6, differs: 0, upstream_failed: 0, not_sent: 0 },
        differences: [],
        upstream_failures: [],
        writes_sent: true,
      });
      // The upstream got each call with the caller's own token (it answered 200/201, not 401), the write included.
      const seen = await (await fetch(`${suite.upstream.url}/_sandbox/requests?view=summary`)).json();
      expect(seen.items.map((e: { method: string; path: string; status: number }) => `${e.method} ${e.path} ${e.status}`).sort()).toEqual(
        [...READS.map((p) => `GET ${p} 200`), 'POST /api-key-pairs 201'].sort(),
      );
      // Each call's journal entry carries its comparison.
      const journal = await (await fetch(`${sandbox.url}/_sandbox/requests?upstream=same`)).json();
      expect(journal.total).toBe(6);
      for (const entry of journal.items) {
        expect(entry.upstream).toEqual({
          outcome: 'same',
          differences: [],
          sandbox_status: entry.status,
          upstream: expect.objectContaining({ status: entry.status, failure: null }),
        });
        expect(JSON.stringify(entry.upstream.upstream.body)).not.toMatch(/PRIVATE KEY/); // the upstream's answer, redacted too
        // Its headers end to end: those of the upstream's connection are not the answer's.
        const upstreamHeaders = Object.keys(entry.upstream.upstream.headers);
        expect(upstreamHeaders).toContain('x-request-id');
        expect(upstreamHeaders.filter((name) => /^(?:connection|keep-alive|transfer-encoding|content-length)$/.test(name))).toEqual([]);
      }
      expect((await (await fetch(`${sandbox.url}/_sandbox/requests?upstream=differs`)).json()).total).toBe(0);
    } finally {
      expect(await sandbox.stop()).toBe(0); // --fail-on-drift, and no drift
    }
    const written = JSON.parse(readFileSync(join(dir, 'compare-report.json'), 'utf8'));
    expect(written).toMatchObject({ drift: false, calls: { total: 6, same: 6 } });
    expect(readFileSync(join(dir, 'compare-report.txt'), 'utf8')).toBe(
      `payments-sandbox compare report: no contract drift against ${suite.upstream.url}\n6 calls: 6 same, 0 differ, 0 upstream failed, 0 writes not sent\n`,
    );
    expect(sandbox.stderr()).toContain('no contract drift');
    expectNoSecrets(join(dir, 'compare-report.json'), join(dir, 'compare-report.txt'));
  });

  it('finds each known drift: a missing field, a new field, a changed enum value, another status', async () => {
    const proxy = await driftingProxy(suite.upstream.url, (path, _status, body) => {
      if (path === '/gift-cards') {
        for (const item of body.items) {
          delete item.bin; // a declared required field gone
          item.loyalty_tier = 'gold'; // a field the contract does not declare
        }
        return { status: 200, body };
      }
      if (path === '/flows/checkout') {
        for (const item of body.items) item.flow = 'checkout_v2'; // not one of the declared values
        return { status: 200, body };
      }
      if (path === '/connections') return { status: 404, body: { type: 'error', code: 'not_found', status: 404, message: 'gone', details: [] } };
      if (path === '/card-scheme-definitions')
        return { status: 503, body: { type: 'error', code: 'service_unavailable', status: 503, message: 'down', details: [] } };
      return null;
    });
    const dir = join(work, 'drift');
    const sandbox = await startCli(['--port', '0', '--upstream', proxy.url, '--compare', '--fail-on-drift', '--report-dir', dir]);
    try {
      for (const path of READS) expect((await call(sandbox.url, path)).status).toBe(200); // the sandbox's own answers, whatever the upstream did
      const found = await report(sandbox.url, 5);
      const example = (path: string) => ({ request_id: expect.any(String), path, sandbox: expect.anything(), upstream: expect.anything() });
      expect(found).toEqual({
        upstream: proxy.url,
        generated_at: expect.any(String),
        drift: true,
        calls: { total: 5, same: 1, differs: 3, upstream_failed: 1, not_sent: 0 },
        differences: [
          {
            operation_id: 'listConnections',
            kind: 'status',
            at: 'status',
            message: 'the sandbox answered 200, the upstream 404',
            count: 1,
            example: { ...example('/connections'), sandbox: 200, upstream: 404 },
          },
          {
            operation_id: 'listFlowRules',
            kind: 'enum_value',
            at: 'items[].flow',
            message: '"checkout_v2" is not one of the declared values ("checkout", "card-transaction", "non-card-transaction", "redirect-transaction")',
            count: 1,
            example: { ...example('/flows/checkout'), sandbox: 'checkout', upstream: 'checkout_v2' },
          },
          {
            operation_id: 'listGiftCards',
            kind: 'missing_field',
            at: 'items[].bin',
            message: "the declared field items[].bin is missing from the upstream's answer",
            count: 1,
            example: { ...example('/gift-cards'), upstream: null },
          },
          {
            operation_id: 'listGiftCards',
            kind: 'new_field',
            at: 'items[].loyalty_tier',
            message: 'the upstream sent items[].loyalty_tier, which the contract does not declare',
            count: 1,
            example: { ...example('/gift-cards'), sandbox: null, upstream: 'gold' },
          },
        ],
        upstream_failures: [{ operation_id: 'listCardSchemeDefinitions', failure: 'status 503', count: 1, example_request_id: expect.any(String) }],
        writes_sent: false,
      });

      // For CI: a 409 with the report, and the summary as text.
      const failing = await fetch(`${sandbox.url}/_sandbox/upstream/report?fail_on_drift=true`);
      expect(failing.status).toBe(409);
      expect((await failing.json()).drift).toBe(true);
      const text = await (await fetch(`${sandbox.url}/_sandbox/upstream/report?format=text`)).text();
      expect(text).toContain('CONTRACT DRIFT');
      expect(text).toContain('  enum_value items[].flow: "checkout_v2" is not one of the declared values');

      // The journal's "differs from upstream" filter: the three calls, each with its differences.
      const differing = await (await fetch(`${sandbox.url}/_sandbox/requests?upstream=differs&view=summary`)).json();
      expect(differing.items.map((e: { operation_id: string }) => e.operation_id).sort()).toEqual(['listConnections', 'listFlowRules', 'listGiftCards']);
      const giftCards = differing.items.find((e: { operation_id: string }) => e.operation_id === 'listGiftCards');
      expect(giftCards.upstream.differences.map((d: { kind: string; at: string }) => `${d.kind} ${d.at}`)).toEqual([
        'missing_field items[].bin',
        'new_field items[].loyalty_tier',
      ]);
      const failed = await (await fetch(`${sandbox.url}/_sandbox/requests?upstream=upstream_failed`)).json();
      expect(failed.items.map((e: { upstream: { upstream: { status: number; failure: string } } }) => e.upstream.upstream)).toEqual([
        expect.objectContaining({ status: 503, failure: 'status 503' }),
      ]);

      // The console: the filter, and the call's differences beside the two answers.
      const page = await (await fetch(`${sandbox.url}/_sandbox/console/parts/requests`)).text();
      expect(page).toContain('<option value="differs">differs from upstream</option>');
      const detail = await (await fetch(`${sandbox.url}/_sandbox/console/parts/requests/entry?id=${giftCards.id}`)).text();
      expect(detail).toContain('<span class="badge upstream-differs">Differs from upstream</span>');
      expect(detail).toContain('<td>new_field</td><td><code>items[].loyalty_tier</code></td><td><code>—</code></td><td><code>&quot;gold&quot;</code></td>');
      expect(detail).toContain('<h4>Sandbox: 200</h4>');
      expect(detail).toMatch(/<h4>Upstream: 200 \([\d.]+ ms\)<\/h4>/);
      expect(detail).toContain('&quot;loyalty_tier&quot;: &quot;gold&quot;'); // the upstream's body, shown beside the sandbox's

      // Counted in the metrics.
      const metrics = await (await fetch(`${sandbox.url}/_sandbox/metrics`)).text();
      expect(metrics).toContain('payments_sandbox_upstream_comparisons_total{outcome="differs"} 3');
      expect(metrics).toContain('payments_sandbox_upstream_comparisons_total{outcome="upstream_failed"} 1');
      expect(metrics).toContain('payments_sandbox_upstream_differences_total{operation="listGiftCards",kind="missing_field"} 1');
    } finally {
      expect(await sandbox.stop()).toBe(3); // --fail-on-drift
      await proxy.close();
    }
    expect(JSON.parse(readFileSync(join(dir, 'compare-report.json'), 'utf8')).differences).toHaveLength(4);
    expect(sandbox.stderr()).toContain('CONTRACT DRIFT');
    expectNoSecrets(join(dir, 'compare-report.json'), join(dir, 'compare-report.txt'));
  });

  it('answers as usual when the upstream is unreachable, and records why', async () => {
    const closed = await silentServer();
    const address = closed.url;
    await closed.close(); // nothing listens there now
    const sandbox = await startCli(['--port', '0', '--upstream', address, '--compare', '--report-dir', join(work, 'down')]);
    try {
      const res = await call(sandbox.url, '/gift-cards');
      expect(res.status).toBe(200);
      expect((await res.json()).items.length).toBeGreaterThan(0);
      const found = await report(sandbox.url, 1);
      expect(found.drift).toBe(false);
      expect(found.calls).toEqual({ total: 1, same: 0, differs: 0, upstream_failed: 1, not_sent: 0 });
      expect(found.upstream_failures).toEqual([
        { operation_id: 'listGiftCards', failure: expect.stringMatching(/^unreachable: ECONNREFUSED/), count: 1, example_request_id: expect.any(String) },
      ]);
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
  });

  it('keeps at most 1,000 calls waiting for the upstream: the next are answered, not sent, and reported as a backlog', async () => {
    const silent: LocalServer = await silentServer();
    const args = ['--port', '0', '--upstream', silent.url, '--compare', '--upstream-timeout-ms', '120000', '--report-dir', join(work, 'backlog')];
    const sandbox = await startCli(args);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 1_020; i += 20) {
        const answers = await Promise.all(Array.from({ length: 20 }, () => call(sandbox.url, '/gift-cards?limit=1')));
        for (const res of answers) {
          statuses.push(res.status);
          await res.arrayBuffer();
        }
      }
      expect(statuses).toEqual(Array(1_020).fill(200)); // the sandbox answers every call, whatever waits for the upstream
      // The first 1,000 wait for an upstream that never answers; the last 20 are filed at once.
      const found = await report(sandbox.url, 20);
      expect(found.drift).toBe(false);
      expect(found.calls).toEqual({ total: 20, same: 0, differs: 0, upstream_failed: 20, not_sent: 0 });
      expect(found.upstream_failures).toEqual([
        {
          operation_id: 'listGiftCards',
          failure: "backlog: 1000 calls were waiting for the upstream's answer; this one was not sent",
          count: 20,
          example_request_id: expect.any(String),
        },
      ]);
    } finally {
      await silent.close(); // the waiting calls fail at once, so the stop does not wait two minutes for them
      expect(await sandbox.stop()).toBe(0);
    }
  });

  it('answers before an upstream that never answers times out; writes are not sent without --compare-writes', async () => {
    const silent: LocalServer = await silentServer();
    const sandbox = await startCli([
      '--port',
      '0',
      '--upstream',
      `${silent.url}/v1`,
      '--compare',
      '--upstream-timeout-ms',
      '500',
      '--report-dir',
      join(work, 'slow'),
    ]);
    try {
      // Through a namespace: the upstream gets the API path under its base path, never the /ns/{name} prefix.
      const res = await call(sandbox.url, '/ns/ci-7/gift-cards?limit=3');
      expect(res.status).toBe(200);
      // The answer came while the upstream still had the call: nothing compared yet.
      expect((await waitFor(() => (silent.received.length ? silent.received : undefined), 'the upstream got the call'))[0]).toMatchObject({
        method: 'GET',
        path: '/v1/gift-cards?limit=3',
      });
      expect(silent.received[0].headers.host).toBe(new URL(silent.url).host);
      expect(silent.received[0].headers.authorization).toBe(`Bearer ${suite.token}`); // passed through unchanged
      expect(silent.received[0].headers['x-service-merchant-account-id']).toBeUndefined(); // none sent, none invented
      const created = await call(sandbox.url, '/api-key-pairs', {
        method: 'POST',
        body: JSON.stringify({ display_name: 'kept here', role_ids: [WELL_KNOWN.roles.readOnly.id] }),
      });
      expect(created.status).toBe(201);
      const found = await report(sandbox.url, 2);
      expect(found.calls).toEqual({ total: 2, same: 0, differs: 0, upstream_failed: 1, not_sent: 1 });
      expect(found.upstream_failures[0].failure).toBe('timeout: no answer within 500 ms (--upstream-timeout-ms)');
      expect(silent.received.map((r) => r.method)).toEqual(['GET']); // the write never left
    } finally {
      expect(await sandbox.stop()).toBe(0);
      await silent.close();
    }
  });

  it("verifies the caller's own token on both sides once the sandbox has the public key of the real pair", async () => {
    // The "real service" (a second sandbox) knows the user's key pair; the sandbox is given only its public key.
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp521r1' });
    const keyFile = join(work, 'my-key.pem');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const register = (base: string) =>
      fetch(`${base}/_sandbox/records/api_key_pairs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          display_name: 'my real key',
          public_key: publicKey.export({ type: 'spki', format: 'pem' }),
          role_ids: [WELL_KNOWN.roles.admin.id],
        }),
      });
    const real = await startCli(['--port', '0', '--seed', '11', '--log-level', 'warn']);
    const sandbox = await startCli(['--port', '0', '--upstream', real.url, '--compare', '--report-dir', join(work, 'key')]);
    try {
      const theirs = await register(real.url);
      expect(theirs.status).toBe(201);
      const mine = await (await register(sandbox.url)).json();
      expect(mine.thumbprint).toBe((await theirs.json()).thumbprint); // the token's kid names the same pair on both sides
      const own = await cliToken(['--key', keyFile]);
      const before = await call(sandbox.url, '/gift-cards', { headers: { authorization: `Bearer ${own}` } });
      expect(before.status).toBe(200);
      const found = await report(sandbox.url, 1);
      expect(found.calls).toEqual({ total: 1, same: 1, differs: 0, upstream_failed: 0, not_sent: 0 });
      // Without the public key the sandbox refuses the token the real service takes: a status difference, reported.
      await fetch(`${sandbox.url}/_sandbox/records/api_key_pairs/${mine.id}`, { method: 'DELETE' });
      expect((await call(sandbox.url, '/gift-cards', { headers: { authorization: `Bearer ${own}` } })).status).toBe(401);
      const after = await report(sandbox.url, 2);
      expect(after.differences).toEqual([
        expect.objectContaining({
          operation_id: 'listGiftCards',
          kind: 'status',
          at: 'status',
          count: 1,
          example: expect.objectContaining({ sandbox: 401, upstream: 200 }),
        }),
      ]);
    } finally {
      await sandbox.stop();
      await real.stop();
    }
  });

  it('refuses an upstream it cannot use, and --compare without one', async () => {
    const { runCli } = await import('../cli/support/cli.js');
    for (const [args, message] of [
      [['--compare'], '--compare needs --upstream URL'],
      [['--upstream', 'ftp://x', '--compare'], '--upstream must be an http or https URL, not ftp:'],
      [['--upstream', 'http://user:pw@x', '--compare'], '--upstream must not hold credentials'],
      [['--compare-writes'], '--compare-writes goes with --compare'],
    ] as const) {
      const result = await runCli([...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });
});
