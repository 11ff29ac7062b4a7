// Helpers shared by the scenario and clock tests.
import type { TestSandbox } from '../support/sandbox.js';
import { tempDirWith } from '../support/temp-dir.js';

/** A temporary scenario folder holding these files (name -> text). */
export function scenarioDir(files: Record<string, string>): string {
  return tempDirWith('sandbox-scenarios-', files);
}

export const REPORT_BODY = { name: 'Scenario report', schedule: 'once', schedule_enabled: true, spec: { model: 'transactions', params: {} } };

/** Activates scenarios through the control API and checks it worked. */
export async function activate(sb: TestSandbox, scenarios: string[], merchantAccountId: string | null = null, ns?: string) {
  const req = sb.http.put('/_sandbox/scenarios/active');
  if (ns) req.set('x-sandbox-namespace', ns);
  const res = await req.send({ scenarios, merchant_account_id: merchantAccountId });
  if (res.status !== 200) throw new Error(`activation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Counts of each value. */
export function tally<T>(values: T[]): Map<T, number> {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

/** Defines a scenario at run time through the control API (in a namespace when given) and checks it worked. */
export async function define(sb: TestSandbox, body: object, ns?: string) {
  const req = sb.http.post('/_sandbox/scenarios');
  if (ns) req.set('x-sandbox-namespace', ns);
  const res = await req.send(body);
  if (res.status !== 201) throw new Error(`definition failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
