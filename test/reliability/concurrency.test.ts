// Hundreds of concurrent requests mixing updates of one record (each field by its own chain of
// writes), creates (reports, API key pairs), injected faults (x-sandbox-scenario server-error and
// rate-limited) and two namespaces: the final state is checked exactly — no field lost, no id
// duplicated, nothing created by a failed request, nothing leaking between namespaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { WELL_KNOWN } from '../support/sandbox.js';
import { type RawResponse, send } from './support.js';

let sb: RunningSandbox;
let auth: string;
const BUYER = WELL_KNOWN.buyers.default.id;
const FIELDS = ['display_name', 'external_identifier', 'account_number', 'billing_details'] as const;
const CHAIN = 20;

beforeAll(async () => {
  sb = await startSandbox({ validateResponses: true, logLevel: 'silent' });
  auth = `Bearer ${await sb.token()}`;
});
afterAll(() => sb.close());

const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> =>
  send(sb.url, { method, path, headers: { authorization: auth, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const fieldValue = (field: (typeof FIELDS)[number], ns: string, i: number) =>
  field === 'billing_details'
    ? { first_name: `${ns}-first-${i}`, last_name: null, email_address: null, phone_number: null, address: null, tax_id: null }
    : `${ns}-${field}-${i}`;

const report = (name: string) => ({ name, schedule: 'daily', schedule_enabled: false, spec: { model: 'transactions', params: {} } });

/** Everything one namespace is sent at once; resolves to what each part got back. */
function load(ns: string) {
  const prefix = ns === 'default' ? '' : `/ns/${ns}`;
  const chains = FIELDS.map(async (field) => {
    for (let i = 1; i <= CHAIN; i++) {
      const res = await json('PUT', `${prefix}/buyers/${BUYER}`, { [field]: fieldValue(field, ns, i) });
      expect(res.status, res.text).toBe(200);
      // The answer shows this write's own value: no other request's half-applied state.
      expect(res.json[field]).toEqual(fieldValue(field, ns, i));
    }
  });
  const reports = Array.from({ length: 60 }, (_, i) => json('POST', `${prefix}/reports`, report(`${ns}-report-${i}`)));
  const failing = Array.from({ length: 20 }, (_, i) =>
    json('POST', `${prefix}/reports`, report(`${ns}-failed-${i}`), { 'x-sandbox-scenario': 'server-error' }),
  );
  const limited = Array.from({ length: 20 }, (_, i) =>
    json('POST', `${prefix}/reports`, report(`${ns}-limited-${i}`), { 'x-sandbox-scenario': 'rate-limited' }),
  );
  const keys = Array.from({ length: 8 }, (_, i) =>
    json('POST', `${prefix}/api-key-pairs`, { display_name: `${ns}-key-${i}`, role_ids: [WELL_KNOWN.roles.readOnly.id] }),
  );
  return { chains: Promise.all(chains), reports: Promise.all(reports), failing: Promise.all(failing), limited: Promise.all(limited), keys: Promise.all(keys) };
}

describe('concurrent requests', () => {
  it('keep every field, never duplicate an id and keep namespaces apart', async () => {
    const store = (ns: string) => sb.deps.namespaces.get(ns).store.collections;
    const before = { reports: store('default').reports.size, keys: store('default').api_key_pairs.size };
    const runs = { default: load('default'), 'conc-a': load('conc-a') };
    const results = await Promise.all(
      Object.entries(runs).map(async ([ns, run]) => ({
        ns,
        chains: await run.chains,
        reports: await run.reports,
        failing: await run.failing,
        limited: await run.limited,
        keys: await run.keys,
      })),
    );

    for (const { ns, reports, failing, limited, keys } of results) {
      const db = store(ns);
      // Same record, different fields: each holds the last write of its chain.
      const buyer = db.buyers.get(BUYER)!;
      for (const field of FIELDS) expect(buyer[field], `${ns} ${field}`).toEqual(fieldValue(field, ns, CHAIN));

      expect(reports.map((r) => r.status)).toEqual(reports.map(() => 201));
      expect(failing.map((r) => r.status)).toEqual(failing.map(() => 500)); // asked for by the scenario
      for (const r of failing) expect(r.json.message).toBe('The server failed (answered by scenario server-error).');
      const limitedStatuses = limited.map((r) => r.status).sort();
      expect(limitedStatuses).toEqual([...Array(18).fill(201), 429, 429]); // the first two per merchant account, then normal
      expect(keys.map((r) => r.status)).toEqual(keys.map(() => 201));

      // Exactly the reports that were acknowledged exist, each once, with distinct ids.
      const createdNames = [...reports, ...limited]
        .filter((r) => r.status === 201)
        .map((r) => r.json.name)
        .sort();
      const storedNames = db.reports
        .where((r) => r.name.startsWith(`${ns}-`))
        .map((r) => r.name)
        .sort();
      expect(storedNames).toEqual(createdNames);
      expect(storedNames).toHaveLength(78);
      const ids = [...reports, ...limited].filter((r) => r.status === 201).map((r) => r.json.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(db.reports.get(id)?.id).toBe(id);

      // Key pairs: distinct ids and thumbprints, each stored.
      expect(new Set(keys.map((r) => r.json.id)).size).toBe(keys.length);
      expect(new Set(keys.map((r) => r.json.thumbprint)).size).toBe(keys.length);
      for (const r of keys) expect(db.api_key_pairs.get(r.json.id)?.display_name).toBe(r.json.display_name);
    }

    // Nothing crossed between namespaces: each sees only its own names.
    expect(store('default').reports.size).toBe(before.reports + 78);
    expect(store('default').api_key_pairs.size).toBe(before.keys + 8);
    expect(store('default').reports.where((r) => r.name.startsWith('conc-a-'))).toEqual([]);
    expect(store('conc-a').reports.where((r) => r.name.startsWith('default-'))).toEqual([]);
    expect(store('conc-a').reports.size).toBe(before.reports + 78);
    // The collections' id indexes agree with their rows (no duplicate rows behind one id).
    for (const ns of ['default', 'conc-a']) {
      for (const name of ['reports', 'api_key_pairs', 'buyers'] as const) {
        const rows = store(ns)[name].all();
        expect(new Set(rows.map((r) => r.id)).size, `${ns} ${name}`).toBe(rows.length);
      }
    }
  });
});
